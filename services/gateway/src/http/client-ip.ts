import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * The caller's address for per-IP limits, normalised so ::ffff:1.2.3.4 and 1.2.3.4 count as one client.
 * req.ip honours the configured number of trusted proxy hops (express "trust proxy"), so a client cannot
 * pick its own address with X-Forwarded-For unless a trusted proxy put it there.
 */
export function clientIp(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!ipaddr.isValid(raw)) return raw;
  const parsed = ipaddr.parse(raw);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  }
  return parsed.toString();
}
