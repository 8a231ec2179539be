import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { AppError } from '@cardlens/errors';
import ipaddr from 'ipaddr.js';
import { describeBytes } from './validate-image';

/**
 * SSRF-safe download of a caller-supplied image URL.
 *
 * Every URL (the first and each redirect target) is parsed, its host resolved once, and every resolved address
 * checked to be public unicast. The connection is then made to exactly those checked addresses (a pinned `lookup`
 * handed to node:http / node:https, which net.connect uses instead of DNS), so a second, different DNS answer
 * (rebinding) can never be used. The Host header and the TLS SNI / certificate check keep the URL's hostname.
 *
 * Built on node:http/https rather than undici: undici's current major (8.x) needs Node >= 22.19 and
 * does not load on the Node 20 runtime. The pinning technique is the same (a lookup that answers only from
 * the checked addresses).
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface FetchImageOptions {
  /** Largest accepted body in bytes; the download is aborted as soon as it is exceeded. */
  maxBytes: number;
  /** Total time budget in milliseconds for resolution, connection, headers and body over all redirects. */
  timeoutMs: number;
  /** Redirects followed at most (default 3). */
  maxRedirects?: number;
  /** Tests only: also allow loopback (127.0.0.0/8, ::1). Nothing else non-public is ever allowed. */
  allowLoopbackForTests?: boolean;
  /** DNS resolution, injectable for tests. Default: node:dns/promises lookup with { all: true }. */
  lookup?: HostLookup;
}

const DEFAULT_MAX_REDIRECTS = 3;
const MAX_URL_LENGTH = 8192;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const defaultLookup: HostLookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function invalidUrl(detail: string, cause?: unknown): AppError {
  return new AppError('invalid_image_url', detail, cause === undefined ? {} : { cause });
}

/**
 * True when `address` (an IP literal) is a public unicast address per ipaddr.js ranges. IPv4-mapped IPv6
 * (::ffff:a.b.c.d) is judged as the IPv4 address it maps. With `allowLoopback`, loopback (127.0.0.0/8, ::1) is
 * accepted too; nothing else. Anything that is not an IP literal is false.
 */
export function isPublicUnicast(address: string, allowLoopback = false): boolean {
  if (typeof address !== 'string' || !ipaddr.isValid(address)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  const range = parsed.range();
  if (allowLoopback && range === 'loopback') return true;
  if (range !== 'unicast') return false;
  if (parsed.kind() === 'ipv6') {
    // ::/96 (deprecated IPv4-compatible addresses, e.g. ::127.0.0.1) has no ipaddr.js range of its own.
    const parts = (parsed as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0)) return false;
  }
  return true;
}

interface Target {
  url: URL;
  /** Hostname as the connector sees it (brackets stripped from IPv6 literals). */
  hostname: string;
  addresses: ResolvedAddress[];
}

function parseTarget(raw: string, base?: URL): URL {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw invalidUrl('image URL must be an absolute http or https URL');
  }
  let url: URL;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    throw invalidUrl('image URL must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidUrl('image URL must use http or https');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidUrl('image URL must not contain credentials');
  }
  if (url.hostname === '') throw invalidUrl('image URL must be an absolute http or https URL');
  return url;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function resolveTarget(url: URL, lookup: HostLookup, allowLoopback: boolean, signal: AbortSignal): Promise<Target> {
  const hostname = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  const literalFamily = isIP(hostname);
  if (literalFamily !== 0) {
    addresses = [{ address: hostname, family: literalFamily === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await abortable(lookup(hostname), signal);
    } catch (cause) {
      if (signal.aborted) throw invalidUrl('image URL timed out', cause);
      throw invalidUrl('image URL host could not be resolved', cause);
    }
    if (!Array.isArray(addresses) || addresses.length === 0) throw invalidUrl('image URL host could not be resolved');
  }
  // Every answer must be public: picking a public one among private ones would still let DNS steer us inward.
  if (!addresses.every((a) => isPublicUnicast(a.address, allowLoopback))) {
    throw invalidUrl('image URL host resolves to a non-public address');
  }
  return { url, hostname, addresses: addresses.map((a) => ({ address: a.address, family: isIP(a.address) === 6 ? 6 : 4 })) };
}

/**
 * A net.connect lookup that only ever answers with the addresses already checked for `target`; it never asks DNS.
 * IP-literal hosts never reach it (net connects to literals directly), and they were checked the same way.
 */
function pinnedLookup(target: Target): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const wantFamily = family === 4 || family === 6 ? family : undefined;
    const all = hostname === target.hostname ? target.addresses.filter((a) => wantFamily === undefined || a.family === wantFamily) : [];
    const first = all[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error('host was not validated');
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) callback(null, all.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, first.address, first.family);
  };
}

/** One GET on a fresh connection (no pooling) to the checked addresses of `target`; resolves at the response head. */
function send(target: Target, signal: AbortSignal): { request: http.ClientRequest; response: Promise<http.IncomingMessage> } {
  const { url, hostname } = target;
  const isHttps = url.protocol === 'https:';
  const options: https.RequestOptions = {
    protocol: url.protocol,
    hostname,
    port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: {
      host: url.host,
      accept: 'image/jpeg, image/png',
      'accept-encoding': 'identity',
      'user-agent': 'CardLens-ImageFetcher/1.0',
    },
    agent: false,
    lookup: pinnedLookup(target),
    signal,
  };
  // SNI and the certificate check use the URL's hostname (never an IP literal, which TLS does not allow as SNI).
  if (isHttps && isIP(hostname) === 0) options.servername = hostname;
  const request = (isHttps ? https : http).request(options);
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.on('error', reject);
  });
  request.end();
  return { request, response };
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ABORT_ERR']);

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Downloads `url` and returns its body. The bytes are NOT validated as an image here; pass them to
 * validateImageBytes. Throws AppError `invalid_image_url` (bad/unsafe URL, redirects, HTTP status, network,
 * timeout) or `image_too_large` (declared or streamed size over maxBytes).
 */
export async function fetchImage(url: string, options: FetchImageOptions): Promise<Uint8Array> {
  const { maxBytes, timeoutMs } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const allowLoopback = options.allowLoopbackForTests === true;
  const lookup = options.lookup ?? defaultLookup;

  let current = parseTarget(url);
  const signal = AbortSignal.timeout(timeoutMs);
  const open = new Set<http.ClientRequest>();

  try {
    for (let redirects = 0; ; redirects += 1) {
      const target = await resolveTarget(current, lookup, allowLoopback, signal);
      const { request, response: pending } = send(target, signal);
      open.add(request);
      const response = await pending;
      const statusCode = response.statusCode ?? 0;

      if (REDIRECT_STATUSES.has(statusCode)) {
        request.destroy();
        const location = headerValue(response.headers.location);
        if (location === undefined) throw invalidUrl(`image URL answered HTTP ${statusCode}`);
        if (redirects >= maxRedirects) throw invalidUrl('too many redirects');
        current = parseTarget(location, target.url);
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        throw invalidUrl(`image URL answered HTTP ${statusCode}`);
      }

      const declared = headerValue(response.headers['content-length']);
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
        throw new AppError('image_too_large', `image is larger than ${describeBytes(maxBytes)}`);
      }

      const chunks: Buffer[] = [];
      let received = 0;
      for await (const chunk of response as AsyncIterable<Buffer>) {
        received += chunk.byteLength;
        if (received > maxBytes) {
          throw new AppError('image_too_large', `image is larger than ${describeBytes(maxBytes)}`);
        }
        chunks.push(chunk);
      }
      if (!response.complete) throw invalidUrl('image URL could not be fetched');
      const bytes = new Uint8Array(received);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return bytes;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (signal.aborted || TIMEOUT_CODES.has(errorCode(error) ?? '')) throw invalidUrl('image URL timed out', error);
    throw invalidUrl('image URL could not be fetched', error);
  } finally {
    // Every connection is private to its request (agent: false); destroying the request closes its socket, so a
    // body abandoned above (too large, redirect, bad status) stops downloading at once.
    for (const request of open) request.destroy();
  }
}
