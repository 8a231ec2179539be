import type { Request } from 'express';
import { AppError } from '@cardlens/errors';

const URL_KEY_PARAMS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token', 'x-api-key', 'x_api_key']);

/** A query parameter that carries a key, however it is spelled: `api_key`, `API_KEY`, `api_key[]`, `apiKey[0]`... */
function isUrlKeyParam(name: string): boolean {
  return URL_KEY_PARAMS.has(name.replace(/\[.*$/, '').trim().toLowerCase());
}

/** Whether the request presents a key at all (a header, or a refused URL parameter): MCP's key is optional. */
export function hasPresentedApiKey(req: Request): boolean {
  return req.get('authorization') !== undefined || req.get('x-api-key') !== undefined || Object.keys(req.query).some(isUrlKeyParam);
}

/**
 * Reads the key from `Authorization: Bearer <key>` or `X-Api-Key`. Keys in the URL are refused outright:
 * URLs end up in logs, proxies and browser history.
 */
export function presentedApiKey(req: Request): string {
  if (Object.keys(req.query).some(isUrlKeyParam)) {
    throw new AppError('invalid_api_key', 'API keys are never accepted in URLs. Send Authorization: Bearer <key> or X-Api-Key.');
  }
  const header = req.get('authorization');
  let bearer: string | undefined;
  if (header !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <key>".');
    bearer = match[1];
  }
  const apiKey = req.get('x-api-key')?.trim();
  // Two different keys in one request name two callers: refuse rather than pick one.
  if (bearer !== undefined && apiKey && apiKey !== bearer) {
    throw new AppError('invalid_api_key', 'The request carries two different API keys (Authorization and X-Api-Key). Send one.');
  }
  const key = bearer ?? apiKey;
  if (key) return key;
  throw new AppError('invalid_api_key', 'An API key is required: send Authorization: Bearer <key> or X-Api-Key.');
}
