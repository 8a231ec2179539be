import { errorTable, type ErrorCode } from '@cardlens/errors';

/**
 * What each error code of `errorTable` (@cardlens/errors, the one source of codes and statuses) means to a client.
 * Typed by ErrorCode so that a new code cannot ship without a documented condition. `condition` is the Errors tag's
 * table cell; `listed` (default: condition) is the plainer text of `x-error-codes`.
 */
export const errorDescriptions = {
  missing_front_image: { condition: 'front image absent' },
  missing_back_image: { condition: 'back image absent on `POST /v1/grades` (commercial grading needs both photos)', listed: 'back image absent on POST /v1/grades (commercial grading needs both photos)' },
  invalid_image_url: { condition: 'image URL not a public absolute http(s) URL' },
  invalid_modules: { condition: 'unknown module, or `full` combined with others', listed: 'unknown module or `full` combined with others' },
  deep_unsupported: { condition: '`deep` requested' },
  image_too_large: { condition: 'image over 15 MB' },
  invalid_image: { condition: 'image not valid JPEG or PNG, or too small to grade (short side under 200 px; 1000+ recommended)' },
  invalid_idempotency_key: { condition: 'key not 1-64 chars of `[A-Za-z0-9_-]`', listed: 'key not 1-64 chars of [A-Za-z0-9_-]' },
  missing_idempotency_key: { condition: '`Idempotency-Key` absent on `POST /v1/grades`', listed: 'Idempotency-Key absent on POST /v1/grades' },
  invalid_body: { condition: 'malformed request body (or an unverifiable payment webhook)' },
  invalid_pack: { condition: 'unknown or missing pack key; detail lists valid keys' },
  invalid_plan: { condition: 'unknown or missing plan key; detail lists valid plan keys' },
  contact_email_required: { condition: 'subscription checkout on an account without a contact email' },
  invalid_api_key: { condition: 'missing, invalid, revoked or disabled key' },
  insufficient_credits: { condition: 'balance too low; adds `creditsRemaining` (integer) and `purchaseUrl` (`/v1/credits/packs`)', listed: 'balance too low; adds creditsRemaining (integer) and purchaseUrl (string, /v1/credits/packs)' },
  spt_payment_incomplete: { condition: 'token charge not completed; no credits granted' },
  subscription_required: { condition: 'commercial grade without trial or subscription' },
  grading_allowance_exhausted: { condition: 'monthly allowance used up' },
  subscription_grading_only: { condition: 'non-grade module on the subscription grading endpoint' },
  not_found: { condition: 'unknown route' },
  scan_not_found: { condition: 'scan absent, owned by another agent, or (overlay) not available', listed: 'scan absent or owned by another agent (overlay also when not available)' },
  grade_not_found: { condition: 'commercial grade absent or owned by another agent' },
  subscription_not_found: { condition: 'no renewable subscription (cancel, portal, change-plan)' },
  checkout_not_found: { condition: 'no checkout session with this id (checkout return and sandbox checkout pages)' },
  method_not_allowed: { condition: 'known route, unsupported method' },
  idempotency_conflict: { condition: 'the key belongs to a request that failed mid-flight and was refunded (scans), or whose original request is still in flight (grades; scans after a 15 s wait)', listed: 'the key belongs to a request that failed mid-flight and was refunded (scans) or is still in flight (grades; scans after a 15 s wait)' },
  idempotency_key_reused: { condition: 'same key, different request' },
  subscription_exists: { condition: 'a subscription on that plan already exists' },
  checkout_pending: { condition: 'an unfinished checkout for another plan exists, or the checkout is not completed yet' },
  trial_already_used: { condition: "never an error response: embedded as `trialRefusal` in a checkout answer or subscription view when the owner's email or card already had a trial on another account (one trial per person; the plan is charged at once)", listed: "never an error response: embedded as trialRefusal in a checkout answer or subscription view when the owner's email or card already had a trial on another account (one trial per person; the plan is charged at once)" },
  plan_change_conflict: { condition: 'plan change not possible in the current subscription state' },
  grade_refunded: { condition: 'the key belongs to a refunded commercial grade; use a new key' },
  request_timeout: { condition: 'the request (headers within 10 s, the whole request within 60 s) was not received in time; the connection is closed', listed: 'the request (headers within 10 s, the whole request within 60 s) was not received in time' },
  body_too_large: { condition: "request body over the gateway's size limit (refused by its declared `Content-Length` before it is read)", listed: "request body over the gateway's size limit (refused by its declared Content-Length before it is read)" },
  unsupported_media_type: { condition: 'request content type not accepted by the endpoint' },
  headers_too_large: { condition: 'request headers over 16 KB' },
  card_not_found: { condition: 'the photo decodes but no trading card could be found in it (nothing is charged on POST /v1/grades)', listed: 'the photo decodes but no trading card could be found in it' },
  image_too_complex: { condition: "the photo could not be analysed within the engine's time or memory budget; not retried (nothing is charged on POST /v1/grades; a scan fails with this reason)", listed: "the photo could not be analysed within the engine's time or memory budget" },
  nothing_assessable: { condition: 'POST /v1/grades: a card was found, but none of centering, corners, edges or surface could be assessed on either side (too few pixels per mm, a slab over the card, no border found); the grade was refunded and `detail` gives the reasons. A prepaid scan instead completes with `grading.grade` null and its grading part refunded (`refund`)', listed: 'a card was found but nothing on it could be assessed from the photos; the grade was refunded' },
  rate_limited: { condition: 'rate limit exceeded' },
  grade_in_flight: { condition: 'a grade is already in flight for the account' },
  pricing_unavailable: { condition: 'price configuration unavailable; safe to retry after `Retry-After` (5 s)', listed: 'price configuration unavailable; safe to retry after Retry-After (5 s)' },
  enqueue_failed: { condition: 'scan could not be queued; credits refunded; safe to retry after `Retry-After` (5 s)', listed: 'scan could not be queued; credits refunded; safe to retry after Retry-After (5 s)' },
  internal_error: { condition: 'unexpected server failure; safe to retry' },
  spt_not_enabled: { condition: 'token sent but the rail is disabled' },
  stripe_error: { condition: 'payment provider failure; no credits granted' },
  spt_stripe_error: { condition: 'payment provider failure on the token rail; no credits granted' },
  billing_unavailable: { condition: 'billing or payment provider temporarily unavailable (on `POST /v1/scans` any charge is refunded automatically; with `Retry-After`)', listed: 'billing or payment provider temporarily unavailable (on POST /v1/scans any charge is refunded automatically; with Retry-After)' },
  grader_unavailable: { condition: 'grading model unavailable; allowance refunded when reserved (with `Retry-After`)', listed: 'grading model unavailable; allowance refunded when reserved (with Retry-After)' },
  grader_busy: { condition: 'grader at capacity; allowance refunded when reserved (with `Retry-After`)', listed: 'grader at capacity; allowance refunded when reserved (with Retry-After)' },
  service_unavailable: { condition: 'a backing service is temporarily unavailable (unreachable, restarting, or its database connection dropped), or the gateway is still starting (any path; with `Retry-After`)', listed: 'a backing service is temporarily unavailable (unreachable, restarting, or its database connection dropped), or the gateway is still starting (any path; with Retry-After)' },
  report_not_found: { condition: 'no scan report with this token (unknown, revoked or expired link)' },
} satisfies Record<ErrorCode, { condition: string; listed?: string }>;

const codes = Object.keys(errorTable) as ErrorCode[];

/** The Errors tag: every code with its HTTP status and condition, in errorTable order. */
export function errorsTagDescription(): string {
  const rows = codes.map((code) => `| ${errorTable[code].httpStatus} | \`${code}\` | ${errorDescriptions[code].condition} |`);
  return [
    'Every error response is `application/problem+json` with `type` = `{base_url}/api-docs/errors#<code>`.',
    '',
    '| Status | Code | Condition |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** The machine-readable `x-error-codes` extension. */
export function xErrorCodes(): Array<{ code: ErrorCode; status: number; description: string }> {
  return codes.map((code) => {
    const entry: { condition: string; listed?: string } = errorDescriptions[code];
    return { code, status: errorTable[code].httpStatus, description: entry.listed ?? entry.condition };
  });
}
