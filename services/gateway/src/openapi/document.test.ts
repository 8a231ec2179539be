import { describe, it, expect } from '@jest/globals';
import { validate, compileErrors } from '@readme/openapi-parser';
import { errorTable } from '@cardlens/errors';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MCP_SERVER_INFO } from '../mcp/server';
import { openApiDocument as doc } from './document';
import { createOpenApiResponseValidator, expectMatchesOpenApi } from '@cardlens/testing';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Error codes and HTTP statuses from the design brief (spec codes + designed "not shown" codes). */
const BRIEF_CODES: Record<string, number> = {
  missing_front_image: 400, invalid_image_url: 400, invalid_modules: 400, deep_unsupported: 400,
  image_too_large: 400, invalid_image: 400, invalid_idempotency_key: 400, invalid_body: 400, invalid_pack: 400,
  invalid_api_key: 401, insufficient_credits: 402, spt_payment_incomplete: 402, subscription_required: 402,
  grading_allowance_exhausted: 402, subscription_grading_only: 403, scan_not_found: 404, idempotency_conflict: 409,
  rate_limited: 429, grade_in_flight: 429, pricing_unavailable: 500, enqueue_failed: 500, spt_not_enabled: 501,
  stripe_error: 502, spt_stripe_error: 502,
  missing_back_image: 400, missing_idempotency_key: 400, invalid_plan: 400, contact_email_required: 400,
  not_found: 404, grade_not_found: 404, report_not_found: 404, subscription_not_found: 404, checkout_not_found: 404, method_not_allowed: 405,
  card_not_found: 422, image_too_complex: 422, nothing_assessable: 422, idempotency_key_reused: 409, subscription_exists: 409, checkout_pending: 409, plan_change_conflict: 409,
  trial_already_used: 409,
  grade_refunded: 409, request_timeout: 408, body_too_large: 413, unsupported_media_type: 415, headers_too_large: 431, internal_error: 500,
  billing_unavailable: 503, grader_unavailable: 503, grader_busy: 503, service_unavailable: 503,
};

const EXPECTED_OPERATIONS = [
  'POST /v1/agents', 'GET /v1/agents/me', 'POST /v1/scans', 'GET /v1/scans/{id}', 'GET /v1/scans/{id}/overlay',
  'GET /v1/pricing', 'GET /v1/credits/packs', 'POST /v1/credits/purchase', 'GET /v1/subscriptions/plans',
  'POST /v1/subscriptions/checkout', 'POST /v1/subscriptions/portal', 'POST /v1/subscriptions/change-plan',
  'POST /v1/subscriptions/cancel', 'GET /v1/subscriptions/me', 'POST /v1/grades', 'GET /v1/grades/{id}',
  'POST /v1/webhooks/stripe', 'GET /openapi.json', 'GET /healthz', 'GET /readyz', 'POST /mcp',
  'GET /checkout/success', 'GET /checkout/cancelled', 'GET /checkout/subscribed', 'GET /sandbox/checkout/{sessionId}',
  'POST /sandbox/checkout/{sessionId}/pay', 'POST /sandbox/checkout/{sessionId}/cancel',
  'GET /sandbox/portal/{portalSessionId}', 'POST /sandbox/portal/{portalSessionId}/card', 'POST /sandbox/portal/{portalSessionId}/cancel',
  'POST /v1/scans/{id}/report-link', 'DELETE /v1/scans/{id}/report-link', 'POST /v1/grades/{id}/report-link', 'DELETE /v1/grades/{id}/report-link',
  'GET /r/{token}', 'GET /r/{token}/overlay.png', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp',
];
const OPEN = new Set([
  'POST /v1/agents', 'GET /v1/pricing', 'GET /v1/credits/packs', 'GET /v1/subscriptions/plans',
  'POST /v1/webhooks/stripe', 'GET /openapi.json', 'GET /healthz', 'GET /readyz',
  'GET /checkout/success', 'GET /checkout/cancelled', 'GET /checkout/subscribed', 'GET /sandbox/checkout/{sessionId}',
  'POST /sandbox/checkout/{sessionId}/pay', 'POST /sandbox/checkout/{sessionId}/cancel',
  'GET /sandbox/portal/{portalSessionId}', 'POST /sandbox/portal/{portalSessionId}/card', 'POST /sandbox/portal/{portalSessionId}/cancel',
  'GET /r/{token}', 'GET /r/{token}/overlay.png', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp',
]);
const OPTIONAL_AUTH = new Set(['POST /mcp']);
/** Error responses that come from the MCP transport as JSON-RPC error objects, not problem records. */
const JSON_RPC_ERRORS = new Set(['POST /mcp 400', 'POST /mcp 403', 'POST /mcp 406', 'POST /mcp 415']);

function deref(value: unknown): Json {
  let node = value;
  while (isObject(node) && typeof node.$ref === 'string') {
    node = node.$ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), doc);
  }
  if (!isObject(node)) throw new Error(`unresolvable ${JSON.stringify(value)}`);
  return node;
}

interface Op { key: string; method: string; template: string; operation: Json; responses: Record<string, Json> }
const operations: Op[] = Object.entries(doc.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map(([method, operation]) => {
      const op = operation as Json;
      const responses = Object.fromEntries(
        Object.entries(op.responses as Json).map(([status, r]) => [status, deref(r)]),
      );
      return { key: `${method.toUpperCase()} ${template}`, method, template, operation: op, responses };
    }),
);

/** Codes (and the status const) a problem schema allows, following $ref and allOf. */
function problemConstraints(schema: unknown): { codes: string[]; statuses: number[] } {
  const node = deref(schema);
  const codes: string[] = [];
  const statuses: number[] = [];
  const props = isObject(node.properties) ? node.properties : {};
  if (isObject(props.code)) {
    if (typeof props.code.const === 'string') codes.push(props.code.const);
    if (Array.isArray(props.code.enum)) codes.push(...(props.code.enum as string[]));
  }
  if (isObject(props.status) && typeof props.status.const === 'number') statuses.push(props.status.const);
  for (const part of Array.isArray(node.allOf) ? node.allOf : []) {
    if (isObject(part) && part.$ref === '#/components/schemas/Problem') continue;
    const inner = problemConstraints(part);
    codes.push(...inner.codes);
    statuses.push(...inner.statuses);
  }
  return { codes, statuses };
}

describe('OpenAPI document', () => {
  it('parses and is OpenAPI 3.1.0, version 1.3.0, served relative to /', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.5.0');
    // One version everywhere: the MCP server announces the API's, and the chart deploys it.
    expect(MCP_SERVER_INFO.version).toBe(doc.info.version);
    const chart = readFileSync(fileURLToPath(new URL('../../../../charts/cardlens/Chart.yaml', import.meta.url)), 'utf8');
    expect(/^appVersion: "([^"]+)"$/m.exec(chart)?.[1]).toBe(doc.info.version);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(Object.isFrozen(doc)).toBe(true);
  });

  it('is a valid OpenAPI 3.1 definition', async () => {
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('documents exactly the endpoints of the spec plus our extras', () => {
    expect(operations.map((o) => o.key).sort()).toEqual([...EXPECTED_OPERATIONS].sort());
    expect(new Set(operations.map((o) => o.operation.operationId)).size).toBe(operations.length);
  });

  it('declares both security schemes', () => {
    const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  });

  it.each(EXPECTED_OPERATIONS)('%s: security matches the open/closed list', (key) => {
    const op = operations.find((o) => o.key === key)!;
    const security = op.operation.security ?? doc.security;
    if (OPEN.has(key)) expect(security).toEqual([]);
    else if (OPTIONAL_AUTH.has(key)) expect(security).toEqual([{}, { bearerAuth: [] }, { apiKeyAuth: [] }]);
    else expect(security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  });

  // Probes and the static protected-resource metadata take no input and are never rate limited (kubelets probe
  // every replica from node addresses; MCP clients read the metadata before anything else).
  const PROBES = new Set(['GET /healthz', 'GET /readyz', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp']);
  /** Errors a person's browser may get as an HTML page instead (content negotiation), beside the problem record. */
  const HTML_ERRORS = new Set(['GET /r/{token} 404']);
  it.each(EXPECTED_OPERATIONS)('%s: documents 4xx errors as problem+json with codes of the right status', (key) => {
    const op = operations.find((o) => o.key === key)!;
    const errorStatuses = Object.keys(op.responses).filter((s) => /^[45]/.test(s));
    if (!PROBES.has(key)) expect(errorStatuses.some((s) => s.startsWith('4'))).toBe(true);
    for (const status of errorStatuses) {
      const content = (op.responses[status]!.content ?? {}) as Record<string, Json>;
      if (JSON_RPC_ERRORS.has(`${key} ${status}`)) {
        expect(content['application/json']).toBeDefined();
        continue;
      }
      expect(Object.keys(content).filter((type) => !(HTML_ERRORS.has(`${key} ${status}`) && type === 'text/html'))).toEqual(['application/problem+json']);
      const { codes, statuses } = problemConstraints(content['application/problem+json']!.schema);
      expect(codes.length).toBeGreaterThan(0);
      expect(statuses).toEqual([Number(status)]);
      for (const code of codes) expect([code, BRIEF_CODES[code]]).toEqual([code, Number(status)]);
    }
    if (key !== 'POST /v1/webhooks/stripe' && !PROBES.has(key)) {
      const tooMany = op.responses['429'];
      expect(tooMany).toBeDefined();
      expect(deref((tooMany!.headers as Json)['Retry-After'])).toMatchObject({ required: true });
    }
  });

  it.each(EXPECTED_OPERATIONS.filter((k) => !OPEN.has(k) && !OPTIONAL_AUTH.has(k)))(
    '%s: authenticated successes carry X-Credits-Remaining and X-RateLimit-Policy',
    (key) => {
      const op = operations.find((o) => o.key === key)!;
      const successes = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect(successes.length).toBeGreaterThan(0);
      for (const status of successes) {
        const headers = op.responses[status]!.headers as Json;
        expect(deref(headers['X-Credits-Remaining'])).toMatchObject({ required: true, schema: { type: 'integer' } });
        expect(deref(headers['X-RateLimit-Policy'])).toMatchObject({ schema: { type: 'string' } });
      }
    },
  );

  it('lists every error code of the brief, with its status, in x-error-codes and the ErrorCode enum', () => {
    const listed = doc['x-error-codes'] as Array<{ code: string; status: number; description: string }>;
    expect(Object.fromEntries(listed.map((e) => [e.code, e.status]))).toEqual(BRIEF_CODES);
    expect(listed).toHaveLength(Object.keys(BRIEF_CODES).length);
    for (const entry of listed) expect(entry.description.length).toBeGreaterThan(3);
    const schemas = doc.components!.schemas as Record<string, Json>;
    expect([...(schemas.ErrorCode!.enum as string[])].sort()).toEqual(Object.keys(BRIEF_CODES).sort());
    const errorsTag = (doc.tags as Json[]).find((t) => t.name === 'Errors')!;
    for (const code of Object.keys(BRIEF_CODES)) expect(errorsTag.description).toContain(`\`${code}\``);
  });

  it('matches the one error table in packages/errors (codes and HTTP statuses)', () => {
    const listed = doc['x-error-codes'] as Array<{ code: string; status: number }>;
    const table = Object.fromEntries(Object.entries(errorTable).map(([code, entry]) => [code, entry.httpStatus]));
    expect(Object.fromEntries(listed.map((e) => [e.code, e.status]))).toEqual(table);
  });

  it('requires all five problem members and the insufficient_credits extras', () => {
    const schemas = doc.components!.schemas as Record<string, Json>;
    expect(schemas.Problem!.required).toEqual(['type', 'title', 'status', 'detail', 'code']);
    const extras = (schemas.InsufficientCreditsProblem!.allOf as Json[])[1]!;
    expect(extras.required).toEqual(['creditsRemaining', 'purchaseUrl']);
    expect(extras.properties).toMatchObject({ creditsRemaining: { type: 'integer' }, purchaseUrl: { type: 'string' } });
    expect(schemas.ScanAccepted!.required).toEqual(['id', 'status', 'modules', 'creditsCharged', 'creditsRemaining', 'links']);
  });

  it('documents the not-shown decisions', () => {
    const schemas = doc.components!.schemas as Record<string, Json>;
    expect(schemas.PlanKey!.enum).toEqual(['grading_5000', 'grading_10000']);
    expect(schemas.SubscriptionStatus!.enum).toEqual(['none', 'checkout_pending', 'trialing', 'active', 'past_due', 'cancelled', 'expired']);
    // null only while a grade is being reserved, or on one refunded before billing could reserve it.
    expect((schemas.GradeBase!.properties as Json).billingSource).toMatchObject({ enum: ['trial', 'subscription', null] });
    expect(schemas.ScanCreateJson!.required).toEqual(['frontImageUrl', 'modules']);
    expect(schemas.ScanCreateMultipart!.required).toEqual(['front', 'modules']);
    expect(schemas.GradingSubscription!.required).toEqual([
      'plan', 'status', 'unlimitedGrading', 'trialEndsAtUtc', 'gradesRemaining', 'monthlyAllowance',
      'currentPeriodStartUtc', 'currentPeriodEndUtc', 'cancelAtPeriodEnd', 'pendingPlan', 'pendingPlanEffectiveAtUtc',
      'gradesUsed', 'accessEndsAtUtc', 'trialRefusal',
    ]);
    const description = doc.info.description ?? '';
    for (const text of ['60 requests per minute per API key', '120 requests per minute', '5 registration attempts per hour',
      '3 new agents per 24 hours', 'global daily trial pool', '6 months', 'Deprecation', 'Sunset']) {
      expect(description).toContain(text);
    }
  });

  it('carries the MIT attribution of the catalog data', () => {
    const description = doc.info.description ?? '';
    expect(description).toMatch(/TCGdex cards database[^]*MIT License/);
    expect(description).toMatch(/JunkWaxData CardLists[^]*MIT License/);
  });

  it('describes the MCP tools and their authentication', () => {
    const mcp = operations.find((o) => o.key === 'POST /mcp')!.operation.description as string;
    for (const tool of ['register_agent', 'start_grading_trial', 'subscribe_grading', 'check_credits', 'grade_card',
      'get_grade_result', 'get_scan_result']) {
      expect(mcp).toContain(`\`${tool}\``);
    }
    expect(mcp).toContain('X-Api-Key');
  });

  it('compiles every response schema with ajv (all $refs resolve, no unknown keywords)', () => {
    expect(createOpenApiResponseValidator(doc).compileAllResponseSchemas()).toBeGreaterThan(100);
  });

  it('has examples that match their own schemas', () => {
    let checked = 0;
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [mediaType, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (!('example' in media)) continue;
          expectMatchesOpenApi(op.method, op.template, status, mediaType, media.example);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});
