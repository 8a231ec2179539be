// Every operation of the REST contract: method, path, parameters, bodies and responses, with the zod schemas of
// ./schemas.ts. ./document.ts turns this list into the OpenAPI document; routes validate requests with the same
// schemas (./validate.ts). Problem responses name error codes only: their status and schema come from errorTable.
import { z } from 'zod';
import { REPORT_TOKEN_PATTERN } from '@cardlens/contracts';
import type { ErrorCode } from '@cardlens/errors';
import {
  problem,
  SandboxCardUpdateForm,
  ProtectedResourceMetadata, ReportLink, ShareReportRequest,
  AgentIdentity, AgentRegistrationRequest, AgentRegistrationResponse, CancelResponse, CheckoutResponse, CreditPacksResponse, GradeCompleted, GradeCreateJson, GradeCreateMultipart, GradeResult, IdempotencyKey, InsufficientCreditsProblem, JsonRpcRequest, JsonRpcResponse, PlanChangeScheduledResponse, PlanRequest, PlansResponse, PortalLinkResponse, PricingResponse, ProblemCheckoutNotFound, ProblemInvalidBody, ProblemNotFound, ProblemUnsupportedMediaType, PurchaseRequest, PurchaseResponse, ReadinessChecks, SandboxCardForm, ScanAccepted, ScanCreateJson, ScanCreateMultipart, ScanResult, SubscriptionBalance,
} from './schemas';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: z.ZodType;
}
export interface HeaderSpec {
  description?: string;
  required?: boolean;
  schema: z.ZodType;
}
export interface ContentSpec {
  schema: z.ZodType;
  example?: unknown;
}
/** A success or other non-problem response. */
export interface PlainResponse {
  status: string;
  description: string;
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, ContentSpec>;
}
/** A problem+json response: the codes it may carry (one HTTP status, from errorTable). */
export interface ProblemResponse {
  codes: readonly [ErrorCode, ...ErrorCode[]];
  description: string;
  schema: z.ZodType;
  example?: unknown;
  headers?: Record<string, HeaderSpec>;
  /** Other representations of the same error (e.g. an HTML page for browsers). */
  otherContent?: Record<string, ContentSpec>;
}
export type ResponseSpec = PlainResponse | ProblemResponse;
export type SecurityRequirement = Record<string, string[]>;
export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  /** Absent: the document's default (an API key). */
  security?: SecurityRequirement[];
  parameters?: ParameterSpec[];
  requestBody?: { required: boolean; description?: string; content: Record<string, ContentSpec> };
  responses: ResponseSpec[];
}

export const isProblemResponse = (response: ResponseSpec): response is ProblemResponse => 'codes' in response;

/** A problem response for these codes; `schema` defaults to a Problem narrowed to them (plus `extras`). */
export function problems<const C extends ErrorCode>(
  description: string,
  codes: readonly [C, ...C[]],
  options: {
    schema?: z.ZodType;
    extras?: z.ZodRawShape;
    example?: unknown;
    headers?: Record<string, HeaderSpec>;
    otherContent?: Record<string, ContentSpec>;
  } = {},
): ProblemResponse {
  const { schema, extras, ...rest } = options;
  return { codes, description, schema: schema ?? problem(codes, extras), ...rest };
}

/** Open operations (no key). */
const OPEN: SecurityRequirement[] = [];
/** A key is optional at the HTTP level (POST /mcp). */
const OPTIONAL_KEY: SecurityRequirement[] = [{}, { bearerAuth: [] }, { apiKeyAuth: [] }];

export const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'clk_ + 40 base62 characters',
    description: '`Authorization: Bearer <API_KEY>`. Keys come from `POST /v1/agents`.',
  },
  apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: '`X-Api-Key: <API_KEY>`; equivalent to the bearer form.' },
} as const;

/** Shared parameters (#/components/parameters). */
export const parameters = {
  ReportToken: { name: 'token', in: 'path', required: true, description: "The share link's token: `s` (a scan's report) or `g` (a commercial grade's), then 43 characters of base64url.", schema: z.string().regex(REPORT_TOKEN_PATTERN) },
  SandboxSessionId: { name: 'sessionId', in: 'path', required: true, description: 'The sandbox checkout session id (`cs_sandbox_...`).', schema: z.string().regex(/^cs_[A-Za-z0-9_]{1,250}$/) },
  SandboxPortalSessionId: { name: 'portalSessionId', in: 'path', required: true, description: 'The sandbox billing portal session id (`bps_sandbox_...`).', schema: z.string().regex(/^bps_[A-Za-z0-9_]{1,250}$/) },
  ScanId: { name: 'id', in: 'path', required: true, description: 'Scan id (integer).', schema: z.int().min(1) },
  GradeId: { name: 'id', in: 'path', required: true, description: 'Commercial grade id, the integer `<id>` of `links.self` `/v1/grades/<id>` (the number after `grade_` in `gradeId`).', schema: z.int().min(1) },
  IdempotencyKeyOptional: { name: 'Idempotency-Key', in: 'header', required: false, description: 'Optional. Replays with the same key return the original acceptance without a new charge.', schema: IdempotencyKey },
  IdempotencyKeyRequired: { name: 'Idempotency-Key', in: 'header', required: true, description: 'Required (400 `missing_idempotency_key` when absent, `invalid_idempotency_key` when malformed).', schema: IdempotencyKey },
  // OpenAPI tools ignore an `Accept` parameter, but /mcp refuses a request without both media types: documented
  // here as strictly as the MCP transport checks it, and checked by this schema in routes/mcp.ts.
  McpAccept: {
    name: 'Accept',
    in: 'header',
    required: true,
    description: 'Must list both `application/json` and `text/event-stream`; otherwise 406 (a JSON-RPC error object).',
    schema: z.string().regex(/application\/json.*text\/event-stream|text\/event-stream.*application\/json/).meta({ examples: ['application/json, text/event-stream'] }),
  },
  StripeSignature: { name: 'Stripe-Signature', in: 'header', required: true, description: "The payment provider's signature of the raw body (`t=<timestamp>,v1=<signature>`).", schema: z.string() },
} satisfies Record<string, ParameterSpec>;

/** Shared response headers (#/components/headers). */
export const headers = {
  XCreditsRemaining: { description: 'Prepaid credit balance of the calling agent after this request. A request that charges or refunds reports the balance after its effect, and a read (GET) that follows it reports that too. A read otherwise reports the balance the gateway last heard of: a change made elsewhere (a purchase confirmed by the payment provider, the refund of a failed scan) shows within about a second, and never later than 10 seconds.', required: true, schema: z.int().min(0) },
  XRateLimitPolicy: { description: 'The applied rate-limit policy, `<name>;limit=<n>;window=<seconds>s` (names in `x-rate-limit-policies`).', required: false, schema: z.string().meta({ examples: ['per-key;limit=60;window=60s'] }) },
  RateLimitPolicy: { description: 'The limits this request was checked against, as in the IETF draft draft-ietf-httpapi-ratelimit-headers: a list of `"<name>";q=<quota>;w=<window seconds>` (names as in `x-rate-limit-policies`), e.g. `"per-key";q=60;w=60`. Registration lists both of its limits.', required: false, schema: z.string().meta({ examples: ['"per-key";q=60;w=60'] }) },
  RateLimit: { description: 'What is left of each limit in `RateLimit-Policy`, same order: `"<name>";r=<requests left>;t=<seconds until the window resets>`, e.g. `"per-key";r=59;t=60`. `r=0` on a 429.', required: false, schema: z.string().meta({ examples: ['"per-key";r=59;t=60'] }) },
  ScanLocation: { description: 'Absolute URL of the scan to poll (`GET /v1/scans/{id}`, the same as `links.self`).', required: true, schema: z.url().meta({ examples: ['https://api.cardlens.example/v1/scans/1234'] }) },
  AgentLocation: { description: 'Absolute URL of the new agent (`GET /v1/agents/me`, with the returned key).', required: true, schema: z.url() },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: z.int().min(0) },
  Deprecation: { description: 'Present on responses of deprecated operations (RFC 9745), e.g. `@1798761600`.', required: false, schema: z.string() },
  Sunset: { description: 'Removal date of a deprecated operation (RFC 8594), an HTTP-date at least 6 months after the announcement.', required: false, schema: z.string() },
} satisfies Record<string, HeaderSpec>;

/** What every authenticated success carries: the balance after the request and the rate-limit policy applied. */
const AUTHENTICATED_SUCCESS = {
  'X-Credits-Remaining': headers.XCreditsRemaining,
  'X-RateLimit-Policy': headers.XRateLimitPolicy,
  'RateLimit-Policy': headers.RateLimitPolicy,
  RateLimit: headers.RateLimit,
};

/** Shared responses (#/components/responses). */
export const responses = {
  Unauthorized: problems('`invalid_api_key`: the key is missing, invalid, revoked or disabled.', ["invalid_api_key"], { example: { type: 'https://api.cardlens.example/api-docs/errors#invalid_api_key', title: 'Invalid API key', status: 401, detail: "Send a valid key as 'Authorization: Bearer <key>' or 'X-Api-Key'.", code: 'invalid_api_key' }, headers: { "WWW-Authenticate": { description: 'The scheme to authenticate with, `Bearer realm="CardLens"` (the API key as a Bearer token; `X-Api-Key` is accepted too), and where the protected-resource metadata is (RFC 9728): `resource_metadata="{base}/.well-known/oauth-protected-resource"`, or `.../oauth-protected-resource/mcp` for /mcp.', schema: z.string().regex(/^Bearer realm="CardLens", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource(\/mcp)?"$/) } } }),
  RateLimited: problems('`rate_limited`: rate limit exceeded. Wait `Retry-After` seconds.', ["rate_limited"], { headers: { "Retry-After": headers.RetryAfter, "X-RateLimit-Policy": headers.XRateLimitPolicy, "RateLimit-Policy": headers.RateLimitPolicy, "RateLimit": headers.RateLimit } }),
  BodyTooLarge: problems('`body_too_large`: the request body exceeds the gateway limit (larger than the images and fields this endpoint accepts).', ["body_too_large"]),
  UnsupportedMediaType: problems('`unsupported_media_type`: the request content type is not one this endpoint accepts.', ["unsupported_media_type"], { schema: ProblemUnsupportedMediaType }),
  ScanNotFound: problems('`scan_not_found`: no such scan for this agent.', ["scan_not_found"]),
  ReportNotFound: problems('`report_not_found`: unknown, expired or revoked share link.', ["report_not_found"]),
  GradeNotFound: problems('`grade_not_found`: no such grade for this agent.', ["grade_not_found"]),
  SubscriptionNotFound: problems('`subscription_not_found`: the account has no renewable subscription.', ["subscription_not_found"]),
  PricingUnavailable: problems('`pricing_unavailable` (price configuration unavailable) or `internal_error`. Safe to retry.', ["pricing_unavailable", "internal_error"]),
  InternalError: problems('`internal_error`: unexpected server failure. Safe to retry.', ["internal_error"]),
  ServiceUnavailable: problems('`service_unavailable`: a backing service is temporarily unavailable. Retry later.', ["service_unavailable"]),
  BillingUnavailable: problems('`billing_unavailable` (billing or the payment provider is temporarily unavailable) or `service_unavailable`. Retry later.', ["billing_unavailable", "service_unavailable"]),
} satisfies Record<string, ResponseSpec>;

/** The answers of POST .../report-link (a scan's or a grade's), with the owner's not-found. */
const shareLinkResponses = (notFound: ResponseSpec): ResponseSpec[] => [
  { status: "201", description: 'The new link (also in `Location`).', headers: { "Location": { description: 'The report page URL.', schema: z.url() }, ...AUTHENTICATED_SUCCESS }, content: { "application/json": { schema: ReportLink } } },
  problems('`invalid_body`: the body is not empty and not `{ "expiresInDays": 1-365 }`.', ["invalid_body"]),
  responses.Unauthorized,
  notFound,
  responses.BodyTooLarge,
  responses.UnsupportedMediaType,
  responses.RateLimited,
  responses.InternalError,
  responses.ServiceUnavailable,
];

/** The answers of DELETE .../report-link. */
const revokeLinkResponses = (notFound: ResponseSpec): ResponseSpec[] => [
  { status: "204", description: 'No live link remains.', headers: AUTHENTICATED_SUCCESS },
  responses.Unauthorized,
  notFound,
  responses.RateLimited,
  responses.InternalError,
  responses.ServiceUnavailable,
];

export const operations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/agents',
    operationId: 'registerAgent',
    tags: ['Agents'],
    summary: 'Register an agent (open)',
    description: `Self-service registration with no human signup. Returns the API key exactly once.
- With \`contactEmail\` the tier is \`registered\` and 3 trial credits are granted; otherwise the tier is
  \`anonymous\` and 1 credit is granted.
- With \`commercialOnly\` true no prepaid trial credits are granted; a grading trial starts only after the
  owner completes the subscription checkout.
- When the global daily trial pool is exhausted, registration still succeeds with \`credits\` 0 and a \`note\`.

Rate limits: 5 attempts per hour and 3 new agents per 24 hours per client IP.
`,
    security: OPEN,
    requestBody: { required: true, content: { "application/json": { schema: AgentRegistrationRequest, example: { name: 'Card sorter bot', contactEmail: 'owner@example.com', operatorUrl: 'https://example.com' } } } },
    responses: [
      { status: "201", description: 'Agent registered.', headers: { "Location": headers.AgentLocation, "RateLimit-Policy": headers.RateLimitPolicy, "RateLimit": headers.RateLimit }, content: { "application/json": { schema: AgentRegistrationResponse, example: { agentId: 42, apiKey: 'clk_AbCdEfGh0123456789AbCdEfGh0123456789AbCd', tier: 'registered', credits: 3, docsUrl: 'https://api.cardlens.example/docs', message: 'Store the API key now; it is shown only once.' } } } },
      problems('Invalid registration request.', ["invalid_body"], { schema: ProblemInvalidBody }),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/agents/me',
    operationId: 'getAgentMe',
    tags: ['Agents'],
    summary: "The calling agent's identity and balances",
    description: `Free (no credits). \`balances.gradingSubscription\` is the \`GET /v1/subscriptions/me\` object without
\`prepaidCredits\`. The gateway always includes \`balances\`.
`,
    responses: [
      { status: "200", description: 'Agent identity.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: AgentIdentity } } },
      responses.Unauthorized,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/scans',
    operationId: 'createScan',
    tags: ['Scans'],
    summary: 'Start a prepaid scan',
    description: `Starts an asynchronous scan and charges prepaid credits (debit-first: credits are charged on acceptance and
refunded automatically if the scan cannot be queued, 500 \`enqueue_failed\`). Poll \`GET /v1/scans/{id}\`.

Default module costs (live values: \`GET /v1/pricing\`): \`identify\` 1, \`grade\` 1, \`market\` 1, \`full\` 2,
\`deep\` 3 (not available through this API; rejected with \`deep_unsupported\`). Combined modules sum their costs
(identify plus grade costs 2); \`full\` cannot be combined with any other module.

**Back image: optional.** The schemas of the original specification mark it required while one line calls
it optional; CardLens accepts a scan without a back image. Identification, value and market work from the
front alone. Grading then assesses the front only: \`grading.notAssessed\` lists \`back_centering\`,
\`back_corners\`, \`back_edges\` and \`back_surface\`, \`grading.centering.back\` and \`grading.frontBack.back\` are
null, the overall grade and sub-grades are computed from the front, and \`grading.subGradeConfidence\` is
lowered. The price is the same.

If no card can be found in the back photo, the scan goes on from the front alone, as without a back image
(grading lists the back aspects in \`notAssessed\`). If no card can be found in the front photo, the scan
ends \`failed\` (see \`GET /v1/scans/{id}\`) and stays charged: the photos were analysed.

**Photos that cannot be analysed are refunded.** A photo the engine cannot analyse at all, because it needs
more than the time or memory an analysis may use or because it cannot be decoded past the upload checks, ends
the scan \`failed\` at once (it is never retried) and its credits are refunded in full; \`error\` says so. The
same photo sent again within an hour fails at once, without the engine. While the engine is busy, scans
wait their turn in a fair order: the account with the fewest analyses running goes next, then the scan queued
earliest, so one account's burst does not hold back everyone else's scans.

A replayed \`Idempotency-Key\` (same key, same request) returns 202 with the original scan id, \`status\`
\`queued\` and the original \`creditsCharged\`, with no new charge (\`creditsRemaining\` is the current balance).
Keys are scoped to the agent and kept 24 hours. A duplicate sent while the first request with the key is
still in flight waits for its outcome (up to 15 seconds) and then replays it; if the first request is still
running after that, the duplicate gets 409 \`idempotency_conflict\`: retry shortly with the same key.

Request size: each image, uploaded or fetched from its URL, may be at most 15 MB; a larger uploaded file
gives 400 \`image_too_large\` (not 413), and unexpected multipart parts or fields (anything but the files
\`front\`, optional \`back\` and the field \`modules\`, or more than one of each) give 400 \`invalid_body\`. 413
\`body_too_large\` applies to JSON bodies over 64 KB.

If billing does not answer while the scan is being charged, the answer is 503 \`billing_unavailable\`:
retry later (with the same \`Idempotency-Key\` if you sent one); any charge made for the failed request is
refunded automatically by the settlement job, within minutes.
`,
    parameters: [parameters.IdempotencyKeyOptional],
    requestBody: { required: true, content: { "application/json": { schema: ScanCreateJson, example: { frontImageUrl: 'https://images.example.com/cards/front.jpg', backImageUrl: 'https://images.example.com/cards/back.jpg', modules: ['identify', 'grade'] } }, "multipart/form-data": { schema: ScanCreateMultipart } } },
    responses: [
      { status: "202", description: 'Scan accepted and queued (or the original acceptance, on an idempotent replay).', headers: { "Location": headers.ScanLocation, ...AUTHENTICATED_SUCCESS }, content: { "application/json": { schema: ScanAccepted, example: { id: 123, status: 'queued', modules: ['identify', 'grade'], creditsCharged: 2, creditsRemaining: 1, links: { self: '/v1/scans/123' } } } } },
      problems(`Invalid scan request. \`image_too_large\`: an image (an uploaded file or a fetched URL) over 15 MB.
\`invalid_body\`: a malformed body, or multipart parts or fields other than \`front\`, optional \`back\` and
\`modules\` (or more than one of each).
`, ["missing_front_image", "invalid_image_url", "invalid_modules", "deep_unsupported", "image_too_large", "invalid_image", "invalid_idempotency_key", "invalid_body"]),
      responses.Unauthorized,
      problems('Prepaid balance too low for the requested modules. No scan is created.', ["insufficient_credits"], { schema: InsufficientCreditsProblem, example: { type: 'https://api.cardlens.example/api-docs/errors#insufficient_credits', title: 'Insufficient credits', status: 402, detail: 'This scan costs 2 credits; 1 remaining.', code: 'insufficient_credits', creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' } }),
      problems(`Idempotency conflict: \`idempotency_conflict\` when the key belongs to a request that failed mid-flight and
was refunded (retry with a new key), or to a request still in flight after this one waited 15 seconds
for it (retry shortly with the same key); \`idempotency_key_reused\` when the key was used for a different
request.
`, ["idempotency_conflict", "idempotency_key_reused"]),
      problems('`body_too_large`: a JSON body over 64 KB. (An uploaded image over 15 MB is 400 `image_too_large`.)', ["body_too_large"]),
      responses.UnsupportedMediaType,
      responses.RateLimited,
      problems(`\`pricing_unavailable\` (no charge), \`enqueue_failed\` (credits refunded) or \`internal_error\`. Safe to retry.
`, ["pricing_unavailable", "enqueue_failed", "internal_error"]),
      problems(`\`billing_unavailable\`: billing did not answer while the scan was being charged; no scan was queued and any
charge is refunded automatically by the settlement job (within minutes). \`service_unavailable\`: a backing
service is temporarily unavailable. Retry later.
`, ["billing_unavailable", "service_unavailable"]),
    ],
  },
  {
    method: 'get',
    path: '/v1/scans/{id}',
    operationId: 'getScan',
    tags: ['Scans'],
    summary: 'Poll a scan',
    description: `Free (no credits). Poll every few seconds; processing typically takes 30-120 seconds. The result is
discriminated by \`status\`. Transitions: \`queued\` -> \`processing\` -> \`completed\` or \`failed\` (a scan can also
go from \`queued\` to \`failed\`); \`completed\` and \`failed\` are final. On \`completed\` only the sections for the modules that were requested and paid for
are present: \`identification\` always; \`grading\` for \`grade\` or \`full\`; \`value\` and \`market\` for \`market\` or
\`full\`. A failed scan is a 200 with \`status\` \`failed\` and an \`error\` saying why (credits are refunded
automatically when the failure was not the photo's content: a photo that could not be analysed at all, or a scan
that never started; \`error\` says so; no card found in the front photo stays charged). Only scans created by the caller's agent can be fetched; any other id (including a non-numeric
one) gives 404 \`scan_not_found\`.

While a scan is in flight, \`progressPercent\` and \`statusMessage\` say which stage it is in:

| \`status\` | \`progressPercent\` | \`statusMessage\` |
|---|---|---|
| \`queued\` | 0 | Queued for analysis |
| \`processing\` | 10 | Analysing the photos |
| \`processing\` | 60 | Identifying the card |
| \`processing\` | 80 | Valuing the card from recent sales (modules \`market\` and \`full\` only) |
| \`processing\` | 95 | Saving the result |

Stages are reported as they start; a scan whose processing is interrupted and retried may show an earlier
stage again. If no card can be found in the front photo, the scan ends \`failed\` with an \`error\` that says
how to retake the photo (the card flat, filling most of the frame, on a plain background that contrasts
with its border) and to submit a new scan. If the back photo shows no card, the scan goes on from the front
alone: grading then lists \`back_centering\`, \`back_corners\`, \`back_edges\` and \`back_surface\` in
\`notAssessed\`, as for a scan without a back image.
`,
    parameters: [parameters.ScanId],
    responses: [
      { status: "200", description: 'The scan, by status.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: ScanResult, example: { id: 123, status: 'completed', modules: ['identify', 'grade'], completedAt: '2026-11-02T10:15:30Z', identification: { name: 'Charizard', subject: 'Charizard', category: 'Pokemon', year: '1999', set: 'Base Set', number: '4', parallel: 'Base', printRun: '', confidence: 0.93, inCatalog: true, candidates: [{ name: 'Charizard', set: 'Base Set 2', number: '4', year: '2000', confidence: 0.04 }] }, grading: { grade: 7.5, predictedGrade: 7, subGrades: { centering: 7, corners: 8, edges: 7.5, surface: 8 }, summary: 'Light corner wear, slightly off-centre left to right.', justification: 'Front centering 56/44 left to right; minor corner wear on the top-left corner.', centering: { front: { leftRight: '56/44', topBottom: '52/48', left: 56, right: 44, top: 52, bottom: 48 }, back: { leftRight: '60/40', topBottom: '50/50', left: 60, right: 40, top: 50, bottom: 50 } }, subGradeConfidence: { centering: 0.9, corners: 0.8, edges: 0.75, surface: 0.7 }, defects: [{ kind: 'corner_wear', side: 'front', location: 'top-left corner', severity: 'minor', description: 'Light wear (whitening) visible on the top-left corner.' }], notAssessed: [], notAssessedReasons: [], frontBack: { front: { centering: 7, corners: 8, edges: 7.5, surface: 8 }, back: { centering: 6.5, corners: 8, edges: 7.5, surface: 8.5 } }, engine: { version: 'cardlens-vision-29', rubricVersion: '1.2.0' }, links: { overlay: '/v1/scans/123/overlay' } }, links: { self: '/v1/scans/123', report: 'https://api.cardlens.example/r/s4fQy0cR9mZs2Jk7LwX1pTn8bVd3HgA6eYi5oUq0rCzE' }, reportExpiresAt: '2026-12-02T10:15:30Z' } } } },
      responses.Unauthorized,
      responses.ScanNotFound,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/scans/{id}/overlay',
    operationId: 'getScanOverlay',
    tags: ['Scans'],
    summary: 'Grading overlay image of a scan (CardLens extension)',
    description: `Free (no credits). A PNG of the submitted card image(s) annotated with the measured centering borders and the
detected defects: the front, with the back to its right when a back image was submitted. Available only to
the agent that created the scan, once the scan is \`completed\` and includes a \`grading\` section (modules
\`grade\` or \`full\`); the completed result links it as \`grading.links.overlay\`. In every other case (foreign
or unknown id, scan still \`queued\` or \`processing\`, \`failed\`, or no grading module) the response is 404
\`scan_not_found\`: poll \`GET /v1/scans/{id}\` until \`completed\` first.
`,
    parameters: [parameters.ScanId],
    responses: [
      { status: "200", description: 'PNG overlay image.', headers: AUTHENTICATED_SUCCESS, content: { "image/png": { schema: z.string().meta({ contentMediaType: 'image/png' }) } } },
      responses.Unauthorized,
      responses.ScanNotFound,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/scans/{id}/report-link',
    operationId: 'shareScanReport',
    tags: ['Scans'],
    summary: "Issue a share link to the scan's report page (CardLens extension)",
    description: `Free (no credits). A new share link to the report page of one of the agent's \`completed\` scans: a page for
people (identification, the AI grade with sub-grades, what limited it, the overlay, defects, centering,
values with their source and date), opened without an API key by whoever holds the link. Every completed
scan gets a link when it completes (\`links.report\` of \`GET /v1/scans/{id}\`, 30 days by default); this
issues a new one, with its own lifetime, and the link the scan had stops working at once (one live link per
scan). The token is 256 random bits; treat the URL like a password for that one report.
`,
    parameters: [parameters.ScanId],
    requestBody: { required: false, content: { "application/json": { schema: ShareReportRequest } } },
    responses: shareLinkResponses(responses.ScanNotFound),
  },
  {
    method: 'delete',
    path: '/v1/scans/{id}/report-link',
    operationId: 'revokeScanReport',
    tags: ['Scans'],
    summary: "Revoke the scan's share link (CardLens extension)",
    description: `Free. The scan's live share link stops working at once: its page and overlay answer 404
\`report_not_found\`, and the scan shows no \`links.report\` until a new link is issued. Idempotent: 204 also
when there was no live link. 404 \`scan_not_found\` for a scan that is not this agent's completed scan.
`,
    parameters: [parameters.ScanId],
    responses: revokeLinkResponses(responses.ScanNotFound),
  },
  {
    method: 'post',
    path: '/v1/grades/{id}/report-link',
    operationId: 'shareGradeReport',
    tags: ['Commercial grading'],
    summary: "Issue a share link to the grade's report page (CardLens extension)",
    description: `Free (no grade charged). A new share link to the report page of one of the agent's \`completed\` commercial
grades: a page for people with the AI grade, its sub-grades, what limited it and the centering, opened without an
API key by whoever holds the link (a commercial grade has no identification or value, and keeps no photos, so
its page has none). Every completed grade gets a link when it completes (\`links.report\`, 30 days by default);
this issues a new one with its own lifetime, and the old one stops working at once.
`,
    parameters: [parameters.GradeId],
    requestBody: { required: false, content: { "application/json": { schema: ShareReportRequest } } },
    responses: shareLinkResponses(responses.GradeNotFound),
  },
  {
    method: 'delete',
    path: '/v1/grades/{id}/report-link',
    operationId: 'revokeGradeReport',
    tags: ['Commercial grading'],
    summary: "Revoke the grade's share link (CardLens extension)",
    description: `Free. The grade's live share link stops working at once (404 \`report_not_found\`), and the grade shows no
\`links.report\` until a new link is issued. Idempotent: 204 also when there was no live link. 404
\`grade_not_found\` for a grade that is not this agent's completed grade.
`,
    parameters: [parameters.GradeId],
    responses: revokeLinkResponses(responses.GradeNotFound),
  },
  {
    method: 'get',
    path: '/r/{token}',
    operationId: 'getReportPage',
    tags: ['Reports'],
    summary: "A scan's or grade's report page, for people (no API key)",
    description: `The HTML report of the completed scan (or commercial grade) a live share link points to: identification, the grade with
sub-grades and what limited it (presented as an AI estimate), the overlay, defects, centering ratios, values
with their source and date, and the attribution link. No scripts, no external resources; readable on a
phone and printable. Not cached (\`Cache-Control: no-store\`), not indexed (\`X-Robots-Tag\`). An unknown,
expired or revoked link is 404 \`report_not_found\`: an HTML page for browsers (\`Accept: text/html\`),
problem+json otherwise. Limited per client IP like the other open endpoints.
`,
    security: OPEN,
    parameters: [parameters.ReportToken],
    responses: [
      { status: "200", description: 'The report page.', content: { "text/html": { schema: z.string() } } },
      problems('`report_not_found`: unknown, expired or revoked link.', ['report_not_found'], {
        // Browsers (Accept: text/html) get an HTML page instead of the problem record.
        otherContent: { 'text/html': { schema: z.string() } },
      }),
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/r/{token}/overlay.png',
    operationId: 'getReportOverlay',
    tags: ['Reports'],
    summary: 'The grading overlay shown on a report page (no API key)',
    description: 'The same PNG as `GET /v1/scans/{id}/overlay`, for the scan a live share link points to; 404 `report_not_found` otherwise (also when the scan has no grading).',
    security: OPEN,
    parameters: [parameters.ReportToken],
    responses: [
      { status: "200", description: 'PNG overlay image.', content: { "image/png": { schema: z.string().meta({ contentMediaType: 'image/png' }) } } },
      responses.ReportNotFound,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/pricing',
    operationId: 'getPricing',
    tags: ['Pricing and credits'],
    summary: 'Live module costs, packs and trial amounts (open)',
    security: OPEN,
    responses: [
      { status: "200", description: 'Pricing.', content: { "application/json": { schema: PricingResponse, example: { modules: [{ key: 'identify', credits: 1, description: 'Card identification.', available: true }, { key: 'grade', credits: 1, description: 'Identification plus AI condition grade.', available: true }, { key: 'market', credits: 1, description: 'Identification plus value estimates and market insights.', available: true }, { key: 'full', credits: 2, description: 'Identification, grading, value and market in one pass.', available: true }, { key: 'deep', credits: 3, description: 'Multi-angle scan; not available through this API.', available: false }], packs: [{ key: 'starter', displayName: 'Starter', credits: 25, priceUsd: 5 }, { key: 'builder', displayName: 'Builder', credits: 120, priceUsd: 19 }, { key: 'scale', displayName: 'Scale', credits: 400, priceUsd: 49 }], trial: { anonymous: 1, registered: 3 }, currencyNote: 'Prices are in USD. Pack prices may change at any time.' } } } },
      responses.RateLimited,
      responses.PricingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/credits/packs',
    operationId: 'listCreditPacks',
    tags: ['Pricing and credits'],
    summary: 'Prepaid credit packs (open)',
    description: 'The path that `purchaseUrl` in an `insufficient_credits` error points to.',
    security: OPEN,
    responses: [
      { status: "200", description: 'Credit packs.', content: { "application/json": { schema: CreditPacksResponse, example: { packs: [{ key: 'starter', displayName: 'Starter', credits: 25, priceUsd: 5 }, { key: 'builder', displayName: 'Builder', credits: 120, priceUsd: 19 }, { key: 'scale', displayName: 'Scale', credits: 400, priceUsd: 49 }], purchase: 'POST /v1/credits/purchase with {"pack": "<key>"} and hand the returned checkoutUrl to the owner.', currencyNote: 'Prices are in USD. Pack prices may change at any time.' } } } },
      responses.RateLimited,
      responses.PricingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/credits/purchase',
    operationId: 'purchaseCredits',
    tags: ['Pricing and credits'],
    summary: 'Buy a credit pack',
    description: `**Checkout rail** (default): the response has \`checkoutUrl\`; hand it to a human or an agentic checkout flow.
Credits are granted automatically by the payment confirmation within seconds. While an agent's session for a
pack is open, asking again for the same pack returns the same \`checkoutUrl\` (no second session); an unpaid
session expires after about 24 h (\`expiresAt\`) and a new request then creates a new one. Offers follow the price
list: when the pack's credits or price have changed since the open session was created, the next request expires
that session (its page can no longer be paid) and returns a new one at the current list. The credits and price
are fixed when the session is created: a session paid before it was replaced grants what it sold. After paying, the owner lands on \`GET /checkout/success\`. Agents must never collect payment-card
details.

**Shared payment token rail** (preview, needs server-side enablement): send \`sharedPaymentToken\`; credits are
granted inline and the response has \`paymentIntentId\` and \`creditsRemaining\`. The token's usage limits
(currency USD, maximum amount, expiry) are checked before charging. One token pays for one purchase of a pack:
repeating the request with the same token and pack returns the original payment and grants nothing more (safe
to retry after a timeout).

Discriminate the two 200 bodies on \`checkoutUrl\` vs \`paymentIntentId\`.
`,
    requestBody: { required: true, content: { "application/json": { schema: PurchaseRequest, example: { pack: 'starter' } } } },
    responses: [
      { status: "200", description: 'Checkout rail or token rail result.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: PurchaseResponse, example: { checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_123', pack: 'starter', credits: 25, priceUsd: 5, expiresAt: '2026-11-03T10:00:00Z' } } } },
      problems('`invalid_pack` (detail lists valid keys) or `invalid_body`.', ["invalid_pack", "invalid_body"]),
      responses.Unauthorized,
      problems(`\`spt_payment_incomplete\`: the token charge was not completed (token deactivated, expired, limited to another
currency or a lower amount, declined, or the payment needs action); no credits granted. When the provider
reported a payment status it is in \`paymentStatus\` (\`requires_action\`, \`processing\`, \`canceled\`, ...); a
\`processing\` payment that later succeeds is granted then, automatically.
`, ["spt_payment_incomplete"], { extras: { paymentStatus: z.string().optional() } }),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      problems('`pricing_unavailable` or `internal_error`. No credits granted.', ["pricing_unavailable", "internal_error"]),
      problems('`spt_not_enabled`: the token rail is disabled; omit `sharedPaymentToken` to use checkout.', ["spt_not_enabled"]),
      problems('`stripe_error` or `spt_stripe_error`: payment provider failure; no credits granted; retry later.', ["stripe_error", "spt_stripe_error"]),
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/subscriptions/plans',
    operationId: 'listSubscriptionPlans',
    tags: ['Subscriptions'],
    summary: 'Monthly grading-only plans (open)',
    description: `Lists the monthly grading-only plans and whether checkout is currently available (false while billing is
unavailable). Both photos of one card count as one grade.
`,
    security: OPEN,
    responses: [
      { status: "200", description: 'Plans.', content: { "application/json": { schema: PlansResponse, example: { plans: [{ key: 'grading_5000', displayName: 'Grading 5,000', gradesPerMonth: 5000, priceUsd: 250, currency: 'USD', trialDays: 7, checkoutAvailable: true }, { key: 'grading_10000', displayName: 'Grading 10,000', gradesPerMonth: 10000, priceUsd: 449, currency: 'USD', trialDays: 7, checkoutAvailable: true }], note: 'Both photos of one card count as one grade. New accounts get a 7-day unlimited trial (payment method required); returning subscribers pay immediately. Unused grades expire at period end.' } } } },
      responses.RateLimited,
      responses.PricingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/checkout',
    operationId: 'createSubscriptionCheckout',
    tags: ['Subscriptions'],
    summary: 'Get a subscription checkout link',
    description: `Requires a contact email on the account (register with \`contactEmail\`, or use the MCP tool
\`start_grading_trial\`). Creating the link neither starts access nor charges a card. The 200 body is
discriminated by \`action\`:
- \`checkout\`: a hosted checkout URL for the owner. New accounts (status \`none\`, never trialed) get the 7-day
  trial with a payment method required (\`trialDays\` 7); returning subscribers (\`cancelled\`, \`expired\`) pay
  immediately (\`trialDays\` 0). Repeating the request for the same plan while \`checkout_pending\` returns the
  same open session, unless the plan's price has changed since it was created: that session is then expired
  (its page can no longer be paid) and a new one at the current price returned. One trial per person: when the
  owner's contact email (normalised: case, \`+tag\`, Gmail dots) already had a trial on another account,
  \`trialDays\` is 0, the plan is charged at checkout, and \`trialRefusal\` (a \`trial_already_used\` problem
  record) says why; it is null otherwise. A trial whose card already had one on another account is ended at
  once after checkout and shown as \`trialRefusal\` on \`GET /v1/subscriptions/me\`.
- \`portal\`: the subscription is \`past_due\`; the owner fixes the payment method in the billing portal.
- \`scheduled\`: the account has a \`trialing\` or \`active\` subscription on the other plan; the change is
  scheduled for the next renewal (or the trial end) exactly as \`POST /v1/subscriptions/change-plan\` does.

Errors: 400 \`invalid_plan\` (detail lists the valid plan keys), \`contact_email_required\` or \`invalid_body\`;
409 \`subscription_exists\` (already \`trialing\`/\`active\` on that plan), \`checkout_pending\` (an unfinished checkout
for the other plan exists) or \`plan_change_conflict\` (see change-plan); 503 \`billing_unavailable\`.
`,
    requestBody: { required: true, content: { "application/json": { schema: PlanRequest, example: { plan: 'grading_5000' } } } },
    responses: [
      { status: "200", description: 'Checkout link, portal link, or scheduled plan change.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: CheckoutResponse, example: { action: 'checkout', plan: 'grading_5000', checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_456', expiresAt: '2026-11-03T10:00:00Z', trialDays: 7, trialRefusal: null, message: 'Ask the account owner to open checkoutUrl and add a payment method; the 7-day trial starts after checkout and nothing is charged until it ends.' } } } },
      problems('`invalid_plan`, `contact_email_required` or `invalid_body`.', ["invalid_plan", "contact_email_required", "invalid_body"]),
      responses.Unauthorized,
      problems('`subscription_exists`, `checkout_pending` or `plan_change_conflict`.', ["subscription_exists", "checkout_pending", "plan_change_conflict"]),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.InternalError,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/portal',
    operationId: 'createSubscriptionPortalLink',
    tags: ['Subscriptions'],
    summary: 'Get a billing portal link',
    description: `No body (any body is ignored). Returns a short-lived link where the owner manages the payment method and can
cancel at period end; request a new link each time. Errors: 400 \`contact_email_required\`; 404
\`subscription_not_found\` (no \`trialing\`, \`active\` or \`past_due\` subscription); 409 \`checkout_pending\` (the
checkout has not been completed yet); 503 \`billing_unavailable\`.
`,
    responses: [
      { status: "200", description: 'Portal link.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: PortalLinkResponse, example: { action: 'portal', portalUrl: 'https://billing.stripe.com/p/session/test_789', message: 'Ask the account owner to open portalUrl.' } } } },
      problems('`contact_email_required`, or `invalid_body` for a malformed JSON body (any body is otherwise ignored).', ["contact_email_required", "invalid_body"]),
      responses.Unauthorized,
      responses.SubscriptionNotFound,
      problems('`checkout_pending`.', ["checkout_pending"]),
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.InternalError,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/change-plan',
    operationId: 'changeSubscriptionPlan',
    tags: ['Subscriptions'],
    summary: 'Schedule a plan change at the next renewal',
    description: `Schedules a tier change for the next renewal (for a \`trialing\` subscription: the trial end, so the new plan
is the one charged then). The current allowance is unchanged. A later request replaces an earlier pending
change; repeating the pending plan returns the same schedule. Errors: 400 \`invalid_plan\` or \`invalid_body\`;
404 \`subscription_not_found\` (no \`trialing\` or \`active\` subscription); 409 \`plan_change_conflict\` (the plan
is already the current plan, the subscription is set to cancel at period end, or it is \`past_due\`) or
\`checkout_pending\`; 503 \`billing_unavailable\`.
`,
    requestBody: { required: true, content: { "application/json": { schema: PlanRequest, example: { plan: 'grading_10000' } } } },
    responses: [
      { status: "200", description: 'Plan change scheduled.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: PlanChangeScheduledResponse, example: { action: 'scheduled', plan: 'grading_5000', pendingPlan: 'grading_10000', effectiveAtUtc: '2026-12-01T00:00:00Z', message: 'The plan changes to grading_10000 at the next renewal; the current allowance is unchanged.' } } } },
      problems('`invalid_plan` or `invalid_body`.', ["invalid_plan", "invalid_body"]),
      responses.Unauthorized,
      responses.SubscriptionNotFound,
      problems('`plan_change_conflict` or `checkout_pending`.', ["plan_change_conflict", "checkout_pending"]),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.InternalError,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/subscriptions/cancel',
    operationId: 'cancelSubscription',
    tags: ['Subscriptions'],
    summary: 'Cancel at the end of the trial or period',
    description: `No body (any body is ignored). Cancels future charges and any pending plan change; access continues until the
trial or period deadline (\`accessEndsAtUtc\`), after which the status becomes \`cancelled\`. Repeating the
request returns the same result. 404 \`subscription_not_found\` when there is no renewable (\`trialing\`,
\`active\` or \`past_due\`) subscription.
`,
    responses: [
      { status: "200", description: 'Cancellation scheduled.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: CancelResponse, example: { status: 'active', plan: 'grading_5000', cancelAtPeriodEnd: true, accessEndsAtUtc: '2026-12-01T00:00:00Z', message: 'No further charges. Grading access continues until accessEndsAtUtc.' } } } },
      problems('`invalid_body`: a malformed JSON body (any body is otherwise ignored).', ['invalid_body']),
      responses.Unauthorized,
      responses.SubscriptionNotFound,
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.InternalError,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/v1/subscriptions/me',
    operationId: 'getSubscriptionBalance',
    tags: ['Subscriptions'],
    summary: 'Prepaid credit and subscription grade balances',
    description: `Separate prepaid API credit and subscription grade balances plus paid-period dates. \`gradesRemaining\` is
null only while \`unlimitedGrading\` is true (trial: null means unlimited, not zero); without grading access it
is 0.

Freshness: after the agent's own request that changes them (a grade, a checkout, a plan change, a
cancellation), the next read reports the change. A change made elsewhere (a payment confirmed by the
payment provider, a grade settled by the grading service) shows within about a second, and never later than
10 seconds. A trial, period or checkout deadline shows from the moment it passes.
`,
    responses: [
      { status: "200", description: 'Balances.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: SubscriptionBalance, example: { prepaidCredits: 3, plan: 'grading_5000', status: 'trialing', unlimitedGrading: true, trialEndsAtUtc: '2026-11-09T10:00:00Z', gradesRemaining: null, monthlyAllowance: 5000, currentPeriodStartUtc: null, currentPeriodEndUtc: null, cancelAtPeriodEnd: false, pendingPlan: null, pendingPlanEffectiveAtUtc: null, gradesUsed: null, accessEndsAtUtc: '2026-11-09T10:00:00Z', trialRefusal: null } } } },
      responses.Unauthorized,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/grades',
    operationId: 'createGrade',
    tags: ['Commercial grading'],
    summary: 'Grade one card synchronously (subscription grading)',
    description: `Grading only; the result is returned directly. The request budget is 60 seconds; clients should allow up to
65 seconds.
1. At most one grade is in flight per API account (429 \`grade_in_flight\`).
2. There is no prepaid fallback and prepaid credits are never spent (\`creditsCharged\` is always 0).
3. One monthly grade is charged per front/back photo pair (\`billingSource\` \`subscription\`, \`gradesCharged\` 1).
   During the verified trial no grade count cap applies and nothing is deducted (\`billingSource\` \`trial\`,
   \`gradesCharged\` 0).
4. A failed grade is refunded to its original period (503 \`grader_unavailable\` / \`grader_busy\`; the saved
   grade becomes \`refunded\`). After a refunded failure a new key must be used (409 \`grade_refunded\`).
5. A completed request can be replayed without charge with the same key AND identical photo bytes (for a
   JSON request, the bytes fetched from its URLs): the stored result is returned unchanged. The same key with
   other photos gives 409 \`idempotency_key_reused\`; the same key while its original request is still in
   flight gives 409 \`idempotency_conflict\`.
6. Requests for non-grade modules are rejected (403 \`subscription_grading_only\`); \`modules\` is optional and,
   when given, must be \`grade\`.

\`billingSource\` is \`trial\` (the 7-day unlimited trial: nothing is deducted, \`gradesCharged\` 0) or
\`subscription\` (the paid monthly allowance, \`gradesCharged\` 1). A refused request (402) charges nothing and
leaves no grade: the same key can be used once the account can grade. 503 \`billing_unavailable\` also charges
nothing. A grade that fails after its allowance was reserved (503 \`grader_unavailable\` / \`grader_busy\`, or
422 \`card_not_found\` when a photo shows no card) is refunded to the period it was taken from, even when a new
period has begun meanwhile, and its key is spent. A client that disconnects does not stop a grade: it is
completed (and charged) or refunded all the same, and \`GET /v1/grades/{id}\` shows which.

Photos are processed in a temporary area and deleted as soon as the analysis ends (success or failure); a
sweeper removes anything a crash left behind within minutes. They are never stored or logged. Kept: the
account, timestamps, usage and billing records, the SHA-256 of each photo and the numeric receipt.

Both photos are required (400 \`missing_front_image\` / \`missing_back_image\`). The grade id: \`id\` is the
integer used in \`GET /v1/grades/{id}\`, \`links.self\` is \`/v1/grades/<id>\` and \`gradeId\` is the string
\`grade_<id>\`.
`,
    parameters: [parameters.IdempotencyKeyRequired],
    requestBody: { required: true, content: { "multipart/form-data": { schema: GradeCreateMultipart }, "application/json": { schema: GradeCreateJson, example: { frontImageUrl: 'https://images.example.com/cards/front.jpg', backImageUrl: 'https://images.example.com/cards/back.jpg' } } } },
    responses: [
      { status: "200", description: 'The completed grade (or the stored result, on a replay).', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: GradeCompleted, example: { id: 987, gradeId: 'grade_987', status: 'completed', grading: { grade: 8.5, predictedGrade: 8, subGrades: { centering: 8, corners: 8.5, edges: 9, surface: 8.5 }, front: { centering: 8, corners: 8.5, edges: 9, surface: 8.5 }, back: { centering: 8.5, corners: 9, edges: 9, surface: 9 }, centering: { front: { leftRight: '55/45', topBottom: '52/48', left: 55, right: 45, top: 52, bottom: 48 }, back: { leftRight: '53/47', topBottom: '50/50', left: 53, right: 47, top: 50, bottom: 50 } } }, billingSource: 'subscription', gradesCharged: 1, creditsCharged: 0, createdAt: '2026-11-02T10:15:00Z', completedAt: '2026-11-02T10:15:21Z', links: { self: '/v1/grades/987', report: 'https://api.cardlens.example/r/gq3Lk9TzP0xYb7WcR2mNv5HjD8sFa1UeK4oZi6Bt3GwX' }, reportExpiresAt: '2026-12-02T10:15:21Z' } } } },
      problems('Invalid or missing photos or key.', ["missing_front_image", "missing_back_image", "invalid_image_url", "image_too_large", "invalid_image", "invalid_modules", "invalid_idempotency_key", "missing_idempotency_key", "invalid_body"]),
      responses.Unauthorized,
      problems('`subscription_required` or `grading_allowance_exhausted`. Prepaid credits are unchanged.', ["subscription_required", "grading_allowance_exhausted"]),
      problems('`subscription_grading_only`: `modules` other than `grade` were requested.', ["subscription_grading_only"]),
      problems('`idempotency_conflict` (same key still in flight), `idempotency_key_reused` (same key, other photos) or `grade_refunded` (use a new key).', ["idempotency_conflict", "idempotency_key_reused", "grade_refunded"]),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      problems(`\`card_not_found\`: a photo decodes but shows no trading card. \`image_too_complex\`: the photos could not be
analysed within the engine's time or memory budget (20 s). \`nothing_assessable\`: a card was found, but
none of its centering, corners, edges or surface could be assessed on either side (\`detail\` gives each
reason, e.g. too few pixels per mm or a slab over the card), so no grade is given. The reserved grade was
refunded in every case; retry with new photos and a new key.
`, ["card_not_found", "image_too_complex", "nothing_assessable"]),
      problems('`grade_in_flight` (another grade is in flight for the account) or `rate_limited`.', ["grade_in_flight", "rate_limited"], { headers: { "Retry-After": headers.RetryAfter, "X-RateLimit-Policy": headers.XRateLimitPolicy, "RateLimit-Policy": headers.RateLimitPolicy, "RateLimit": headers.RateLimit } }),
      responses.InternalError,
      problems(`\`grader_unavailable\` or \`grader_busy\` (the reserved allowance is refunded; retry with a new key), or
\`billing_unavailable\` / \`service_unavailable\`.
`, ["grader_unavailable", "grader_busy", "billing_unavailable", "service_unavailable"]),
    ],
  },
  {
    method: 'get',
    path: '/v1/grades/{id}',
    operationId: 'getGrade',
    tags: ['Commercial grading'],
    summary: 'A saved commercial grade',
    description: `Free. The saved grade, discriminated by \`status\`: \`processing\` (still in flight, no \`grading\`), \`completed\`
(with \`grading\`) or \`refunded\` (the grade failed and was refunded to its original period; \`gradesCharged\`
0, generic \`error\`). A grade is \`processing\` until it completes or fails; both are final. 404
\`grade_not_found\` for a missing or foreign id (including a non-numeric one).
`,
    parameters: [parameters.GradeId],
    responses: [
      { status: "200", description: 'The grade, by status.', headers: AUTHENTICATED_SUCCESS, content: { "application/json": { schema: GradeResult, example: { id: 988, gradeId: 'grade_988', status: 'refunded', billingSource: 'subscription', gradesCharged: 0, creditsCharged: 0, createdAt: '2026-11-02T11:00:00Z', completedAt: null, refundedAt: '2026-11-02T11:01:00Z', error: 'Grading failed; the grade was refunded. Retry with a new Idempotency-Key.', links: { self: '/v1/grades/988' } } } } },
      responses.Unauthorized,
      responses.GradeNotFound,
      responses.RateLimited,
      responses.InternalError,
      responses.ServiceUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/v1/webhooks/stripe',
    operationId: 'receiveStripeWebhook',
    tags: ['Payment webhooks'],
    summary: 'Payment confirmations (for the payment provider only)',
    description: `Receiver for the hosted checkout provider's (Stripe) event notifications. **For the payment provider only;
not part of the client API.** It is not authenticated by API key: the raw request body is verified against
the \`Stripe-Signature\` header with the endpoint's signing secret before anything is parsed. Confirmations
grant purchased credits and activate or renew trial and paid subscription access; a delayed confirmation
never extends a trial beyond its deadline. Events are processed idempotently by event id (a redelivered
event is acknowledged with 200 and has no further effect); event types the service does not use are
acknowledged and ignored. Not rate limited. A non-2xx response makes the provider redeliver later.
`,
    security: OPEN,
    parameters: [parameters.StripeSignature],
    requestBody: { required: true, description: "The provider's event object, verified over the exact raw bytes.", content: { "application/json": { schema: z.object({
  id: z.string(),
  type: z.string(),
}) } } },
    responses: [
      { status: "200", description: 'Event accepted (or already processed, or ignored).', content: { "application/json": { schema: z.object({
  received: z.literal(true),
}), example: { received: true } } } },
      problems('`invalid_body`: missing or invalid signature, or a malformed payload. Nothing was applied.', ["invalid_body"], { schema: ProblemInvalidBody }),
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.InternalError,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/checkout/success',
    operationId: 'checkoutSuccessPage',
    tags: ['Checkout pages'],
    summary: 'Where hosted checkout returns the owner after paying (HTML)',
    description: `Stripe (or the sandbox) sends the owner's browser here with \`session_id\`. The page asks the payment provider
for the session and, when it is paid, grants the credits through the same idempotent fulfilment as the
webhook (the webhook may be late; the redirect may never come), so the page never claims credits that are
not there. Visiting it again changes nothing.
`,
    security: OPEN,
    parameters: [{ name: 'session_id', in: 'query', required: true, description: 'The checkout session id.', schema: parameters.SandboxSessionId.schema }],
    responses: [
      { status: "200", description: "A page with the session's state (paid, processing, not paid yet, expired, failed).", content: { "text/html": { schema: z.string() } } },
      problems('`checkout_not_found`: no checkout session with this id.', ["checkout_not_found","not_found"], { schema: ProblemCheckoutNotFound }),
      responses.RateLimited,
      responses.InternalError,
      problems('`stripe_error`: the payment provider could not be asked; the credits follow with its confirmation.', ["stripe_error"]),
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/checkout/subscribed',
    operationId: 'checkoutSubscribedPage',
    tags: ['Checkout pages'],
    summary: 'Where a subscription checkout returns the owner after completing it (HTML)',
    description: `The subscription checkout's success URL (Stripe or the sandbox sends the owner's browser here with
\`session_id\`), also the billing portal's return URL (without \`session_id\`). A static page: the trial or the
plan starts as soon as the payment provider confirms the checkout (normally seconds); the agent reads the
state with \`GET /v1/subscriptions/me\`.
`,
    security: OPEN,
    parameters: [{ name: 'session_id', in: 'query', required: false, description: 'The checkout session id (`cs_...`); not needed by the page.', schema: z.string() }],
    responses: [
      { status: "200", description: "A page saying the checkout is complete and access starts with the provider's confirmation.", content: { "text/html": { schema: z.string() } } },
      responses.RateLimited,
    ],
  },
  {
    method: 'get',
    path: '/checkout/cancelled',
    operationId: 'checkoutCancelledPage',
    tags: ['Checkout pages'],
    summary: 'Where hosted checkout returns the owner after cancelling (HTML)',
    description: 'Nothing was charged; the agent can request a new checkout link at any time.',
    security: OPEN,
    parameters: [{ name: 'pack', in: 'query', required: false, description: 'The pack of the cancelled checkout (credit packs).', schema: z.string() }, { name: 'plan', in: 'query', required: false, description: 'The plan of the cancelled checkout (subscriptions).', schema: z.string() }],
    responses: [
      { status: "200", description: 'A page saying nothing was charged.', content: { "text/html": { schema: z.string() } } },
      responses.RateLimited,
    ],
  },
  {
    method: 'get',
    path: '/sandbox/checkout/{sessionId}',
    operationId: 'sandboxCheckoutPage',
    tags: ['Checkout pages'],
    summary: 'Sandbox checkout page (servers without a Stripe key only; HTML)',
    description: `The local sandbox payment provider's checkout page, marked plainly as a sandbox where no money moves, with
Pay and Cancel buttons. A subscription checkout shows the monthly price, the free trial when there is one
(nothing is charged today; the first charge is at the end of the trial) and a choice of two sandbox test cards
(form field \`card\`). It exists only on a server without \`STRIPE_SECRET_KEY\`; elsewhere every sandbox path
answers 404.
`,
    security: OPEN,
    parameters: [parameters.SandboxSessionId],
    responses: [
      { status: "200", description: 'The sandbox checkout page.', content: { "text/html": { schema: z.string() } } },
      problems('`checkout_not_found` (unknown session) or `not_found` (no sandbox on this server).', ["checkout_not_found","not_found"], { schema: ProblemCheckoutNotFound }),
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/sandbox/checkout/{sessionId}/pay',
    operationId: 'sandboxCheckoutPay',
    tags: ['Checkout pages'],
    summary: 'Pay a sandbox checkout (no money moves)',
    description: `Marks the sandbox session paid and delivers a signed \`checkout.session.completed\` event to
\`POST /v1/webhooks/stripe\`, then redirects the browser to the session's success URL. Paying twice pays once.
A subscription checkout's form sends the chosen sandbox test card in the form field \`card\`
(\`4242424242424242\` pays; \`4000000000000341\` attaches but every later charge declines, so a renewal fails);
without the field the card that pays is used.
`,
    security: OPEN,
    parameters: [parameters.SandboxSessionId],
    requestBody: { required: false, content: { "application/x-www-form-urlencoded": { schema: SandboxCardForm } } },
    responses: [
      { status: "303", description: 'Redirect to the success page.', headers: { "Location": { required: true, schema: z.string() } },  },
      problems('`invalid_body`: the session can no longer be paid (expired), or `card` is not one of the sandbox test cards.', ["invalid_body"], { schema: ProblemInvalidBody }),
      problems('`checkout_not_found` (unknown session) or `not_found` (no sandbox on this server).', ["checkout_not_found","not_found"], { schema: ProblemCheckoutNotFound }),
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/sandbox/checkout/{sessionId}/cancel',
    operationId: 'sandboxCheckoutCancel',
    tags: ['Checkout pages'],
    summary: 'Leave a sandbox checkout without paying',
    description: 'Nothing changes (the session stays open until it expires); redirects to the cancel page.',
    security: OPEN,
    parameters: [parameters.SandboxSessionId],
    responses: [
      problems('`invalid_body`: a malformed JSON body (any body is otherwise ignored).', ['invalid_body']),
      { status: "303", description: 'Redirect to the cancel page.', headers: { "Location": { required: true, schema: z.string() } },  },
      problems('`checkout_not_found` (unknown session) or `not_found` (no sandbox on this server).', ["checkout_not_found","not_found"], { schema: ProblemCheckoutNotFound }),
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'get',
    path: '/sandbox/portal/{portalSessionId}',
    operationId: 'sandboxPortalPage',
    tags: ['Checkout pages'],
    summary: 'Sandbox billing portal page (servers without a Stripe key only; HTML)',
    description: `The local sandbox payment provider's billing portal (the \`portalUrl\` of \`POST /v1/subscriptions/portal\`, or
of a checkout answered with \`action\` \`portal\`), marked plainly as a sandbox where no money moves. It shows
the plan, the provider's subscription status, the price, the card on file (last four digits), the date the
subscription renews on (or ends on, after a cancellation) and whether it is set to cancel at period end, with
a form to replace the card (one of two sandbox test cards) and a Cancel at period end button (hidden once
set). It exists only on a server without \`STRIPE_SECRET_KEY\`; elsewhere every sandbox path answers 404.
`,
    security: OPEN,
    parameters: [parameters.SandboxPortalSessionId],
    responses: [
      { status: "200", description: 'The sandbox billing portal page.', content: { "text/html": { schema: z.string() } } },
      problems('`not_found`: unknown portal session, or no sandbox on this server.', ["not_found"], { schema: ProblemNotFound }),
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/sandbox/portal/{portalSessionId}/card',
    operationId: 'sandboxPortalUpdateCard',
    tags: ['Checkout pages'],
    summary: 'Replace the card on file in the sandbox portal (no money moves)',
    description: `Replaces the sandbox card on file with the one in the form field \`card\` (\`4242424242424242\` pays;
\`4000000000000341\` attaches but every charge declines). An unpaid renewal is retried at once with the new
card, as Stripe does when the payment method changes. Redirects the browser back to the portal page.
`,
    security: OPEN,
    parameters: [parameters.SandboxPortalSessionId],
    requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: SandboxCardUpdateForm } } },
    responses: [
      { status: "303", description: 'Redirect to the portal page.', headers: { "Location": { required: true, schema: z.string() } },  },
      problems('`invalid_body`: `card` is missing or not one of the sandbox test cards, or the subscription cannot be changed.', ["invalid_body"], { schema: ProblemInvalidBody }),
      problems('`not_found`: unknown portal session, or no sandbox on this server.', ["not_found"], { schema: ProblemNotFound }),
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/sandbox/portal/{portalSessionId}/cancel',
    operationId: 'sandboxPortalCancel',
    tags: ['Checkout pages'],
    summary: 'Cancel at period end in the sandbox portal',
    description: `Stops renewals (access continues to the trial or period end) and drops a pending plan change, as
\`POST /v1/subscriptions/cancel\` does. Repeating it changes nothing. Redirects the browser back to the portal
page.
`,
    security: OPEN,
    parameters: [parameters.SandboxPortalSessionId],
    responses: [
      { status: "303", description: 'Redirect to the portal page.', headers: { "Location": { required: true, schema: z.string() } },  },
      problems('`invalid_body`: the subscription cannot be changed.', ["invalid_body"], { schema: ProblemInvalidBody }),
      problems('`not_found`: unknown portal session, or no sandbox on this server.', ["not_found"], { schema: ProblemNotFound }),
      // Bodies pass the gateway's parsers first (an oversized or badly encoded one is refused on any route).
      responses.BodyTooLarge,
      responses.UnsupportedMediaType,
      responses.RateLimited,
      responses.BillingUnavailable,
    ],
  },
  {
    method: 'post',
    path: '/mcp',
    operationId: 'mcp',
    tags: ['MCP'],
    summary: 'MCP server (Streamable HTTP, JSON-RPC 2.0)',
    description: `Model Context Protocol endpoint using the Streamable HTTP transport in stateless mode: one JSON-RPC 2.0
message per POST (\`initialize\`, \`tools/list\`, \`tools/call\`, notifications; a JSON-RPC batch is answered too, see
the limits below); no session id, no server-initiated
stream (\`GET /mcp\` and \`DELETE /mcp\` give 405 \`method_not_allowed\`). Send \`Content-Type: application/json\`
and \`Accept: application/json, text/event-stream\`; responses are \`application/json\`.

**Authentication:** the same API key headers as the REST API (\`Authorization: Bearer <key>\` or
\`X-Api-Key\`). The key is optional at the HTTP level: \`initialize\`, \`tools/list\` and the tools
\`register_agent\` and \`start_grading_trial\` (both create a new account) need none. Every other tool needs a
key; without one the tool call returns a tool error result (\`isError\` true) whose \`structuredContent\` is a
problem record with code \`invalid_api_key\`. A key that is sent but invalid, revoked or disabled gives HTTP
401 \`invalid_api_key\` (problem+json) for the whole request. Tool errors carry the same problem records and
codes as the REST endpoints, in \`structuredContent\`, malformed arguments included (\`invalid_body\`, or the
REST endpoint's own code such as \`missing_back_image\`); an unknown tool name is a JSON-RPC error (-32602).
Because MCP clients validate \`structuredContent\` against a tool's \`outputSchema\` on error results too, every
tool's \`outputSchema\` is \`{type: object, anyOf: [<the result>, <a problem record>]}\`.

**Limits and headers:** every JSON-RPC message of an authenticated POST spends one point of the \`per-key\`
limit, as a REST request does: a JSON-RPC batch (an array) of n messages spends n, and one that needs more
points than are left is refused whole with 429 \`rate_limited\` and \`Retry-After\` (its points still count, as a
refused REST request's do); without a key the \`open-per-ip\` limit applies the same way; the account-creating tools also count against the
registration limits. \`X-RateLimit-Policy\` names the policy applied; after a \`tools/call\` with a valid key
\`X-Credits-Remaining\` carries the prepaid balance.

**Server:** \`initialize\` returns \`serverInfo\` (\`name\` \`cardlens\`, \`title\`, \`version\`) and \`instructions\` (what
the service does, that grades are AI estimates, that agents must never collect payment-card details and must
hand checkout links to the owner). Built on the official MCP TypeScript SDK (protocol 2025-11-25); every tool
returns \`structuredContent\` plus a one-line text summary and declares \`readOnlyHint\`, \`destructiveHint\`,
\`idempotentHint\` and \`openWorldHint\`.

**Tools** (the same capabilities, rules, charges and rate limits as the REST endpoints):
| Tool | Key | Input | Equivalent |
|---|---|---|---|
| \`register_agent\` | none | \`name\`, \`contactEmail?\`, \`operatorUrl?\`, \`commercialOnly?\` | \`POST /v1/agents\` |
| \`start_grading_trial\` | none | \`applicationName\`, \`ownerEmail\`, \`plan\` (\`grading_5000\` or \`grading_10000\`) | \`POST /v1/agents\` with \`commercialOnly\` true and \`contactEmail\` = \`ownerEmail\`, then \`POST /v1/subscriptions/checkout\`; returns the API key (once) and the \`checkoutUrl\` for the owner. No prepaid credits; the trial starts after checkout. An unknown plan registers nothing; if the checkout cannot be created after the account was, the key is still returned, with \`checkoutUrl\` null and the reason (get the link with \`subscribe_grading\`). |
| \`subscribe_grading\` | required | \`plan\` | \`POST /v1/subscriptions/checkout\` |
| \`check_credits\` | required | none | \`GET /v1/subscriptions/me\` |
| \`grade_card\` | required | \`frontImageUrl\`, \`backImageUrl\`, \`billingSource?\` (\`subscription\` default: trial or subscription, grading only; \`prepaid\`: grading with identification), \`idempotencyKey?\` | \`subscription\`: \`POST /v1/grades\`, result \`{billingSource, idempotencyKey, grade}\`; \`prepaid\`: \`POST /v1/scans\` with modules \`grade\` (identification plus grading, 1 credit), result \`{billingSource: prepaid, idempotencyKey, scan}\`, poll with \`get_scan_result\`. A fresh key (\`mcp-<uuid>\`) is made when none is given and returned, so a retry can replay. |
| \`scan_card\` | required | \`frontImageUrl\`, \`backImageUrl\`, \`modules\` (array of \`identify\`, \`grade\`, \`market\`, \`full\`), \`idempotencyKey?\` | \`POST /v1/scans\` with those modules; result \`{idempotencyKey, scan}\`, poll with \`get_scan_result\` (value and market carry their price sources). |
| \`buy_credits\` | required | \`pack\` (a key of \`GET /v1/credits/packs\`) | \`POST /v1/credits/purchase\` without a payment token: the hosted \`checkoutUrl\` for the owner, never payment details. |
| \`get_grade_result\` | required | \`gradeId\` (integer, or the string \`grade_<id>\`) | \`GET /v1/grades/{id}\` |
| \`get_scan_result\` | required | \`scanId\` (integer) | \`GET /v1/scans/{id}\` |
`,
    security: OPTIONAL_KEY,
    parameters: [parameters.McpAccept],
    requestBody: { required: true, content: { "application/json": { schema: JsonRpcRequest, example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'grade_card', arguments: { frontImageUrl: 'https://images.example.com/f.jpg', backImageUrl: 'https://images.example.com/b.jpg' } } } } } },
    responses: [
      { status: "200", description: 'JSON-RPC response (a result, or a JSON-RPC error object).', headers: { "X-Credits-Remaining": { description: 'Present when the request carried a valid API key.', required: false, schema: z.int().min(0) }, "X-RateLimit-Policy": headers.XRateLimitPolicy, "RateLimit-Policy": headers.RateLimitPolicy, "RateLimit": headers.RateLimit }, content: { "application/json": { schema: JsonRpcResponse, example: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"agentId":42}' }], structuredContent: { agentId: 42 }, isError: false } } }, "text/event-stream": { schema: z.string().meta({ description: 'Server-sent events carrying JSON-RPC messages (only if the server chooses streaming).' }) } } },
      { status: "202", description: 'A JSON-RPC notification or response was accepted; no body.',  },
      { status: "400", description: 'Malformed JSON-RPC message (JSON-RPC error object from the MCP transport).', content: { "application/json": { schema: JsonRpcResponse } } },
      responses.Unauthorized,
      { status: "403", description: `DNS-rebinding protection (JSON-RPC error object from the MCP transport): the \`Host\` header does not name this
server, or an \`Origin\` header names another origin (keys never belong in browser code; there is no CORS).
`, content: { "application/json": { schema: JsonRpcResponse } } },
      { status: "406", description: '`Accept` does not include both `application/json` and `text/event-stream` (JSON-RPC error object).', content: { "application/json": { schema: JsonRpcResponse } } },
      responses.BodyTooLarge,
      { status: "415", description: '`Content-Type` is not `application/json` (JSON-RPC error object from the MCP transport, or a problem record from the gateway).', content: { "application/json": { schema: JsonRpcResponse }, "application/problem+json": { schema: ProblemUnsupportedMediaType } } },
      responses.RateLimited,
      responses.InternalError,
    ],
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['Operations'],
    summary: 'This OpenAPI 3.1 document (open)',
    security: OPEN,
    responses: [
      { status: "200", description: 'The OpenAPI document, as JSON.', content: { "application/json": { schema: z.object({
  openapi: z.string().regex(/^3\.1\./),
  info: z.record(z.string(), z.unknown()),
  paths: z.record(z.string(), z.unknown()),
}) } } },
      responses.RateLimited,
    ],
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource',
    operationId: 'getProtectedResourceMetadata',
    tags: ['Operations'],
    summary: 'OAuth 2.0 protected-resource metadata of the API (RFC 9728)',
    description: `Where every 401's \`WWW-Authenticate: Bearer realm="CardLens", resource_metadata="..."\` points. The API key
is the Bearer token (\`bearer_methods_supported: [header]\`); there is no OAuth authorization server: a key
comes from self-registration, named in \`cardlens_api_key_registration\`.
`,
    security: OPEN,
    responses: [
      { status: "200", description: 'The metadata.', content: { "application/json": { schema: ProtectedResourceMetadata } } },
    ],
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource/mcp',
    operationId: 'getMcpProtectedResourceMetadata',
    tags: ['Operations'],
    summary: 'OAuth 2.0 protected-resource metadata of /mcp (RFC 9728, as the MCP authorization spec expects)',
    description: "The same as the API's, with `resource` the /mcp endpoint; a 401 from /mcp points here.",
    security: OPEN,
    responses: [
      { status: "200", description: 'The metadata.', content: { "application/json": { schema: ProtectedResourceMetadata } } },
    ],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tags: ['Operations'],
    summary: 'Liveness probe (open)',
    description: '200 while the process is running; checks no dependencies.',
    security: OPEN,
    responses: [
      { status: "200", description: 'Alive.', content: { "application/json": { schema: z.object({
  status: z.literal("ok"),
}), example: { status: 'ok' } } } },
    ],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tags: ['Operations'],
    summary: 'Readiness probe (open)',
    description: `200 when the gateway can serve traffic (its backing services answer); otherwise 503
\`service_unavailable\` with the failing checks in \`checks\`. Check names are informational. \`rateLimits\` is
\`degraded\` while the shared rate-limit store (Redis) is not answering: each replica then enforces the limits
on its own, and the gateway stays ready.
`,
    security: OPEN,
    responses: [
      { status: "200", description: 'Ready.', content: { "application/json": { schema: z.object({
  status: z.literal("ready"),
  checks: ReadinessChecks,
}), example: { status: 'ready', checks: { accounts: 'ok', billing: 'ok' } } } } },
      problems('Not ready.', ["service_unavailable"], { extras: { checks: ReadinessChecks } }),
    ],
  },
];
