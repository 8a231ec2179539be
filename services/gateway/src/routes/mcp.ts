import { Router, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import type { AppContext, Caller } from '../application/context';
import { parameters } from '../contract/operations';
import { hasPresentedApiKey, presentedApiKey } from '../http/api-key';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow } from '../http/rate-limits';
import { methodNotAllowed } from '../http/request';
import { createMcpServer } from '../mcp/server';

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless, JSON responses (no session, no server
 * stream; GET and DELETE are 405). The key is optional at the HTTP level: with one, it is authenticated (an
 * invalid key is HTTP 401 for the whole request) and each JSON-RPC message of the request (a batch holds several)
 * spends one point of the per-key limit, as a REST request does; without one, the per-IP open limit applies the
 * same way and only the account-creating tools work. A batch that needs more points than are left is refused
 * whole (429).
 */
export function mcpRoutes(app: AppContext, logger: Logger): Router {
  const router = Router();
  const dnsRebindingProtection = { enableDnsRebindingProtection: true, allowedHosts: allowedHosts(app.baseUrl), allowedOrigins: [new URL(app.baseUrl).origin] };
  router
    .route('/mcp')
    .post(async (req: Request, res: Response) => {
      const ip = clientIp(req);
      // A JSON-RPC batch carries several calls in one POST: each counts against the limit, as a REST request does.
      const calls = Array.isArray(req.body) ? Math.max(1, req.body.length) : 1;
      let caller: Caller | undefined;
      if (hasPresentedApiKey(req)) {
        const agent = await app.downstream.authenticateApiKey(presentedApiKey(req));
        caller = agent;
        await consumeOrThrow(app.limiters.perKey, `agent:${agent.agentId}`, res, calls);
        // A tool call may move the balance (grade_card): the agent's next REST read asks billing again.
        res.once('close', () => app.downstream.forgetAgentViews(agent.agentId));
        res.setHeader('X-RateLimit-Policy', app.limiters.perKey.policy);
      } else {
        await consumeOrThrow(app.limiters.open, ip, res, calls);
        res.setHeader('X-RateLimit-Policy', app.limiters.open.policy);
      }
      // The Accept the contract documents (parameters.McpAccept), answered as the MCP transport answers it.
      if (!parameters.McpAccept.schema.safeParse(req.get('accept') ?? '').success) {
        res.status(406).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' }, id: null });
        return;
      }
      const server = createMcpServer(
        { app, caller, clientIp: ip },
        { logger, onCallerBalance: (credits) => (res.headersSent ? undefined : res.setHeader('X-Credits-Remaining', String(credits))) },
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, ...dnsRebindingProtection });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })
    .all(methodNotAllowed('POST'));
  return router;
}

/**
 * The Host values /mcp answers to (DNS-rebinding protection, as the MCP transport recommends): the public base
 * URL's host; for a loopback base URL (the embedded mode), every loopback name with its port. A request from a
 * page on another origin (an Origin header that is not ours) is refused too: keys never belong in browser code.
 */
function allowedHosts(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'];
  if (!loopback.includes(url.hostname)) return [url.host];
  return loopback.map((name) => (url.port ? `${name}:${url.port}` : name));
}
