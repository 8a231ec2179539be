import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { loadOpenApiDocument } from '@cardlens/testing';
import { SchemaArbitraries } from './json-schema-arbitrary';
import { startStack, type Stack } from './stack';

// Property-based fuzz of every operation the OpenAPI document describes, against the whole embedded stack
// (HTTP → gateway → gRPC → services → PGlite). Requests are derived from the document's own schemas: valid ones,
// and invalid variants (wrong types, missing and unknown members, oversized strings, malformed JSON, wrong
// content types, bad headers and path segments). Every response must be documented (status, content type, body
// and headers: stack.call checks each against the document) and none may be a server error.
//
// Reproduce a failure with the seed it prints: CONTRACT_FUZZ_SEED=<seed> (CONTRACT_FUZZ_RUNS for more runs per
// operation, default 40; CONTRACT_FUZZ_LOG=<file> to log every request and answer).

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261129);
const NUM_RUNS = Number(process.env.CONTRACT_FUZZ_RUNS ?? 40);
/** CONTRACT_FUZZ_LOG=<file>: every request and answer, one line each (to see what the runs cover). */
const LOG_FILE = process.env.CONTRACT_FUZZ_LOG;
const log = (line: string) => {
  if (LOG_FILE) appendFileSync(LOG_FILE, `${line}\n`);
};
/** 5xx answers that are the documented outcome of a valid request here, not a failure: the token rail is off. */
const EXPECTED_SERVER_ANSWERS = new Set(['501 spt_not_enabled']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const document = loadOpenApiDocument() as unknown as Json & { paths: Record<string, Record<string, Json>> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations = Object.entries(document.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${template}`, method: method.toUpperCase(), template, operation })),
);

interface FuzzRequest {
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  form?: Record<string, unknown>;
}

/** Header values fetch can send: printable ASCII only. */
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

let ipCounter = 0;
/** A different client address per request (the proxy hop is trusted in the stack), so per-IP limits stay out of the way. */
const nextIp = () => `198.51.${Math.floor(++ipCounter / 250) % 250}.${ipCounter % 250}`;

describe('contract fuzz: every documented operation, requests derived from the document', () => {
  let stack: Stack;
  let images: Server;
  let origin: string;
  let apiKey: string;
  let arbitraries: SchemaArbitraries;
  let imageBytes: fc.Arbitrary<Buffer>;

  beforeAll(async () => {
    const png = await sharp({ create: { width: 300, height: 420, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
    const jpeg = await sharp({ create: { width: 240, height: 320, channels: 3, background: { r: 200, g: 180, b: 60 } } }).jpeg().toBuffer();
    const garbage = Buffer.from('definitely not an image \u0000\u0001\u0002', 'utf8');
    images = createServer((req, res) => {
      const body = req.url === '/card.png' ? png : req.url === '/card.jpg' ? jpeg : req.url === '/garbage.bin' ? garbage : undefined;
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': req.url === '/card.jpg' ? 'image/jpeg' : req.url === '/card.png' ? 'image/png' : 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    stack = await startStack('embedded', {
      IMAGE_FETCH_ALLOW_LOOPBACK: 'true',
      IMAGE_FETCH_TIMEOUT_MS: '2000',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
      RATE_LIMIT_OPEN_PER_MINUTE: '1000000',
      RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR: '1000000',
      RATE_LIMIT_NEW_AGENTS_PER_DAY: '1000000',
    });
    const registered = await stack.call('POST', '/v1/agents', { body: { name: 'contract fuzz', contactEmail: 'fuzz@example.com' }, ip: nextIp() });
    expect(registered.status).toBe(201);
    apiKey = String(registered.json.apiKey);

    imageBytes = fc.constantFrom(png, jpeg, garbage, Buffer.alloc(0));
    arbitraries = new SchemaArbitraries(document, {
      uri: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(`${origin}/card.png`, `${origin}/card.jpg`, `${origin}/garbage.bin`, `${origin}/missing.png`) },
        { weight: 1, arbitrary: fc.constantFrom('/relative.jpg', 'ftp://files.example/card.png', 'not a url', 'http://10.0.0.7/x.jpg', '') },
      ),
      binary: imageBytes,
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    images?.closeAllConnections();
    await new Promise((resolve) => images?.close(resolve));
  });

  /** A request for one operation: parameters, credentials and a body from the document's schemas. */
  function requestFor(template: string, operation: Json): fc.Arbitrary<FuzzRequest> {
    const parameters = ((operation.parameters as unknown[] | undefined) ?? []).map((p) => arbitraries.resolve(p));
    const pathParams = parameters.filter((p) => p.in === 'path');
    const queryParams = parameters.filter((p) => p.in === 'query');
    // Accept has an arbitrary of its own below (every operation sends one).
    const headerParams = parameters.filter((p) => p.in === 'header' && String(p.name).toLowerCase() !== 'accept');

    const segment = (schema: unknown) =>
      fc
        .oneof(
          { weight: 3, arbitrary: arbitraries.valid(schema).map(String) },
          { weight: 1, arbitrary: fc.oneof(fc.constantFrom('0', '-1', 'abc', '99999999999999999999', 'x'.repeat(300), 'grade_12'), fc.string({ minLength: 1, maxLength: 20 })) },
        )
        .filter((s) => s !== '.' && s !== '..' && s.length > 0)
        .map(encodeURIComponent);
    const path = fc
      .record(Object.fromEntries(pathParams.map((p) => [String(p.name), segment(p.schema)])))
      .map((values) => template.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? 'x'));
    const query = fc
      .record(
        Object.fromEntries(queryParams.map((p) => [String(p.name), fc.oneof(arbitraries.valid(p.schema).map(String), fc.string({ maxLength: 30 }))])),
        { requiredKeys: [] },
      )
      .map((values) => new URLSearchParams(values as Record<string, string>).toString());
    const headerValues = fc.record(
      Object.fromEntries(
        headerParams.map((p) => [
          String(p.name),
          fc.oneof(
            // Header values are byte strings: a schema without a pattern gets printable ASCII of its own.
            { weight: 3, arbitrary: typeof arbitraries.resolve(p.schema).pattern === 'string' ? arbitraries.valid(p.schema).map(String) : headerText(80) },
            { weight: 1, arbitrary: headerText(80) },
          ),
        ]),
      ),
      { requiredKeys: [] },
    );

    const security = (operation.security ?? document.security) as Json[];
    const keyOptional = security.some((requirement) => Object.keys(requirement).length === 0);
    const auth = fc.oneof(
      { weight: security.length === 0 ? 1 : keyOptional ? 3 : 12, arbitrary: fc.constantFrom<Record<string, string>>({ Authorization: `Bearer ${apiKey}` }, { 'X-Api-Key': apiKey }) },
      { weight: 2, arbitrary: fc.constant<Record<string, string>>({}) },
      { weight: 1, arbitrary: headerText(60).map((junk) => ({ Authorization: `Bearer ${junk}` })) },
    );
    // /mcp needs both media types in Accept (406 otherwise); the rest take anything.
    const accept =
      template === '/mcp'
        ? fc.oneof({ weight: 4, arbitrary: fc.constant('application/json, text/event-stream') }, { weight: 1, arbitrary: fc.constantFrom('application/json', '*/*') })
        : fc.constantFrom('*/*', 'application/json');

    const requestBody = operation.requestBody ? arbitraries.resolve(operation.requestBody) : undefined;
    const content = isObject(requestBody?.content) ? (requestBody.content as Record<string, Json>) : {};
    const bodies: fc.Arbitrary<Partial<FuzzRequest>>[] = Object.entries(content).flatMap(([mediaType, media]): fc.Arbitrary<Partial<FuzzRequest>>[] => {
      const schema = media.schema;
      const values = fc.oneof({ weight: 3, arbitrary: arbitraries.valid(schema) }, { weight: 1, arbitrary: arbitraries.invalid(schema) });
      if (mediaType === 'application/json') return [values.map((body) => ({ body: body === undefined ? null : body }))];
      if (mediaType === 'multipart/form-data') return [values.map((fields) => ({ form: isObject(fields) ? fields : { front: fields } }))];
      if (mediaType === 'application/x-www-form-urlencoded') {
        return [
          values.map((fields) => ({
            rawBody: new URLSearchParams(Object.entries(isObject(fields) ? fields : {}).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString(),
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          })),
        ];
      }
      return [];
    });
    const broken: fc.Arbitrary<Partial<FuzzRequest>> = fc.oneof(
      fc.constantFrom('{"unterminated":', '[1,2', '', 'null', '"x"').map((rawBody) => ({ rawBody, headers: { 'Content-Type': 'application/json' } })),
      fc.string({ maxLength: 50 }).map((rawBody) => ({ rawBody, headers: { 'Content-Type': 'text/plain' } })),
      fc.constant({ rawBody: JSON.stringify({ pad: 'p'.repeat(70_000) }), headers: { 'Content-Type': 'application/json' } }),
    );
    const body: fc.Arbitrary<Partial<FuzzRequest>> =
      bodies.length === 0
        ? fc.constant({})
        : fc.oneof(
            { weight: 8, arbitrary: fc.oneof(...bodies) },
            { weight: 1, arbitrary: broken },
            { weight: requestBody?.required === true ? 1 : 2, arbitrary: fc.constant({}) },
          );

    return fc.tuple(path, query, headerValues, auth, accept, body).map(([p, q, h, a, acc, b]) => ({
      path: q ? `${p}?${q}` : p,
      headers: { Accept: acc, ...h, ...a, ...(b.headers ?? {}) },
      ...(b.body !== undefined ? { body: b.body } : {}),
      ...(b.rawBody !== undefined ? { rawBody: b.rawBody } : {}),
      ...(b.form !== undefined ? { form: b.form } : {}),
    }));
  }

  function describeBody(request: FuzzRequest): string {
    if (request.form) return `form ${JSON.stringify(Object.keys(request.form))}`;
    if (request.body !== undefined) return `json ${JSON.stringify(request.body).slice(0, 120)}`;
    return request.rawBody !== undefined ? `raw ${JSON.stringify(request.rawBody.slice(0, 60))}` : 'no body';
  }

  function formData(fields: Record<string, unknown>): FormData {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      if (value instanceof Uint8Array) form.append(name, new Blob([new Uint8Array(value)]), `${name}.bin`);
      else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    return form;
  }

  it('documents at least the operations of the REST API', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it.each(operations.map((o) => [o.key, o] as const))(
    '%s: no server error, every answer as documented',
    async (_key, { method, template, operation }) => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(requestFor(template, operation), async (request) => {
          log(`> ${method} ${request.path.slice(0, 100)} ${JSON.stringify(request.headers).slice(0, 160)} ${describeBody(request)}`);
          const response = await stack.call(method, request.path, {
            headers: request.headers,
            ip: nextIp(),
            ...(request.body !== undefined ? { body: request.body } : {}),
            ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
            ...(request.form !== undefined ? { form: formData(request.form) } : {}),
          });
          log(`< ${response.status} ${String(response.json.code ?? '')}`);
          if (response.status >= 500 && !EXPECTED_SERVER_ANSWERS.has(`${response.status} ${String(response.json.code)}`)) {
            throw new Error(`server error ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
          }
        }),
        { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
      );
      // One operation's share of the budget: the whole suite stays well under two minutes.
      expect(Date.now() - started).toBeLessThan(60_000);
    },
    90_000,
  );
});
