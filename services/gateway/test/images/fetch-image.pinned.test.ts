/**
 * Tests where the first hop must be PUBLIC (loopback not allowed), yet still reach a local server.
 *
 * The injected lookup answers a public address (93.184.216.34) for *.example.test. A spy on net.Socket#connect
 * wraps the `lookup` that fetchImage hands to the socket (its pinned, already-checked answer) and only maps that
 * public address onto 127.0.0.1, recording what the pinned lookup produced. fetchImage's own checks see exactly
 * what they would see in production; only the final TCP destination is redirected to the local test server.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach, jest } from '@jest/globals';
import { fetchImage, type FetchImageOptions, type HostLookup } from '../../src/images/fetch-image';
import { expectAppError, randomBytes, startServer, type TestServer } from './helpers';

const PUBLIC_ADDRESS = '93.184.216.34';
const IMAGE = randomBytes(50_000, 3);
const NON_PUBLIC = 'image URL host resolves to a non-public address';

type Lookup = NonNullable<net.TcpNetConnectOpts['lookup']>;

/** Addresses the pinned lookup handed to sockets, before the test mapping to 127.0.0.1. */
let pinnedAnswers: string[] = [];
let connectSpy: ReturnType<typeof jest.spyOn>;

function routePublicToLoopback(): void {
  const original = net.Socket.prototype.connect;
  connectSpy = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { lookup?: Lookup } | undefined;
    const pinned = options?.lookup;
    if (options && typeof options === 'object' && pinned) {
      const mapped: Lookup = (hostname, lookupOptions, callback) =>
        pinned(hostname, lookupOptions, (error, address, family) => {
          if (error) return callback(error, address, family);
          const toLocal = (a: string): string => (a === PUBLIC_ADDRESS ? '127.0.0.1' : a);
          if (Array.isArray(address)) {
            pinnedAnswers.push(...address.map((a) => a.address));
            callback(null, address.map((a) => ({ ...a, address: toLocal(a.address) })));
          } else {
            pinnedAnswers.push(address);
            callback(null, toLocal(address), family);
          }
        });
      options.lookup = mapped;
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  });
}

const publicLookup = (): jest.Mock<HostLookup> =>
  jest.fn<HostLookup>(async (hostname) => {
    if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    if (hostname === 'rebind.example.test') return [{ address: '10.0.0.1', family: 4 }];
    return [{ address: PUBLIC_ADDRESS, family: 4 }];
  });

describe('fetchImage with a public first hop (loopback not allowed)', () => {
  let server: TestServer;
  let options: FetchImageOptions;
  let lookup: jest.Mock<HostLookup>;

  beforeAll(async () => {
    server = await startServer((req, res, self) => {
      const path = req.url ?? '/';
      const redirect = (location: string): void => void res.writeHead(302, { location }).end();
      if (path === '/image') return void res.writeHead(200).end(IMAGE);
      if (path === '/to-loopback') return redirect(`http://127.0.0.1:${self.port}/image`);
      if (path === '/to-localhost') return redirect(`http://localhost:${self.port}/image`);
      if (path === '/to-v6-loopback') return redirect(`http://[::1]:${self.port}/image`);
      if (path === '/to-mapped-loopback') return redirect(`http://[::ffff:127.0.0.1]:${self.port}/image`);
      if (path === '/to-private') return redirect('http://10.0.0.1/x');
      if (path === '/to-rebind-name') return redirect(`http://rebind.example.test:${self.port}/image`);
      if (path === '/to-public-name') return redirect(`http://other.example.test:${self.port}/image`);
      res.writeHead(404).end();
    });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    pinnedAnswers = [];
    lookup = publicLookup();
    options = { maxBytes: 1024 * 1024, timeoutMs: 2_000, lookup };
    routePublicToLoopback();
  });
  afterEach(() => {
    connectSpy.mockRestore();
  });

  it('connects to the checked address with the original Host header', async () => {
    const bytes = await fetchImage(`http://cdn.example.test:${server.port}/image`, options);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(pinnedAnswers).toEqual([PUBLIC_ADDRESS]);
    expect(server.hosts.at(-1)).toBe(`cdn.example.test:${server.port}`);
  });

  it('resolves once per hop: a changed DNS answer (rebinding) is never used', async () => {
    let calls = 0;
    const rebinding = jest.fn<HostLookup>(async () => {
      calls += 1;
      return calls === 1 ? [{ address: PUBLIC_ADDRESS, family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    });
    const bytes = await fetchImage(`http://cdn.example.test:${server.port}/image`, { ...options, lookup: rebinding });
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
    expect(rebinding).toHaveBeenCalledTimes(1);
    expect(pinnedAnswers).toEqual([PUBLIC_ADDRESS]);
  });

  it('follows a redirect to another public name, resolving and checking it', async () => {
    const bytes = await fetchImage(`http://cdn.example.test:${server.port}/to-public-name`, options);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
    expect(lookup.mock.calls.map((c) => c[0])).toEqual(['cdn.example.test', 'other.example.test']);
    expect(server.hosts.slice(-2)).toEqual([`cdn.example.test:${server.port}`, `other.example.test:${server.port}`]);
  });

  it.each(['/to-loopback', '/to-localhost', '/to-v6-loopback', '/to-mapped-loopback', '/to-private', '/to-rebind-name'])(
    'refuses the redirect %s and never requests its target',
    async (path) => {
      const before = server.paths.length;
      await expectAppError(fetchImage(`http://cdn.example.test:${server.port}${path}`, options), 'invalid_image_url', NON_PUBLIC);
      expect(server.paths.slice(before)).toEqual([path]);
      expect(connectSpy).toHaveBeenCalledTimes(1);
    },
  );
});

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('fetchImage over TLS', () => {
  const itWithOpenssl = haveOpenssl() ? it : it.skip;
  let dir: string;
  let tlsServer: https.Server | undefined;
  const servernames: (string | undefined)[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fetch-image-tls-'));
  });
  afterAll(async () => {
    if (tlsServer) {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer?.close(resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    pinnedAnswers = [];
    routePublicToLoopback();
  });
  afterEach(() => {
    connectSpy.mockRestore();
  });

  itWithOpenssl('sends SNI = the URL hostname to the checked address, and refuses an untrusted certificate without library text', async () => {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=secure.example.test'], { stdio: 'ignore' });
    const context = { key: readFileSync(key), cert: readFileSync(cert) };
    tlsServer = https.createServer({
      ...context,
      SNICallback: (servername, callback) => {
        servernames.push(servername);
        callback(null, tls.createSecureContext(context));
      },
    }, (_req, res) => res.writeHead(200).end(IMAGE));
    await new Promise<void>((resolve) => tlsServer?.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as AddressInfo).port;

    const error = await expectAppError(
      fetchImage(`https://secure.example.test:${port}/image`, { maxBytes: 1024 * 1024, timeoutMs: 2_000, lookup: publicLookup() }),
      'invalid_image_url',
      'image URL could not be fetched',
    );
    expect(error.detail).not.toMatch(/certificate|self.signed|ssl|tls/i);
    expect(servernames).toEqual(['secure.example.test']);
    expect(pinnedAnswers).toEqual([PUBLIC_ADDRESS]);
  });
});
