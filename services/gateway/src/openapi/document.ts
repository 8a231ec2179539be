import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

/** Loose shape of the OpenAPI 3.1 document: enough for serving and for the test-time response validator. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

/** services/gateway/openapi/openapi.yaml: generated from the zod contract in src/contract (`npm run generate`); served as is. */
export const OPENAPI_YAML_PATH = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** Parses an OpenAPI YAML file strictly (any YAML error or warning, e.g. a duplicate key, throws). */
export function loadOpenApiDocument(path: string = OPENAPI_YAML_PATH): OpenApiDocument {
  const source = readFileSync(path, 'utf8');
  const parsed = parseDocument(source, { uniqueKeys: true, prettyErrors: true });
  const problems = [...parsed.errors, ...parsed.warnings];
  if (problems.length > 0) {
    throw new Error(`Invalid OpenAPI YAML ${path}:\n${problems.map((p) => p.message).join('\n')}`);
  }
  const document = parsed.toJS({ maxAliasCount: -1 }) as OpenApiDocument;
  if (typeof document?.openapi !== 'string' || typeof document.paths !== 'object' || document.paths === null) {
    throw new Error(`${path} is not an OpenAPI document`);
  }
  return deepFreeze(document);
}

/** The parsed (deeply frozen) document, loaded once; serve it as JSON at GET /openapi.json. */
export const openApiDocument: OpenApiDocument = loadOpenApiDocument();
