import { randomBytes } from 'node:crypto';

/**
 * Share links of report pages (GET /r/{token}): the rules the scans and grading services and the gateway share.
 * A token is one letter naming what it opens (`s` a scan, `g` a commercial grade), so the gateway knows which
 * service to ask, then 256 random bits as base64url.
 */

export type ReportKind = 'scan' | 'grade';

const PREFIX: Record<ReportKind, string> = { scan: 's', grade: 'g' };

export const REPORT_TOKEN_PATTERN = /^[sg][A-Za-z0-9_-]{43}$/;
export const REPORT_LINK_DEFAULT_TTL_DAYS = 30;
export const REPORT_LINK_MAX_TTL_DAYS = 365;

export const newReportToken = (kind: ReportKind): string => `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;

/** What a well-formed token opens; undefined for anything else. */
export function reportKindOf(token: string): ReportKind | undefined {
  if (!REPORT_TOKEN_PATTERN.test(token)) return undefined;
  return token.startsWith('s') ? 'scan' : 'grade';
}

/**
 * The lifetime in days of a link asked for: 0 or absent takes the default; otherwise a whole number 1-365, or
 * undefined (the caller answers invalid_body).
 */
export function reportLinkDays(requested: number | undefined, fallback: number): number | undefined {
  if (requested === undefined || requested === 0) return fallback;
  return Number.isInteger(requested) && requested >= 1 && requested <= REPORT_LINK_MAX_TTL_DAYS ? requested : undefined;
}

export const reportLinkExpiry = (from: Date, days: number): Date => new Date(from.getTime() + days * 86_400_000);
