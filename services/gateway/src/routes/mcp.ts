import { Router, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import type { AppContext, Caller } from '../application/context';
import { hasPresentedApiKey, presentedApiKey } from '../http/api-key';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow } from '../http/rate-limits';
import { methodNotAllowed } from '../http/request';
import { createMcpServer } from '../mcp/server';

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless, JSON responses (no session, no server
 * stream; GET and DELETE are 405). The key is optional at the HTTP level: with one, it is authenticated (an
 * invalid key is HTTP 401 for the whole request) and the request spends one point of the per-key limit, like any
 * REST request; without one, the per-IP open limit applies and only the account-creating tools work.
 */
export function mcpRoutes(app: AppContext, logger: Logger): Router {
  const router = Router();
  router
    .route('/mcp')
    .post(async (req: Request, res: Response) => {
      const ip = clientIp(req);
      let caller: Caller | undefined;
      if (hasPresentedApiKey(req)) {
        caller = await app.downstream.authenticateApiKey(presentedApiKey(req));
        await consumeOrThrow(app.limiters.perKey, `agent:${caller.agentId}`);
        res.setHeader('X-RateLimit-Policy', app.limiters.perKey.policy);
      } else {
        await consumeOrThrow(app.limiters.open, ip);
        res.setHeader('X-RateLimit-Policy', app.limiters.open.policy);
      }
      const server = createMcpServer(
        { app, caller, clientIp: ip },
        { logger, onCallerBalance: (credits) => (res.headersSent ? undefined : res.setHeader('X-Credits-Remaining', String(credits))) },
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
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
