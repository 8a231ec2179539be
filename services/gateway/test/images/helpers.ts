import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from '@jest/globals';
import { AppError, type ErrorCode } from '@cardlens/errors';

export interface TestServer {
  port: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** TCP connections accepted so far. */
  connections: () => number;
  /** Request paths received so far, in order. */
  paths: string[];
  /** Host headers received so far, in order. */
  hosts: string[];
  close: () => Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 (never on a public interface) that counts what reaches it. */
export async function startServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, server: TestServer) => void): Promise<TestServer> {
  let connections = 0;
  const server = http.createServer();
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const test: TestServer = {
    port,
    origin: `http://127.0.0.1:${port}`,
    connections: () => connections,
    paths: [],
    hosts: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    test.paths.push(req.url ?? '');
    test.hosts.push(req.headers.host ?? '');
    handler(req, res, test);
  });
  return test;
}

/** Deterministic pseudo-random bytes. */
export function randomBytes(length: number, seed = 1): Buffer {
  const data = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    data[i] = state >>> 24;
  }
  return data;
}

export async function expectAppError(promise: Promise<unknown>, code: ErrorCode, detail?: string | RegExp): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe(code);
  if (typeof detail === 'string') expect(appError.detail).toBe(detail);
  else if (detail) expect(appError.detail).toMatch(detail);
  return appError;
}
