import { Router, type Request, type Response } from 'express';
import { AppError, errorTable } from '@cardlens/errors';
import { openApiDocument } from '../openapi/document';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow, type RateLimiters } from '../http/rate-limits';
import { methodNotAllowed } from '../http/request';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Open endpoints for people and probes: the OpenAPI document, the error catalogue, health and readiness. */
export function docsRoutes(deps: { baseUrl: string; limiters: RateLimiters; readiness: () => Promise<Record<string, 'ok' | 'fail' | 'degraded'>> }): Router {
  const router = Router();
  const document = { ...openApiDocument, servers: [{ url: deps.baseUrl }] };

  router
    .route('/openapi.json')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(deps.limiters.open, clientIp(req), req.res);
      res.json(document);
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/api-docs')
    .get((_req: Request, res: Response) => {
      res.type('html').send(page('CardLens API', `
        <p>Machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1, version ${escapeHtml(String(openApiDocument.info.version))}).</p>
        <p>Error codes: <a href="/api-docs/errors">/api-docs/errors</a>. MCP server: <code>POST /mcp</code>.</p>
        <p>Grades are AI estimates, not certified grades. Catalog data: TCGdex cards database and JunkWaxData CardLists (MIT licence).</p>`));
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/api-docs/errors')
    .get((_req: Request, res: Response) => {
      const rows = Object.entries(errorTable)
        .map(([code, e]) => `<tr id="${code}"><td><code>${code}</code></td><td>${e.httpStatus}</td><td>${escapeHtml(e.title)}</td></tr>`)
        .join('\n');
      res.type('html').send(page('CardLens error codes', `
        <p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> and the stable <code>code</code> below.</p>
        <table><thead><tr><th>code</th><th>HTTP status</th><th>title</th></tr></thead><tbody>${rows}</tbody></table>`));
    })
    .all(methodNotAllowed('GET'));

  // OAuth 2.0 Protected Resource Metadata (RFC 9728), where 401s point (WWW-Authenticate resource_metadata) and
  // where the MCP authorization spec looks. There is no authorization server: keys come from self-registration
  // (POST /v1/agents, or the MCP tool register_agent), named in an extension member.
  const resourceMetadata = (resource: string) => ({
    resource,
    resource_name: 'CardLens',
    resource_documentation: `${deps.baseUrl}/api-docs`,
    bearer_methods_supported: ['header'],
    cardlens_api_key_registration: `${deps.baseUrl}/v1/agents`,
  });
  for (const [path, resource] of [
    ['/.well-known/oauth-protected-resource', deps.baseUrl],
    ['/.well-known/oauth-protected-resource/mcp', `${deps.baseUrl}/mcp`],
  ] as const) {
    router
      .route(path)
      .get((_req: Request, res: Response) => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.json(resourceMetadata(resource));
      })
      .all(methodNotAllowed('GET'));
  }

  // Liveness: the process answers. Readiness: the services behind it are reachable.
  router.route('/healthz').get((_req: Request, res: Response) => void res.json({ status: 'ok' })).all(methodNotAllowed('GET'));
  router
    .route('/readyz')
    .get(async (_req: Request, res: Response) => {
      const checks = await deps.readiness();
      // degraded (rate limits per replica while Redis is down) still serves: only a failing check is not ready.
      if (Object.values(checks).some((c) => c === 'fail')) {
        throw new AppError('service_unavailable', 'A backing service is not reachable yet.', { extras: checks });
      }
      res.json({ status: 'ready', checks });
    })
    .all(methodNotAllowed('GET'));
  return router;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
