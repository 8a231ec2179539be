// Test helper: checks an HTTP response against the OpenAPI document (the contract the gateway serves at
// /openapi.json; services/gateway/openapi/openapi.yaml, generated from the gateway's zod contract). Not used by any running service.
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The parts of an OpenAPI 3.1 document the validator reads. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** The gateway's document, read from its YAML source (a file, not an import: packages never import services). */
export const GATEWAY_OPENAPI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../services/gateway/openapi/openapi.yaml');

export function loadOpenApiDocument(file = GATEWAY_OPENAPI_PATH): OpenApiDocument {
  return parse(readFileSync(file, 'utf8'), { uniqueKeys: true }) as OpenApiDocument;
}

/** Response headers as plain object (Node / supertest style, any case) or a fetch `Headers`. */
export type ResponseHeaders =
  | Record<string, string | string[] | number | undefined>
  | { get(name: string): string | null };

export interface OpenApiResponseValidator {
  /** Throws (with every mismatch listed) unless the response matches the documented one. */
  expectMatchesOpenApi(
    method: string,
    path: string,
    status: number | string,
    contentType: string | null | undefined,
    body: unknown,
    headers?: ResponseHeaders,
  ): void;
  /** The documented path template for an actual path (`/v1/scans/123` -> `/v1/scans/{id}`), or undefined. */
  matchPathTemplate(path: string): string | undefined;
  /** Compiles every response body and header schema of the document; throws on an unresolvable or invalid one. */
  compileAllResponseSchemas(): number;
}

const DOC_ID = 'https://cardlens.invalid/openapi.json';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const escapePointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerToRef = (pointer: string[]) =>
  `${DOC_ID}#/${pointer.map((s) => encodeURIComponent(escapePointerSegment(s))).join('/')}`;

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  if (body instanceof Uint8Array) return body.length === 0;
  return isObject(body) && Object.keys(body).length === 0;
}

function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | number | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

function coerceHeader(raw: string, schema: unknown): unknown {
  const type = isObject(schema) ? schema.type : undefined;
  if (type === 'integer' || type === 'number') return raw.trim() === '' ? raw : Number(raw);
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('\n');
}

export function createOpenApiResponseValidator(document: OpenApiDocument): OpenApiResponseValidator {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: true,
    validateSchema: false, // the document root is not a JSON Schema; its schema objects are compiled on use
  });
  addFormats(ajv);
  // OpenAPI's own format values and schema keywords (annotations only).
  ajv.addFormat('binary', true);
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('password', true);
  ajv.addVocabulary(['discriminator', 'example', 'xml', 'externalDocs']);
  // Ajv compiles the document root when resolving a pointer into it: its OpenAPI members are no-op keywords there.
  ajv.addVocabulary(Object.keys(document).filter((key) => !ajv.getKeyword(key)));
  ajv.addSchema(document as object, DOC_ID);

  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string[]): ValidateFunction => {
    const ref = pointerToRef(pointer);
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };

  // Literal templates first, then the ones with the fewest parameters.
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{[^}]+\}/g) ?? []).length,
      regex: new RegExp(
        `^${template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('')}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);

  const matchPathTemplate = (path: string): string | undefined => {
    const bare = path.split(/[?#]/, 1)[0] ?? path;
    return templates.find((t) => t.regex.test(bare))?.template;
  };

  /** Follows a local `$ref` (components/responses, components/headers); returns the object and its pointer. */
  const resolve = (value: unknown, pointer: string[]): { node: Json; pointer: string[] } => {
    let node = value;
    let at = pointer;
    for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
      const ref = node.$ref;
      if (!ref.startsWith('#/') || hops > 10) throw new Error(`OpenAPI: unsupported $ref ${ref} at /${at.join('/')}`);
      at = ref
        .slice(2)
        .split('/')
        .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
      node = at.reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), document);
    }
    if (!isObject(node)) throw new Error(`OpenAPI: nothing at /${at.join('/')}`);
    return { node, pointer: at };
  };

  const expectMatchesOpenApi: OpenApiResponseValidator['expectMatchesOpenApi'] = (
    method,
    path,
    status,
    contentType,
    body,
    headers,
  ) => {
    const verb = method.toLowerCase();
    if (!HTTP_METHODS.has(verb)) throw new Error(`OpenAPI: ${method} is not an HTTP method`);
    const template = path in document.paths ? path : matchPathTemplate(path);
    if (!template) throw new Error(`OpenAPI: no documented path matches ${path}`);
    const pathItem = document.paths[template] as Json;
    if (!isObject(pathItem[verb])) {
      throw new Error(`OpenAPI: ${method.toUpperCase()} ${template} is not documented`);
    }
    const responses = (pathItem[verb] as Json).responses;
    const statusKey = String(status);
    const responseKey = [statusKey, `${statusKey[0]}XX`].find((k) => isObject(responses) && k in responses);
    const label = `${method.toUpperCase()} ${template} -> ${statusKey}`;
    if (!responseKey || !isObject(responses)) {
      throw new Error(
        `OpenAPI: ${label} is not documented (documented: ${isObject(responses) ? Object.keys(responses).join(', ') : 'none'})`,
      );
    }
    const response = resolve(responses[responseKey], ['paths', template, verb, 'responses', responseKey]);
    const failures: string[] = [];

    const content = response.node.content;
    const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase() || undefined;
    if (!isObject(content)) {
      if (!isEmptyBody(body)) failures.push(`a body was sent but ${label} documents none`);
    } else if (!mediaType) {
      failures.push(`no content type; documented: ${Object.keys(content).join(', ')}`);
    } else if (!isObject(content[mediaType])) {
      throw new Error(`OpenAPI: ${label} does not document content type ${mediaType} (documented: ${Object.keys(content).join(', ')})`);
    } else if (isJsonMediaType(mediaType)) {
      let value = body;
      if (typeof body === 'string' || body instanceof Uint8Array) {
        const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
        try {
          value = JSON.parse(text);
        } catch {
          failures.push(`body is not valid JSON: ${text.slice(0, 200)}`);
        }
      }
      if (failures.length === 0) {
        if (!('schema' in (content[mediaType] as Json))) {
          throw new Error(`OpenAPI: ${label} ${mediaType} has no schema`);
        }
        const validate = validatorAt([...response.pointer, 'content', mediaType, 'schema']);
        if (!validate(value)) {
          failures.push(`body does not match the schema:\n${formatErrors(validate.errors)}\n  body: ${JSON.stringify(value).slice(0, 2000)}`);
        }
      }
    } else if (mediaType === 'image/png') {
      const bytes = body instanceof Uint8Array ? body : undefined;
      if (!bytes || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) failures.push('body is not PNG bytes');
    } else if (mediaType.startsWith('text/') && typeof body !== 'string') {
      failures.push(`body of ${mediaType} is not a string`);
    }

    if (headers !== undefined && isObject(response.node.headers)) {
      for (const [name, definition] of Object.entries(response.node.headers)) {
        const header = resolve(definition, [...response.pointer, 'headers', name]);
        const raw = headerValue(headers, name);
        if (raw === undefined) {
          if (header.node.required === true) failures.push(`required header ${name} is missing`);
          continue;
        }
        if (!isObject(header.node.schema)) continue;
        const schemaNode = resolve(header.node.schema, [...header.pointer, 'schema']);
        const validate = validatorAt(header.pointer.concat('schema'));
        if (!validate(coerceHeader(raw, schemaNode.node))) {
          failures.push(`header ${name}: ${JSON.stringify(raw)} does not match:\n${formatErrors(validate.errors)}`);
        }
      }
    }

    if (failures.length > 0) {
      throw new Error(`OpenAPI mismatch for ${label}${mediaType ? ` (${mediaType})` : ''}:\n- ${failures.join('\n- ')}`);
    }
  };

  const compileAllResponseSchemas = (): number => {
    let count = 0;
    for (const [template, pathItem] of Object.entries(document.paths)) {
      for (const [verb, operation] of Object.entries(pathItem)) {
        if (!HTTP_METHODS.has(verb) || !isObject(operation) || !isObject(operation.responses)) continue;
        for (const key of Object.keys(operation.responses)) {
          const response = resolve(operation.responses[key], ['paths', template, verb, 'responses', key]);
          for (const [mediaType, media] of Object.entries(isObject(response.node.content) ? response.node.content : {})) {
            if (isObject(media) && 'schema' in media) {
              validatorAt([...response.pointer, 'content', mediaType, 'schema']);
              count++;
            }
          }
          for (const [name, definition] of Object.entries(isObject(response.node.headers) ? response.node.headers : {})) {
            const header = resolve(definition, [...response.pointer, 'headers', name]);
            validatorAt([...header.pointer, 'schema']);
            count++;
          }
        }
      }
    }
    return count;
  };

  return { expectMatchesOpenApi, matchPathTemplate, compileAllResponseSchemas };
}

let defaultValidator: OpenApiResponseValidator | undefined;
const defaults = () => (defaultValidator ??= createOpenApiResponseValidator(loadOpenApiDocument()));

/**
 * Asserts that a response matches the gateway's OpenAPI document: the operation (method + path template or actual
 * path such as `/v1/scans/123`), the status, the content type and the body schema must all be documented and match;
 * when `headers` is given, required response headers must be present and every documented header must match its
 * schema. Throws an Error listing every mismatch (so a jest test fails).
 */
export function expectMatchesOpenApi(
  method: string,
  path: string,
  status: number | string,
  contentType: string | null | undefined,
  body: unknown,
  headers?: ResponseHeaders,
): void {
  defaults().expectMatchesOpenApi(method, path, status, contentType, body, headers);
}

/** The documented path template for an actual path (`/v1/scans/123` -> `/v1/scans/{id}`), or undefined. */
export function matchPathTemplate(path: string): string | undefined {
  return defaults().matchPathTemplate(path);
}
