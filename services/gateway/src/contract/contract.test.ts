import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { AppError, errorTable } from '@cardlens/errors';
import { OPENAPI_YAML_PATH } from '../openapi/document';
import { renderOpenApiYaml } from './render';
import { AgentRegistrationRequest, GradeCreateJson, PlanRequest, PurchaseRequest, ScanCreateJson, ScanCreateMultipart } from './schemas';
import { parameters } from './operations';
import { parseRequest } from './validate';

const codeOf = (run: () => unknown): { code: string; detail: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, detail: error.detail };
    throw error;
  }
  throw new Error('no error');
};
const BODY = { label: 'The request body', rootDetail: 'The request body must be a JSON object.' };

describe('the zod contract', () => {
  it('is what openapi/openapi.yaml says (run `npm run generate -w @cardlens/gateway` after changing it)', () => {
    expect(readFileSync(OPENAPI_YAML_PATH, 'utf8')).toBe(renderOpenApiYaml());
  });

  it('takes every problem status from errorTable', () => {
    const yaml = renderOpenApiYaml();
    expect(yaml).toContain(`status: ${errorTable.insufficient_credits.httpStatus}`);
  });
});

describe('request validation by the contract schemas', () => {
  const url = 'https://images.example.com/front.jpg';

  it.each([
    ['not an object', [1], 'invalid_body'],
    ['missing frontImageUrl', { modules: 'identify' }, 'missing_front_image'],
    ['null frontImageUrl', { frontImageUrl: null, modules: 'identify' }, 'missing_front_image'],
    ['frontImageUrl not a string', { frontImageUrl: 7, modules: 'identify' }, 'invalid_body'],
    ['relative frontImageUrl', { frontImageUrl: '/front.jpg', modules: 'identify' }, 'invalid_image_url'],
    ['backImageUrl not a string', { frontImageUrl: url, backImageUrl: 3, modules: 'identify' }, 'invalid_body'],
    ['missing modules', { frontImageUrl: url }, 'invalid_modules'],
    ['empty modules', { frontImageUrl: url, modules: [] }, 'invalid_modules'],
    ['unknown module', { frontImageUrl: url, modules: ['identify', 'price'] }, 'invalid_modules'],
    ['deep', { frontImageUrl: url, modules: ['deep'] }, 'deep_unsupported'],
    ['missing front wins over deep', { modules: ['deep'] }, 'missing_front_image'],
  ])('POST /v1/scans JSON, %s → %s', (_label, body, code) => {
    expect(codeOf(() => parseRequest(ScanCreateJson, body, BODY)).code).toBe(code);
  });

  it('accepts a valid scan body and leaves the module list to parseModules', () => {
    expect(parseRequest(ScanCreateJson, { frontImageUrl: url, backImageUrl: null, modules: 'identify grade', extra: 1 }, BODY)).toEqual({
      frontImageUrl: url,
      backImageUrl: null,
      modules: 'identify grade',
    });
  });

  it('checks multipart text fields and files', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(codeOf(() => parseRequest(ScanCreateMultipart, { modules: 'identify' })).code).toBe('missing_front_image');
    expect(codeOf(() => parseRequest(ScanCreateMultipart, { front: 'not bytes', modules: 'identify' })).code).toBe('invalid_body');
    expect(codeOf(() => parseRequest(ScanCreateMultipart, { front: bytes })).code).toBe('invalid_modules');
    expect(parseRequest(ScanCreateMultipart, { front: bytes, modules: 'identify,deep' }).modules).toBe('identify,deep');
  });

  it.each([
    ['missing back', { frontImageUrl: url }, 'missing_back_image'],
    ['null back', { frontImageUrl: url, backImageUrl: null }, 'missing_back_image'],
    ['another module', { frontImageUrl: url, backImageUrl: url, modules: 'identify' }, 'subscription_grading_only'],
    ['unknown module', { frontImageUrl: url, backImageUrl: url, modules: 'polish' }, 'invalid_modules'],
  ])('POST /v1/grades JSON, %s → %s', (_label, body, code) => {
    expect(codeOf(() => parseRequest(GradeCreateJson, body, BODY)).code).toBe(code);
  });

  it('maps plan, pack and registration mistakes to their codes, with a detail naming the field', () => {
    expect(codeOf(() => parseRequest(PlanRequest, {}, BODY))).toMatchObject({ code: 'invalid_plan', detail: expect.stringContaining('grading_5000, grading_10000') });
    expect(codeOf(() => parseRequest(PlanRequest, { plan: 'gold' }, BODY)).code).toBe('invalid_plan');
    expect(codeOf(() => parseRequest(PlanRequest, ['grading_5000'], BODY)).code).toBe('invalid_body');
    expect(codeOf(() => parseRequest(PurchaseRequest, {}, BODY)).code).toBe('invalid_pack');
    expect(codeOf(() => parseRequest(PurchaseRequest, { pack: 7 }, BODY)).code).toBe('invalid_body');
    expect(codeOf(() => parseRequest(PurchaseRequest, { pack: 'starter', sharedPaymentToken: '' }, BODY)).code).toBe('invalid_body');
    expect(codeOf(() => parseRequest(AgentRegistrationRequest, { name: 'a\u0007b' }, BODY))).toMatchObject({ code: 'invalid_body', detail: expect.stringMatching(/^name/) });
    expect(codeOf(() => parseRequest(AgentRegistrationRequest, { name: 'x', operatorUrl: 'ftp://x.example' }, BODY)).detail).toMatch(/operatorUrl/);
    expect(codeOf(() => parseRequest(AgentRegistrationRequest, { name: 'x', contactEmail: 'nope' }, BODY)).detail).toMatch(/contactEmail/);
    expect(parseRequest(AgentRegistrationRequest, { name: '  bot  ' }, BODY)).toEqual({ name: 'bot', commercialOnly: false });
  });

  it('checks the Idempotency-Key header by its documented schema', () => {
    expect(codeOf(() => parseRequest(parameters.IdempotencyKeyRequired.schema, 'not a key')).code).toBe('invalid_idempotency_key');
    expect(codeOf(() => parseRequest(parameters.IdempotencyKeyRequired.schema, 'x'.repeat(65))).code).toBe('invalid_idempotency_key');
    expect(parseRequest(parameters.IdempotencyKeyRequired.schema, 'key_1-A')).toBe('key_1-A');
  });
});
