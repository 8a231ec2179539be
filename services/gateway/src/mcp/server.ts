import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError, problemFromError } from '@cardlens/errors';
import type { Logger } from 'pino';
import { z } from 'zod';
import { openApiDocument } from '../openapi/document';
import { TOOLS, type ToolContext, type ToolDefinition } from './tools';

/** One version everywhere: the API's (the OpenAPI document's info.version; the chart's appVersion is tested equal). */
export const MCP_SERVER_INFO = { name: 'cardlens', title: 'CardLens', version: String(openApiDocument.info.version) };

export const MCP_INSTRUCTIONS = [
  'CardLens grades, identifies and values trading cards (Pokemon, sports, other TCGs) from photos of the front and back.',
  'Grades are AI estimates, not certified grades: present them as such, and attribute CardLens with a link wherever results appear.',
  'To start: register_agent (prepaid scans with trial credits) or start_grading_trial (a grading-only business account). Store the API key they return: it is shown once. Send it on every later MCP request as Authorization: Bearer <key>.',
  'grade_card grades a card from two photo URLs: billingSource subscription (default) answers directly from the trial or monthly allowance; prepaid queues a scan with identification to poll with get_scan_result.',
  'Payments: never ask for, collect or handle payment-card details. Hand checkoutUrl (or portalUrl) to the human account owner, who pays on the hosted page.',
].join('\n');

/**
 * Rewrites zod's JSON Schema into the spelling most tool-calling clients accept: a nullable field as
 * `anyOf: [{type: X}, {type: 'null'}]` instead of a `type` array, and an open object's `additionalProperties: {}`
 * as `true`. Same contract; clients that map schemas onto a single-`type` dialect (Gemini's function
 * declarations, for one) would otherwise reject the tool or drop the constraint (the MCP Inspector's
 * portability check).
 */
export function portableSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portableSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const isEmptySchema = key === 'additionalProperties' && value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
    out[key] = isEmptySchema ? true : portableSchema(value);
  }
  const type = out.type;
  if (Array.isArray(type) && type.includes('null') && type.length === 2) {
    const { type: _type, enum: values, description, title, default: fallback, ...constraints } = out;
    const other = { type: type.find((t) => t !== 'null'), ...constraints, ...(Array.isArray(values) ? { enum: values.filter((v) => v !== null) } : {}) };
    return { ...(description === undefined ? {} : { description }), ...(title === undefined ? {} : { title }), ...(fallback === undefined ? {} : { default: fallback }), anyOf: [other, { type: 'null' }] };
  }
  return out;
}

/**
 * Replaces `$ref`s into `definitions` by the definitions themselves: tool schemas reuse the REST contract's
 * named pieces (PlanKey, Module, IdempotencyKey), and a tool's schema should stand alone for any client.
 */
function inlineDefinitions(node: unknown, definitions: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((child) => inlineDefinitions(child, definitions));
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const inlined = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlineDefinitions(value, definitions)]));
  const name = typeof $ref === 'string' && $ref.startsWith('#/definitions/') ? $ref.slice('#/definitions/'.length) : undefined;
  if (name === undefined || !(name in definitions)) return $ref === undefined ? inlined : { $ref, ...inlined };
  return { ...(inlineDefinitions(definitions[name], definitions) as Record<string, unknown>), ...inlined };
}

/** JSON Schema (draft-07, which MCP clients validate with) of a tool's input or output. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _drop, definitions, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return portableSchema(inlineDefinitions(rest, (definitions ?? {}) as Record<string, unknown>)) as Tool['inputSchema'];
}

/** The REST API's RFC 9457 problem record: a tool error's structuredContent. */
const problemRecord = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.string(),
});

/**
 * A tool's declared output: its result, or (isError true) a problem record. MCP clients (the SDK's among them)
 * validate structuredContent against outputSchema on error results too, so the schema names both shapes.
 */
function outputSchema(tool: ToolDefinition): NonNullable<Tool['outputSchema']> {
  return { type: 'object', anyOf: [jsonSchema(tool.output, 'output'), jsonSchema(problemRecord, 'output')] } as NonNullable<Tool['outputSchema']>;
}

/** tools/list never changes within a process. */
const LISTED: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: `${tool.description} On failure the result has isError true and structuredContent is the API's problem record (code, status, detail).`,
  inputSchema: jsonSchema(tool.input, 'input'),
  outputSchema: outputSchema(tool),
  annotations: { title: tool.title, ...tool.annotations },
}));

/**
 * One MCP server per HTTP request (stateless Streamable HTTP), for the request's caller. The low-level SDK
 * server is used so that every tool error, malformed arguments included, is the REST API's problem record in
 * structuredContent, validated by the same use cases as REST.
 */
export function createMcpServer(ctx: ToolContext, options: { logger: Logger; onCallerBalance?: (credits: number) => void }): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: LISTED }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(request.params.name.slice(0, 64))}. Call tools/list for the tools.`);
    const args = request.params.arguments ?? {};
    try {
      const result = await runTool(tool, ctx, args);
      if (ctx.caller && options.onCallerBalance) options.onCallerBalance((await ctx.app.downstream.getBalance(ctx.caller.agentId)).credits);
      return { content: [{ type: 'text', text: result.summary }], structuredContent: result.result };
    } catch (error) {
      if (!(error instanceof AppError) || error.httpStatus >= 500) options.logger.error({ err: error, tool: tool.name }, 'MCP tool failed');
      const problem = problemFromError(ctx.app.baseUrl, error);
      return { isError: true, content: [{ type: 'text', text: `${problem.code}: ${problem.detail}` }], structuredContent: problem };
    }
  });
  return server;
}

async function runTool(tool: ToolDefinition, ctx: ToolContext, args: Record<string, unknown>) {
  if (tool.needsKey && !ctx.caller) {
    throw new AppError('invalid_api_key', `${tool.name} needs an API key: send Authorization: Bearer <key> (or X-Api-Key) on the MCP request. Get one with register_agent or start_grading_trial.`);
  }
  return tool.run(ctx, args, ctx.caller!);
}
