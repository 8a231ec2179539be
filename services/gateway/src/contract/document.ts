// Builds the OpenAPI 3.1 document from the zod contract (./schemas.ts, ./operations.ts, ./info.ts). The generator
// (scripts/generate-openapi.ts) writes it to openapi/openapi.yaml, which the gateway serves and CI checks for drift.
import { z } from 'zod';
import { errorTable } from '@cardlens/errors';
import { xErrorCodes } from './errors';
import { defaultSecurity, info, rateLimitPolicies, servers, tags } from './info';
import {
  headers as sharedHeaders,
  isProblemResponse,
  operations,
  parameters as sharedParameters,
  responses as sharedResponses,
  securitySchemes,
  type ContentSpec,
  type HeaderSpec,
  type OperationSpec,
  type ParameterSpec,
  type ResponseSpec,
} from './operations';

type Json = Record<string, unknown>;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Drops the safe-integer bounds zod adds to every z.int(): they say nothing to a reader or a client. */
function tidy(node: Json): void {
  if (node.type !== 'integer') return;
  if (node.maximum === MAX_SAFE) delete node.maximum;
  if (node.minimum === -MAX_SAFE) delete node.minimum;
}

/**
 * Points zod's `$defs` references at components, and unescapes `\/` in patterns (an escape the regex literals of
 * the contract need, not the pattern).
 */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string'
        ? child.replace(/^#\/\$defs\//, '#/components/schemas/')
        : key === 'pattern' && typeof child === 'string'
          ? child.replace(/\\\//g, '/')
          : rewriteRefs(child),
    ]),
  );
}

/** Collects component schemas while converting; every schema with a meta id becomes #/components/schemas/<id>. */
class SchemaCollector {
  readonly components: Record<string, unknown> = {};

  convert(schema: z.ZodType): Json {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      // Input shapes: z.object() stays open (no additionalProperties: false), as clients must ignore unknown fields.
      io: 'input',
      unrepresentable: 'any',
      override: (ctx) => tidy(ctx.jsonSchema as Json),
    }) as Json;
    const { $schema: _ignored, $defs, ...root } = converted;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Json)) {
      const rewritten = rewriteRefs(definition);
      const known = this.components[id];
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(rewritten)) {
        throw new Error(`two different schemas carry the id ${id}`);
      }
      this.components[id] = rewritten;
    }
    return rewriteRefs(root) as Json;
  }
}

/** The name under which a shared object is a component, found by identity. */
function nameOf(record: Record<string, unknown>, value: unknown): string | undefined {
  return Object.entries(record).find(([, candidate]) => candidate === value)?.[0];
}

export function buildOpenApiDocument(): Json {
  const schemas = new SchemaCollector();

  const header = (spec: HeaderSpec): Json => {
    const name = nameOf(sharedHeaders, spec);
    if (name) return { $ref: `#/components/headers/${name}` };
    return headerObject(spec);
  };
  const headerObject = (spec: HeaderSpec): Json => ({
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    ...(spec.required !== undefined ? { required: spec.required } : {}),
    schema: schemas.convert(spec.schema),
  });
  const headerMap = (map: Record<string, HeaderSpec> | undefined) =>
    map ? { headers: Object.fromEntries(Object.entries(map).map(([name, spec]) => [name, header(spec)])) } : {};

  const parameterObject = (spec: ParameterSpec): Json => ({
    name: spec.name,
    in: spec.in,
    required: spec.required,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    schema: schemas.convert(spec.schema),
  });
  const parameter = (spec: ParameterSpec): Json => {
    const name = nameOf(sharedParameters, spec);
    return name ? { $ref: `#/components/parameters/${name}` } : parameterObject(spec);
  };

  const content = (map: Record<string, ContentSpec>): Json =>
    Object.fromEntries(
      Object.entries(map).map(([mediaType, media]) => [
        mediaType,
        { schema: schemas.convert(media.schema), ...(media.example !== undefined ? { example: media.example } : {}) },
      ]),
    );

  const statusOf = (response: ResponseSpec): string =>
    isProblemResponse(response) ? String(errorTable[response.codes[0]].httpStatus) : response.status;

  const responseObject = (response: ResponseSpec): Json => {
    if (isProblemResponse(response)) {
      return {
        description: response.description,
        ...headerMap(response.headers),
        content: {
          'application/problem+json': {
            schema: schemas.convert(response.schema),
            ...(response.example !== undefined ? { example: response.example } : {}),
          },
          ...(response.otherContent ? content(response.otherContent) : {}),
        },
      };
    }
    return {
      description: response.description,
      ...headerMap(response.headers),
      ...(response.content ? { content: content(response.content) } : {}),
    };
  };

  const operation = (spec: OperationSpec): Json => {
    const responses: Json = {};
    for (const response of spec.responses) {
      const status = statusOf(response);
      if (status in responses) throw new Error(`${spec.operationId}: two responses for ${status}`);
      const name = nameOf(sharedResponses, response);
      responses[status] = name ? { $ref: `#/components/responses/${name}` } : responseObject(response);
    }
    return {
      tags: spec.tags,
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      ...(spec.security !== undefined ? { security: spec.security } : {}),
      ...(spec.parameters ? { parameters: spec.parameters.map(parameter) } : {}),
      ...(spec.requestBody
        ? {
            requestBody: {
              ...(spec.requestBody.description !== undefined ? { description: spec.requestBody.description } : {}),
              required: spec.requestBody.required,
              content: content(spec.requestBody.content),
            },
          }
        : {}),
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    };
  };

  const paths: Record<string, Json> = {};
  const operationIds = new Set<string>();
  for (const spec of operations) {
    if (operationIds.has(spec.operationId)) throw new Error(`duplicate operationId ${spec.operationId}`);
    operationIds.add(spec.operationId);
    const item = (paths[spec.path] ??= {});
    if (spec.method in item) throw new Error(`${spec.method.toUpperCase()} ${spec.path} is listed twice`);
    item[spec.method] = operation(spec);
  }

  const componentParameters = Object.fromEntries(
    Object.entries(sharedParameters).map(([name, spec]) => [name, parameterObject(spec)]),
  );
  const componentHeaders = Object.fromEntries(Object.entries(sharedHeaders).map(([name, spec]) => [name, headerObject(spec)]));
  const componentResponses = Object.fromEntries(
    Object.entries(sharedResponses).map(([name, spec]) => [name, responseObject(spec as ResponseSpec)]),
  );

  return {
    openapi: '3.1.0',
    info,
    servers,
    security: defaultSecurity,
    tags,
    'x-error-codes': xErrorCodes(),
    'x-rate-limit-policies': rateLimitPolicies,
    paths,
    components: {
      securitySchemes,
      parameters: componentParameters,
      headers: componentHeaders,
      responses: componentResponses,
      schemas: Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
