import net from 'node:net';
import type http from 'node:http';
import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach, jest } from '@jest/globals';
import sharp from 'sharp';
import { fetchImage, isPublicUnicast, type FetchImageOptions, type HostLookup } from '../../src/images/fetch-image';
import { validateImageBytes } from '../../src/images/validate-image';
import { expectAppError, randomBytes, startServer, type TestServer } from './helpers';

const IMAGE = randomBytes(200_000, 7);
const MB = 1024 * 1024;

/** Options for tests that talk to the local server: loopback allowed, short limits. */
const LOCAL: FetchImageOptions = { maxBytes: MB, timeoutMs: 2_000, allowLoopbackForTests: true };

function serveRoutes(req: http.IncomingMessage, res: http.ServerResponse, server: TestServer): void {
  const url = new URL(req.url ?? '/', server.origin);
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const left = Number(chain[1]);
    if (left === 0) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(IMAGE);
      return;
    }
    // Alternate relative and absolute Locations and the redirect statuses.
    const location = left % 2 === 0 ? `/chain/${left - 1}` : `${server.origin}/chain/${left - 1}`;
    res.writeHead([302, 301, 307, 308, 303][left % 5] ?? 302, { location }).end();
    return;
  }
  switch (url.pathname) {
    case '/image':
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': IMAGE.length }).end(IMAGE);
      return;
    case '/chunked-image':
      // No Content-Length: streamed in pieces.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(IMAGE.subarray(0, 1000));
      setTimeout(() => res.end(IMAGE.subarray(1000)), 20);
      return;
    case '/not-found':
      res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
      return;
    case '/server-error':
      res.writeHead(500).end('internal details that must not leak');
      return;
    case '/not-modified':
      res.writeHead(304).end();
      return;
    case '/redirect-no-location':
      res.writeHead(302).end();
      return;
    case '/declared-too-large':
      res.writeHead(200, { 'content-length': String(MB + 1) });
      res.write(Buffer.alloc(1024));
      // Never finishes on its own: the client must give up on the header alone.
      return;
    case '/to-private':
      res.writeHead(302, { location: 'http://10.0.0.1/x' }).end();
      return;
    case '/to-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/to-ftp':
      res.writeHead(302, { location: 'ftp://example.com/image.jpg' }).end();
      return;
    case '/to-private-name':
      res.writeHead(302, { location: `http://internal.example.test:${server.port}/image` }).end();
      return;
    case '/to-bad-url':
      res.writeHead(302, { location: 'http://[not-an-ip/' }).end();
      return;
    default:
      res.writeHead(404).end();
  }
}

describe('isPublicUnicast', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4001:80b::200e', true],
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['240.0.0.1', false],
    ['192.0.2.1', false],
    ['198.18.0.1', false],
    ['::', false],
    ['::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::127.0.0.1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['2001::1', false],
    ['2001:db8::1', false],
    ['localhost', false],
    ['example.com', false],
    ['', false],
    ['999.1.1.1', false],
  ])('%s -> %s', (address, expected) => {
    expect(isPublicUnicast(address)).toBe(expected);
  });

  it('judges IPv4-mapped IPv6 as the IPv4 address it maps', () => {
    expect(isPublicUnicast('::ffff:8.8.8.8')).toBe(true);
    expect(isPublicUnicast('::ffff:192.168.0.1')).toBe(false);
  });

  it('with allowLoopback adds loopback only', () => {
    for (const loopback of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isPublicUnicast(loopback, true)).toBe(true);
    for (const other of ['10.0.0.1', '169.254.169.254', '192.168.1.1', '172.16.0.1', '100.64.0.1', '0.0.0.0', '::', 'fc00::1', 'fe80::1', '224.0.0.1']) {
      expect(isPublicUnicast(other, true)).toBe(false);
    }
    expect(isPublicUnicast('8.8.8.8', true)).toBe(true);
  });
});

describe('fetchImage against a local server (loopback allowed)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(serveRoutes);
  });
  afterAll(async () => {
    await server.close();
  });

  it('returns the exact bytes of the image', async () => {
    const bytes = await fetchImage(`${server.origin}/image`, LOCAL);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
  });

  it('returns the exact bytes of a body streamed without Content-Length', async () => {
    const bytes = await fetchImage(`${server.origin}/chunked-image`, LOCAL);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
  });

  it('connects a DNS name to the checked address, keeps the Host header and resolves only once', async () => {
    const lookup = jest.fn<HostLookup>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const bytes = await fetchImage(`http://images.example.test:${server.port}/image`, { ...LOCAL, lookup });
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('images.example.test');
    expect(server.hosts.at(-1)).toBe(`images.example.test:${server.port}`);
  });

  it('works end to end with validateImageBytes', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#204080' } }).png().toBuffer();
    const local = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(png));
    try {
      const bytes = await fetchImage(`${local.origin}/card.jpg`, LOCAL);
      await expect(validateImageBytes(bytes, { maxBytes: 15 * MB, maxPixels: 50_000_000, minShortSide: 1 })).resolves.toMatchObject({
        contentType: 'image/png',
        width: 40,
        height: 30,
      });
    } finally {
      await local.close();
    }
  });

  it.each([
    ['/not-found', 404],
    ['/server-error', 500],
    ['/not-modified', 304],
    ['/redirect-no-location', 302],
  ])('refuses %s as "answered HTTP %i"', async (path, status) => {
    const error = await expectAppError(fetchImage(`${server.origin}${path}`, LOCAL), 'invalid_image_url', `image URL answered HTTP ${status}`);
    expect(error.detail).not.toContain('internal details');
  });

  it('follows a redirect chain of 2 (relative and absolute Locations)', async () => {
    const before = server.paths.length;
    const bytes = await fetchImage(`${server.origin}/chain/2`, LOCAL);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
    expect(server.paths.slice(before)).toEqual(['/chain/2', '/chain/1', '/chain/0']);
  });

  it('follows exactly maxRedirects (3) redirects by default', async () => {
    const bytes = await fetchImage(`${server.origin}/chain/3`, LOCAL);
    expect(Buffer.from(bytes).equals(IMAGE)).toBe(true);
  });

  it('refuses 4 redirects as too many, without requesting the 5th URL', async () => {
    const before = server.paths.length;
    await expectAppError(fetchImage(`${server.origin}/chain/4`, LOCAL), 'invalid_image_url', 'too many redirects');
    expect(server.paths.slice(before)).toEqual(['/chain/4', '/chain/3', '/chain/2', '/chain/1']);
  });

  it('honours a custom maxRedirects', async () => {
    await expectAppError(fetchImage(`${server.origin}/chain/1`, { ...LOCAL, maxRedirects: 0 }), 'invalid_image_url', 'too many redirects');
    await expect(fetchImage(`${server.origin}/chain/5`, { ...LOCAL, maxRedirects: 5 })).resolves.toBeInstanceOf(Uint8Array);
  });

  it.each([
    ['/to-private', 'http://10.0.0.1/x'],
    ['/to-metadata', 'the metadata address 169.254.169.254'],
  ])('refuses a redirect from %s to %s even with loopback allowed', async (path) => {
    const connect = jest.spyOn(net.Socket.prototype, 'connect');
    try {
      await expectAppError(fetchImage(`${server.origin}${path}`, LOCAL), 'invalid_image_url', 'image URL host resolves to a non-public address');
      // Only the first hop (to the local server) connected.
      expect(connect).toHaveBeenCalledTimes(1);
    } finally {
      connect.mockRestore();
    }
  });

  it('re-resolves and re-checks a redirect to a DNS name', async () => {
    const lookup = jest.fn<HostLookup>(async (hostname) =>
      hostname === 'internal.example.test' ? [{ address: '10.20.30.40', family: 4 }] : [{ address: '127.0.0.1', family: 4 }],
    );
    const before = server.paths.length;
    await expectAppError(fetchImage(`${server.origin}/to-private-name`, { ...LOCAL, lookup }), 'invalid_image_url', 'image URL host resolves to a non-public address');
    expect(lookup).toHaveBeenCalledWith('internal.example.test');
    expect(server.paths.slice(before)).toEqual(['/to-private-name']);
  });

  it('refuses a redirect to a non-http scheme or an unparsable Location', async () => {
    await expectAppError(fetchImage(`${server.origin}/to-ftp`, LOCAL), 'invalid_image_url', 'image URL must use http or https');
    await expectAppError(fetchImage(`${server.origin}/to-bad-url`, LOCAL), 'invalid_image_url', 'image URL must be an absolute http or https URL');
  });

  it('refuses a declared Content-Length over maxBytes without reading the body', async () => {
    await expectAppError(fetchImage(`${server.origin}/declared-too-large`, LOCAL), 'image_too_large', 'image is larger than 1 MB');
  });

  it('accepts a body of exactly maxBytes', async () => {
    const bytes = await fetchImage(`${server.origin}/image`, { ...LOCAL, maxBytes: IMAGE.length });
    expect(bytes.length).toBe(IMAGE.length);
    await expectAppError(fetchImage(`${server.origin}/chunked-image`, { ...LOCAL, maxBytes: IMAGE.length - 1 }), 'image_too_large');
  });
});

describe('fetchImage limits', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('aborts a body over the cap streamed without Content-Length as soon as it passes maxBytes', async () => {
    const total = 64 * MB;
    let written = 0;
    let finished = false;
    let closed!: Promise<void>;
    const server = await startServer((_req, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = Buffer.alloc(64 * 1024, 0xab);
      const pump = (): void => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) {
          finished = true;
          res.end();
        }
      };
      pump();
    });
    servers.push(server);

    await expectAppError(fetchImage(`${server.origin}/huge`, LOCAL), 'image_too_large', 'image is larger than 1 MB');
    await closed;
    expect(finished).toBe(false);
    // The server could only push what fits into socket buffers after the client stopped reading.
    expect(written).toBeLessThan(16 * MB);
  });

  it('times out on a server that never answers', async () => {
    const server = await startServer(() => undefined);
    servers.push(server);
    const started = Date.now();
    await expectAppError(fetchImage(`${server.origin}/slow`, { ...LOCAL, timeoutMs: 300 }), 'invalid_image_url', 'image URL timed out');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('applies the total time limit to a body that trickles in', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const timer = setInterval(() => res.write(Buffer.alloc(10)), 50);
      res.on('close', () => clearInterval(timer));
    });
    servers.push(server);
    const started = Date.now();
    await expectAppError(fetchImage(`${server.origin}/trickle`, { ...LOCAL, timeoutMs: 400 }), 'invalid_image_url', 'image URL timed out');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('applies the time limit to DNS resolution', async () => {
    const lookup: HostLookup = () => new Promise(() => undefined);
    await expectAppError(fetchImage('http://slow-dns.example.test/', { ...LOCAL, timeoutMs: 200, lookup }), 'invalid_image_url', 'image URL timed out');
  });

  it('reports a refused connection without library error text', async () => {
    const probe = await startServer(() => undefined);
    const port = probe.port;
    await probe.close(); // nothing listens there now
    const error = await expectAppError(fetchImage(`http://127.0.0.1:${port}/`, LOCAL), 'invalid_image_url', 'image URL could not be fetched');
    expect(error.detail).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('reports a DNS failure as a resolution error', async () => {
    const lookup: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.test'), { code: 'ENOTFOUND' });
    };
    const error = await expectAppError(fetchImage('http://nowhere.example.test/', { ...LOCAL, lookup }), 'invalid_image_url', 'image URL host could not be resolved');
    expect(error.detail).not.toContain('ENOTFOUND');
    const empty: HostLookup = async () => [];
    await expectAppError(fetchImage('http://nowhere.example.test/', { ...LOCAL, lookup: empty }), 'invalid_image_url', 'image URL host could not be resolved');
  });
});

describe('SSRF corpus (loopback NOT allowed): refused before any connection', () => {
  let server: TestServer;
  let connect: ReturnType<typeof jest.spyOn>;
  const lookup = jest.fn<HostLookup>();
  const STRICT = (): FetchImageOptions => ({ maxBytes: MB, timeoutMs: 2_000, lookup });

  beforeAll(async () => {
    server = await startServer((_req, res) => res.writeHead(200).end(IMAGE));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    lookup.mockReset();
    connect = jest.spyOn(net.Socket.prototype, 'connect');
  });
  afterEach(() => {
    connect.mockRestore();
  });

  const NON_PUBLIC = 'image URL host resolves to a non-public address';

  it.each([
    (port: number) => `http://127.0.0.1:${port}/`,
    (port: number) => `http://127.1:${port}/`,
    (port: number) => `http://2130706433:${port}/`,
    (port: number) => `http://0x7f.0.0.1:${port}/`,
    (port: number) => `http://[::1]:${port}/`,
    (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
    (port: number) => `http://0.0.0.0:${port}/`,
    () => 'http://10.1.2.3/',
    () => 'http://172.16.0.1/',
    () => 'http://192.168.1.1/',
    () => 'http://169.254.169.254/latest/meta-data',
    () => 'http://100.64.0.1/',
    () => 'http://[fc00::1]/',
    () => 'http://[fe80::1]/',
    () => 'http://[::]/',
    () => 'https://[::ffff:a9fe:a9fe]/',
    () => 'http://224.0.0.1/',
    () => 'http://255.255.255.255/',
  ])('refuses IP literal %#', async (make) => {
    const url = make(server.port);
    const connectionsBefore = server.connections();
    await expectAppError(fetchImage(url, STRICT()), 'invalid_image_url', NON_PUBLIC);
    expect(lookup).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
    expect(server.connections()).toBe(connectionsBefore);
  });

  it.each([
    ['localhost', [{ address: '127.0.0.1', family: 4 }]],
    ['internal.example.test', [{ address: '10.0.0.5', family: 4 }]],
    ['metadata.example.test', [{ address: '169.254.169.254', family: 4 }]],
    ['v6.example.test', [{ address: 'fd00::1', family: 6 }]],
    ['mapped.example.test', [{ address: '::ffff:127.0.0.1', family: 6 }]],
    ['mixed.example.test', [{ address: '93.184.216.34', family: 4 }, { address: '192.168.0.10', family: 4 }]],
    ['mixed-v6.example.test', [{ address: '2606:4700:4700::1111', family: 6 }, { address: '::1', family: 6 }]],
    ['garbage.example.test', [{ address: 'not-an-ip', family: 4 }]],
  ] as const)('refuses %s when it resolves to %j', async (hostname, answer) => {
    lookup.mockResolvedValue(answer.map((a) => ({ ...a })));
    const connectionsBefore = server.connections();
    await expectAppError(fetchImage(`http://${hostname}:${server.port}/image.jpg`, STRICT()), 'invalid_image_url', NON_PUBLIC);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith(hostname);
    expect(connect).not.toHaveBeenCalled();
    expect(server.connections()).toBe(connectionsBefore);
  });

  it.each([
    ['ftp://example.com/card.jpg', 'image URL must use http or https'],
    ['file:///etc/passwd', 'image URL must use http or https'],
    ['javascript:alert(1)', 'image URL must use http or https'],
    ['data:image/png;base64,iVBORw0KGgo=', 'image URL must use http or https'],
    ['gopher://127.0.0.1:6379/_INFO', 'image URL must use http or https'],
    ['/relative/card.jpg', 'image URL must be an absolute http or https URL'],
    ['card.jpg', 'image URL must be an absolute http or https URL'],
    ['//example.com/card.jpg', 'image URL must be an absolute http or https URL'],
    ['', 'image URL must be an absolute http or https URL'],
    ['http://', 'image URL must be an absolute http or https URL'],
    [`http://user:pass@example.com/card.jpg`, 'image URL must not contain credentials'],
    [`http://user@example.com/card.jpg`, 'image URL must not contain credentials'],
    [`https://${'a'.repeat(9000)}.example.com/`, 'image URL must be an absolute http or https URL'],
  ])('refuses %s', async (url, detail) => {
    await expectAppError(fetchImage(url, STRICT()), 'invalid_image_url', detail);
    expect(lookup).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('allowLoopbackForTests allows loopback only', () => {
  let connect: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    connect = jest.spyOn(net.Socket.prototype, 'connect');
  });
  afterEach(() => {
    connect.mockRestore();
  });

  it.each([
    'http://10.0.0.1/',
    'http://10.255.255.254:8080/x',
    'http://169.254.169.254/latest/meta-data',
    'http://192.168.0.1/',
    'http://172.20.0.1/',
    'http://100.100.100.200/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
  ])('still refuses %s', async (url) => {
    await expectAppError(fetchImage(url, LOCAL), 'invalid_image_url', 'image URL host resolves to a non-public address');
    expect(connect).not.toHaveBeenCalled();
  });

  it('still refuses a DNS name that resolves to 10/8 or the metadata address', async () => {
    for (const address of ['10.9.8.7', '169.254.169.254']) {
      const lookup: HostLookup = async () => [{ address, family: 4 }];
      await expectAppError(fetchImage('http://sneaky.example.test/', { ...LOCAL, lookup }), 'invalid_image_url', 'image URL host resolves to a non-public address');
    }
    expect(connect).not.toHaveBeenCalled();
  });
});
