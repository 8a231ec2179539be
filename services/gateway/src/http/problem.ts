import type { Response } from 'express';
import { AppError, PROBLEM_CONTENT_TYPE, problemFromError, toClientError } from '@cardlens/errors';

/**
 * Where the protected-resource metadata (RFC 9728) of a path is: /mcp has its own (the MCP authorization spec
 * looks for it there), every other path shares the API's.
 */
export function resourceMetadataUrl(baseUrl: string, path: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource${path === '/mcp' ? '/mcp' : ''}`;
}

/** Writes any error as RFC 9457 problem+json. Unknown errors become a generic 500, or a 503 for a dropped connection (problemFromError). */
export function sendProblem(res: Response, baseUrl: string, error: unknown): void {
  const problem = problemFromError(baseUrl, error);
  // A transient failure says when to retry (the thrower's figure, else its code's), a dropped connection too.
  const retryAfterSeconds = toClientError(error).retryAfterSeconds;
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  if (problem.code === 'method_not_allowed' && error instanceof AppError && typeof error.extras.allow === 'string') {
    res.setHeader('Allow', error.extras.allow);
    delete problem.allow;
  }
  // RFC 9110 §11.6.1: a 401 names the scheme (an API key as a Bearer token, REST and /mcp alike), and RFC 9728
  // §5.1 where the resource's metadata is, so standard clients (MCP's included) can discover both.
  if (problem.status === 401) {
    res.setHeader('WWW-Authenticate', `Bearer realm="CardLens", resource_metadata="${resourceMetadataUrl(baseUrl, res.req.path)}"`);
  }
  // The id the client can quote to support: X-Request-Id, the trace id.
  const requestId = res.locals.requestId as string | undefined;
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(requestId ? { ...problem, requestId } : problem));
}
