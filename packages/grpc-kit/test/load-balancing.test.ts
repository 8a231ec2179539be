import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@cardlens/telemetry';
import { callUnary, createClient, startGrpcServer, unaryHandler, type GrpcServer } from '../src/index';
import { EchoServiceClient, EchoServiceService, type EchoServiceServer } from './echo-service';

// Scaling a gRPC service out must spread calls: a client whose target resolves to several replicas (a headless
// Service in a cluster; an address list here) sends to all of them, and servers age connections out so that
// clients pick up replicas that start later.

const logger = createLogger('grpc-lb-test', { write: () => undefined });
const REPLICAS = 3;

const replicas: Array<{ server: GrpcServer; calls: number }> = [];

beforeAll(async () => {
  for (let i = 0; i < REPLICAS; i++) {
    const replica = { server: undefined as unknown as GrpcServer, calls: 0 };
    const implementation: EchoServiceServer = {
      echo: unaryHandler(async (request) => {
        replica.calls++;
        if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
        return { text: `${i}:${request.text}` };
      }),
    };
    replica.server = await startGrpcServer({ port: 0, services: [{ definition: EchoServiceService, implementation }], logger, maxConnectionAgeMs: 400 });
    replicas.push(replica);
  }
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.server.shutdown(1_000)));
});

const target = () => `ipv4:${replicas.map((r) => `127.0.0.1:${r.server.port}`).join(',')}`;

describe('gRPC load balancing', () => {
  it('one client spreads its calls evenly over every replica its target resolves to', async () => {
    for (const r of replicas) r.calls = 0;
    const client = createClient(EchoServiceClient, target());
    try {
      for (let i = 0; i < 30; i++) await callUnary(client, 'echo', { text: String(i) }, { deadlineMs: 2_000 });
    } finally {
      client.close();
    }
    // Round robin over the ready connections: the first calls may go before every connection is up.
    for (const r of replicas) expect(r.calls).toBeGreaterThanOrEqual(8);
  });

  it("gRPC's default (pick_first), which createClient replaces, would pin every call to one replica", async () => {
    for (const r of replicas) r.calls = 0;
    const client = new EchoServiceClient(target(), grpc.credentials.createInsecure());
    try {
      for (let i = 0; i < 30; i++) await callUnary(client, 'echo', { text: String(i) }, { deadlineMs: 2_000 });
    } finally {
      client.close();
    }
    expect(replicas.map((r) => r.calls).sort((a, b) => a - b)).toEqual([0, 0, 30]);
  });

  it('connections are aged out by the server without failing calls, in flight or new', async () => {
    const client = createClient(EchoServiceClient, target());
    try {
      const started = Date.now();
      const answers: string[] = [];
      // 1.5 s of calls, some of them running across a 400 ms connection age.
      while (Date.now() - started < 1_500) {
        const batch = await Promise.all(Array.from({ length: 6 }, (_, i) => callUnary(client, 'echo', { text: 'x', delayMs: i * 40 }, { deadlineMs: 2_000 })));
        answers.push(...batch.map((b) => b.text));
      }
      expect(answers.length).toBeGreaterThan(12);
      expect(new Set(answers.map((a) => a.split(':')[0]))).toEqual(new Set(['0', '1', '2']));
    } finally {
      client.close();
    }
  });
});
