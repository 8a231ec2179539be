import type { Request } from 'express';
import { AppError } from '@cardlens/errors';

const URL_KEY_PARAMS = ['api_key', 'apikey', 'apiKey', 'key', 'token', 'access_token'];

/** Whether the request presents a key at all (a header, or a refused URL parameter): MCP's key is optional. */
export function hasPresentedApiKey(req: Request): boolean {
  return req.get('authorization') !== undefined || req.get('x-api-key') !== undefined || URL_KEY_PARAMS.some((name) => Object.hasOwn(req.query, name));
}

/**
 * Reads the key from `Authorization: Bearer <key>` or `X-Api-Key`. Keys in the URL are refused outright:
 * URLs end up in logs, proxies and browser history.
 */
export function presentedApiKey(req: Request): string {
  for (const name of URL_KEY_PARAMS) {
    if (Object.hasOwn(req.query, name)) {
      throw new AppError('invalid_api_key', 'API keys are never accepted in URLs. Send Authorization: Bearer <key> or X-Api-Key.');
    }
  }
  const header = req.get('authorization');
  if (header !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (match?.[1]) return match[1];
    throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <key>".');
  }
  const apiKey = req.get('x-api-key')?.trim();
  if (apiKey) return apiKey;
  throw new AppError('invalid_api_key', 'An API key is required: send Authorization: Bearer <key> or X-Api-Key.');
}
