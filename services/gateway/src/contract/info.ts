// The document's top level: info, servers, security, tags and the x- extensions. The Errors tag and x-error-codes
// are built from errorTable (./errors.ts).
import { errorsTagDescription } from './errors';

export const apiDescription = `CardLens is an image-based API for trading cards (Pokemon, sports and other trading card games). Every request
starts from photos of a card, front and back. Two billing tracks exist side by side on one account:

1. **Prepaid scans** (\`POST /v1/scans\`): each scan costs prepaid credits, runs asynchronously and is polled with
   \`GET /v1/scans/{id}\`. Modules: \`identify\`, \`grade\`, \`market\`, \`full\` (\`deep\` is not available through this API).
2. **Commercial subscription grading** (\`POST /v1/grades\`): grading only, synchronous, one monthly grade per
   front/back photo pair; never returns identification, value or market output.

The same capabilities are exposed as MCP tools at \`POST /mcp\`. The service sends no webhooks or callbacks to
clients: poll \`GET /v1/scans/{id}\` for scans; commercial grades are returned directly.

## Authentication
Every endpoint needs an API key except the open ones (\`POST /v1/agents\`, \`GET /v1/pricing\`,
\`GET /v1/credits/packs\`, \`GET /v1/subscriptions/plans\`, plus the operational endpoints \`GET /openapi.json\`,
\`GET /healthz\`, \`GET /readyz\` and the payment provider's \`POST /v1/webhooks/stripe\`). Send the key as
\`Authorization: Bearer <API_KEY>\` or as \`X-Api-Key: <API_KEY>\`. Keys look like \`clk_\` followed by 40 characters of
\`[A-Za-z0-9]\`; they are returned exactly once by \`POST /v1/agents\` and cannot be retrieved again (only the first
12 characters, \`keyPrefix\`, are ever shown afterwards). A missing, invalid, revoked or disabled key gives 401
\`invalid_api_key\`. Never place keys in URLs, browser code or image URLs. A scan or grade is visible only to the
agent that created it. Tiers: \`anonymous\`, \`registered\`, \`paid\`.

Every authenticated success response carries \`X-Credits-Remaining\` (integer, the prepaid credit balance after the
request) and \`X-RateLimit-Policy\` (the rate-limit policy that was applied, \`<name>;limit=<n>;window=<seconds>s\`,
e.g. \`per-key;limit=60;window=60s\`).

## Rate limits
| Policy name | Limit | Applies to |
|---|---|---|
| \`per-key\` | 60 requests per minute per API key | every authenticated request, including authenticated \`POST /mcp\` (each JSON-RPC message of a batch counts) |
| \`open-per-ip\` | 120 requests per minute per client IP | open GET endpoints (\`/v1/pricing\`, \`/v1/credits/packs\`, \`/v1/subscriptions/plans\`, \`/openapi.json\`) and \`POST /mcp\` without a key; the probes \`/healthz\` and \`/readyz\` are not limited |
| \`registration-attempts-per-ip\` | 5 registration attempts per hour per client IP | \`POST /v1/agents\` and the MCP tools \`register_agent\` / \`start_grading_trial\` |
| \`new-agents-per-ip\` | 3 new agents per 24 hours per client IP | successful registrations (same endpoints) |

Excess gives 429 \`rate_limited\` with a \`Retry-After\` header (seconds). \`POST /v1/webhooks/stripe\` is not rate
limited (the payment provider retries on its own schedule).

Every rate-limited response, a 429 included, also carries the IETF \`RateLimit-Policy\` and \`RateLimit\` headers
(draft-ietf-httpapi-ratelimit-headers): for each limit checked, its quota and window, and the requests left and
seconds until the window resets.

## Retrying
A failure a retry can get past says when: \`Retry-After\` (seconds) on 429, on the spec's retryable 500s
(\`pricing_unavailable\`, \`enqueue_failed\`) and on the 503s (\`billing_unavailable\`, \`grader_unavailable\`,
\`grader_busy\`, and \`service_unavailable\`, which is also the answer when a backing service restarts or its
database connection drops). Retry those after the time given, with the same \`Idempotency-Key\` where the
operation takes one; \`internal_error\` is safe to retry but carries no hint; 4xx answers other than 408 and 429
need a changed request.

## HTTP conventions
- \`POST /v1/scans\` answers 202 with \`Location\`, the scan's URL to poll; \`POST /v1/agents\` answers 201 with
  \`Location\`, the URL of \`GET /v1/agents/me\`.
- Responses are compressed with \`gzip\` or \`br\` when \`Accept-Encoding\` allows it (JSON and HTML above 1 KiB).
- Every response carries \`X-Content-Type-Options: nosniff\`, \`Strict-Transport-Security\` (the API is served
  over HTTPS only), \`X-Frame-Options: DENY\`, \`Referrer-Policy: no-referrer\` and a restrictive
  \`Content-Security-Policy\`.
- Every response carries \`X-Request-Id\`, the request's W3C trace id (also in the W3C \`traceresponse\` header and,
  on errors, the problem's \`requestId\` member); quote it when reporting a problem.
- CORS: none. No \`Access-Control-*\` headers are sent and preflight requests are not answered with
  permission, so browsers cannot call the API from other origins. This is deliberate: API keys must never be
  placed in browser code; call the API from a server or an agent.
- Every endpoint in this document is implemented; a path that is not in it answers 404 \`not_found\`, a
  documented path with another method 405 \`method_not_allowed\` with \`Allow\`.

## Trial credits and the global daily trial pool
Registration grants trial credits: 1 for \`anonymous\` agents, 3 when \`contactEmail\` is given (\`registered\`), none
when \`commercialOnly\` is true. All grants draw on one global daily trial pool (server configuration, default
5,000 credits per UTC day, reset at 00:00 UTC). When the pool cannot cover a grant, registration still succeeds
with \`credits\` 0 and a \`note\` explaining how to buy credits; grants are never partial. Live amounts:
\`GET /v1/pricing\`.

## Idempotency
\`Idempotency-Key\` (1-64 characters of \`[A-Za-z0-9_-]\`) is optional on \`POST /v1/scans\` and required on
\`POST /v1/grades\`. Keys are scoped to the agent (two agents may use the same key independently). A replay with
the same key and the same request returns the original result without a new charge; the same key with a
different request gives 409 \`idempotency_key_reused\`. On \`POST /v1/scans\` keys are kept 24 hours, after which
the key is free again; while a request with the key is still in flight, a concurrent duplicate waits for its
outcome (up to 15 seconds) and then answers as a replay, or gives 409 \`idempotency_conflict\` if the first
request is still running (retry shortly with the same key).

## Errors
All errors are \`application/problem+json\` (RFC 9457) with the five required members \`type\`
(\`{base_url}/api-docs/errors#<code>\`), \`title\`, \`status\`, \`detail\` and \`code\`. The complete list of codes is in
the \`Errors\` tag and in the machine-readable \`x-error-codes\` extension of this document. Unknown routes give 404
\`not_found\`; a known route with an unsupported method gives 405 \`method_not_allowed\`. Unexpected server failures
(500) are safe to retry.

## Versioning and deprecation
All API endpoints are under \`/v1\`. Module costs, pack prices and trial amounts are server configuration; read live
values from \`GET /v1/pricing\`. Within \`/v1\` only additive changes are made: new endpoints, new optional request
fields, new response fields, new error codes and new enum values in responses. Clients must ignore unknown
fields. Removing or incompatibly changing anything in \`/v1\` is announced at least 6 months before it happens;
during that period affected responses carry a \`Deprecation\` header (RFC 9745) and a \`Sunset\` header (RFC 8594)
with the removal date. Subscription price changes are announced at least 14 days ahead; prepaid pack prices may
change at any time.

## Data handling and attribution of results
Grading-only requests (\`POST /v1/grades\`) use temporary image processing; temporary files are scheduled for
removal after processing (immediate deletion everywhere is not guaranteed). Retained for them: account, request
timestamps, usage and billing records, image hashes and numeric grading receipts. Prepaid scans store the
submitted images and saved results. Grades are AI estimates, not certified grades: commercial use requires
attribution of CardLens with a link wherever results appear and presentation of grades as AI estimates. Agents
must never collect payment-card details; owners enter them only on the hosted checkout.

## Catalog data attribution
Card identification uses catalog data from the **TCGdex cards database** (https://github.com/tcgdex/cards-database,
Copyright (c) 2021 TCGdex, MIT License) and **JunkWaxData CardLists** (https://github.com/evanhantman/CardLists,
Copyright (c) 2025 JunkWaxData, MIT License). Both are used under the MIT License: permission is hereby granted,
free of charge, to deal in them without restriction, provided the copyright notice and permission notice are
included; they are provided "as is", without warranty of any kind. Card art belongs to its publishers.
`;
export const tags = [
  { name: 'Agents', description: 'Self-service agent registration and identity.' },
  { name: 'Scans', description: 'Prepaid, asynchronous scans (identification, grading, value, market).' },
  { name: 'Reports', description: 'Share links and the report pages they open (no API key; the link is the permission).' },
  { name: 'Pricing and credits', description: 'Module costs, credit packs and purchase of prepaid credits.' },
  { name: 'Subscriptions', description: `Monthly grading-only plans. Plan keys: \`grading_5000\` (5,000 grades per month, USD 250.00) and \`grading_10000\`
(10,000 grades per month, USD 449.00). The key of the 10,000-grade plan, \`grading_10000\`, is our choice (the
specification names only \`grading_5000\`). A new account gets a 7-day unlimited grading trial after the owner
completes the hosted checkout with a payment method; the plan is charged automatically when the trial ends.
A returning subscriber pays immediately and gets no second trial. One trial per person as well: an account
whose owner (normalised contact email) or card already had a trial on another account pays at once too, and
\`trialRefusal\` (a \`trial_already_used\` problem record) on the checkout answer or subscription view says why.
Unused grades expire at period end (no rollover).

Subscription \`status\` values:
- \`none\`: never subscribed; no grading access.
- \`checkout_pending\`: a checkout link was created and not yet completed; no access and no charge (the trial has
  not begun). Goes back to the previous status when the unpaid session expires (about 24 h).
- \`trialing\`: 7-day unlimited grading trial (\`unlimitedGrading\` true, \`gradesRemaining\` null).
- \`active\`: paid period with the monthly allowance.
- \`past_due\`: the trial deadline or a renewal passed without a successful payment; grading access is stopped
  until payment succeeds (a delayed payment confirmation never extends a trial). This also covers a renewal
  whose payment has not been confirmed yet: Stripe charges about an hour after a period (or the paid plan after
  the trial) starts, and grading resumes the moment the payment is confirmed.
- \`cancelled\`: the subscription ended at the trial or period deadline after a cancellation.
- \`expired\`: the subscription ended because payment never succeeded.

Grading access exists only in \`trialing\` (until \`trialEndsAtUtc\`) and \`active\` (while \`gradesRemaining\` > 0).
A scheduled cancellation keeps the status (\`trialing\` or \`active\`) with \`cancelAtPeriodEnd\` true.
` },
  { name: 'Commercial grading', description: 'Synchronous grading-only requests charged to the trial or the subscription allowance.' },
  { name: 'Payment webhooks', description: 'Payment confirmations from the hosted checkout provider. For the payment provider only.' },
  { name: 'Checkout pages', description: `HTML pages for the **human owner** who pays, not for agents: where hosted checkout returns the owner after
paying or cancelling (credit packs: \`/checkout/success\`; subscriptions: \`/checkout/subscribed\`), and, on a
server without a Stripe key (the embedded default and tests), the local sandbox checkout page and sandbox
billing portal that stand in for Stripe Checkout and the Stripe billing portal. In the sandbox no money moves
and no real card details are asked for: a subscription checkout and the portal offer two sandbox test cards
(as Stripe's test cards, \`4242424242424242\` pays and \`4000000000000341\` attaches but every charge declines);
paying sends a signed \`checkout.session.completed\` event to \`POST /v1/webhooks/stripe\`, exactly as Stripe
would. Open, rate limited per client IP like the price lists.
` },
  { name: 'MCP', description: 'Model Context Protocol server exposing the API as tools.' },
  { name: 'Operations', description: 'Machine-readable description and health probes.' },
  { name: 'Errors', description: errorsTagDescription() }];

export const info = {
  title: 'CardLens API',
  version: '1.5.0',
  summary: 'Trading-card grading, identification and valuation from photos, for agents and integrations.',
  description: apiDescription,
};

export const servers = [{ url: '/', description: 'The host that serves this document.' }];

/** The default: an API key as a bearer token or in X-Api-Key. */
export const defaultSecurity = [{ bearerAuth: [] }, { apiKeyAuth: [] }];

export const rateLimitPolicies = [
  { name: 'per-key', limit: 60, windowSeconds: 60, key: 'api key', appliesTo: 'every authenticated request' },
  { name: 'open-per-ip', limit: 120, windowSeconds: 60, key: 'client IP', appliesTo: 'open GET endpoints and POST /mcp without a key' },
  { name: 'registration-attempts-per-ip', limit: 5, windowSeconds: 3600, key: 'client IP', appliesTo: 'registration attempts (POST /v1/agents, MCP register_agent and start_grading_trial)' },
  { name: 'new-agents-per-ip', limit: 3, windowSeconds: 86400, key: 'client IP', appliesTo: 'successful registrations' },
];
