import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@cardlens/errors';

/** For JSON-only endpoints: a body that is not JSON gets a clear 415 rather than a confusing 400. */
export function requireJsonBody(req: Request): unknown {
  if (!req.is('application/json')) {
    throw new AppError('unsupported_media_type', 'Send the request body as application/json.');
  }
  return req.body;
}

/** Terminal handler for a known path called with the wrong method: 405 with Allow. */
export function methodNotAllowed(...allowed: string[]) {
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(new AppError('method_not_allowed', `${req.method} is not supported here. Allowed: ${allow}.`, { extras: { allow } }));
  };
}
