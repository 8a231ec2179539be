import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import sharp from 'sharp';
import { generateSample } from '@cardlens/card-synth';
import { billingV1 } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { describeWithInfra } from '@cardlens/testing';
import { metricsRegistry } from '@cardlens/telemetry';
import { loadGatewayConfig } from '../../gateway/src/config';
import { startGateway, type RunningGateway } from '../../gateway/src/service';
import { smallRealPhoto } from './real-photo';
import { startStack, type ApiResponse, type Stack, type StackMode } from './stack';

// Prepaid scans end to end: HTTP → gateway (image intake) → scans (debit-first through billing, outbox) → bus →
// scan worker (inference, valuation) → GET /v1/scans/{id}. Every response is checked against the OpenAPI
// document by stack.call(). The same suite runs on the embedded defaults and on real Postgres, Redis and Kafka.

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter % 250}`;

interface Images {
  front: Buffer;
  back: Buffer;
  png: Buffer;
  /** A real phone photo of a card (a committed fixture of the real-photo set) shrunk to 150 x 200 pixels: too few to grade. */
  small: Buffer;
  /** The generated front at 360 px tall: accepted, the card found, but under 5 px per mm, too few for any aspect. */
  lowResolution: Buffer;
}

/** A loopback image server for URL scans; it counts every TCP connection it accepts. */
async function startImageServer(images: Images): Promise<{ origin: string; port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const send = (bytes: Buffer, type: string) => res.writeHead(200, { 'Content-Type': type, 'Content-Length': bytes.length }).end(bytes);
    if (req.url === '/front.jpg') return send(images.front, 'image/jpeg');
    if (req.url === '/back.jpg') return send(images.back, 'image/jpeg');
    if (req.url === '/card.png') return send(images.png, 'image/png');
    if (req.url === '/redirect-to-private') return res.writeHead(302, { Location: 'http://10.0.0.7/front.jpg' }).end();
    if (req.url === '/redirect-to-metadata') return res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (req.url === '/text') return send(Buffer.from('not an image'), 'image/jpeg');
    res.writeHead(404).end();
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A real JPEG whose SOF header claims 65,000 x 65,000 pixels (4.2 gigapixels). */
function pixelBombJpeg(jpeg: Buffer): Buffer {
  const bomb = Buffer.from(jpeg);
  for (let i = 2; i < bomb.length - 9; i++) {
    if (bomb[i] === 0xff && bomb[i + 1]! >= 0xc0 && bomb[i + 1]! <= 0xc2) {
      bomb.writeUInt16BE(65_000, i + 5);
      bomb.writeUInt16BE(65_000, i + 7);
      return bomb;
    }
  }
  throw new Error('no SOF marker');
}

function scansSuite(mode: StackMode) {
  let stack: Stack;
  let images: Images;
  let server: Awaited<ReturnType<typeof startImageServer>>;
  let blobDir: string;

  beforeAll(async () => {
    const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
    images = {
      front: Buffer.from(sample.frontJpeg),
      back: Buffer.from(sample.backJpeg),
      png: await sharp(sample.frontJpeg).png().toBuffer(),
      small: await smallRealPhoto(),
      lowResolution: await sharp(sample.frontJpeg).resize({ height: 360 }).jpeg({ quality: 92 }).toBuffer(),
    };
    server = await startImageServer(images);
    blobDir = mkdtempSync(path.join(tmpdir(), 'cardlens-scans-'));
    // Loopback image URLs are allowed here only through the test setting (off by default); the SSRF tests use
    // a second gateway with it off.
    stack = await startStack(mode, { BLOB_DIR: blobDir, IMAGE_FETCH_ALLOW_LOOPBACK: 'true' });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await server?.close();
    if (blobDir) rmSync(blobDir, { recursive: true, force: true });
  });

  const register = async (credits: 1 | 3) => {
    const body = credits === 3 ? { name: 'scan bot', contactEmail: 'scans@example.com' } : { name: 'scan bot' };
    const r = await stack.call('POST', '/v1/agents', { body, ip: freshIp() });
    expect(r.status).toBe(201);
    return { apiKey: String(r.json.apiKey), auth: { Authorization: `Bearer ${String(r.json.apiKey)}` } };
  };
  const balance = async (auth: Record<string, string>) => Number((await stack.call('GET', '/v1/agents/me', { headers: auth })).json.credits);
  const multipart = (modules: string, parts: { front?: Buffer; back?: Buffer; frontName?: string; frontType?: string } = {}) => {
    const form = new FormData();
    form.append('modules', modules);
    const front = 'front' in parts ? parts.front : images.front;
    const back = 'back' in parts ? parts.back : images.back;
    if (front) form.append('front', new Blob([front], { type: parts.frontType ?? 'image/jpeg' }), parts.frontName ?? 'front.jpg');
    if (back) form.append('back', new Blob([back], { type: 'image/jpeg' }), 'back.jpg');
    return form;
  };
  const submit = (auth: Record<string, string>, request: { form?: FormData; body?: unknown }, key?: string) =>
    stack.call('POST', '/v1/scans', { ...request, headers: { ...auth, ...(key ? { 'Idempotency-Key': key } : {}) } });
  const waitForScan = async (auth: Record<string, string>, id: number, timeoutMs = 90_000): Promise<ApiResponse> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await stack.call('GET', `/v1/scans/${id}`, { headers: auth });
      expect(r.status).toBe(200);
      if (r.json.status === 'completed' || r.json.status === 'failed') return r;
      expect(['queued', 'processing']).toContain(r.json.status);
      if (Date.now() > deadline) throw new Error(`scan ${id} still ${String(r.json.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };

  describe('a full scan from upload to result', () => {
    it('multipart front and back: 202 and charged, then polled to completed with every section and the overlay', async () => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { form: multipart('full') });
      expect(accepted.status).toBe(202);
      expect(accepted.json).toMatchObject({ status: 'queued', modules: ['full'], creditsCharged: 2, creditsRemaining: 1 });
      const id = Number(accepted.json.id);
      expect(accepted.json.links).toEqual({ self: `/v1/scans/${id}` });
      expect(accepted.headers.get('x-credits-remaining')).toBe('1');
      expect(new URL(accepted.headers.get('location') ?? '').pathname).toBe(`/v1/scans/${id}`);

      const done = await waitForScan(auth, id);
      expect(done.json.status).toBe('completed');
      expect(done.headers.get('x-credits-remaining')).toBe('1');
      expect(new Date(String(done.json.completedAt)).getTime()).toBeGreaterThan(0);
      const identification = done.json.identification as Record<string, unknown>;
      expect(identification.confidence).toBeGreaterThan(0);
      const grading = done.json.grading as Record<string, unknown> & { centering: { front: unknown; back: unknown }; frontBack: { back: unknown }; links: { overlay: string } };
      expect(grading.notAssessed).toEqual([]);
      expect(grading.centering.back).not.toBeNull();
      expect(grading.frontBack.back).not.toBeNull();
      expect(String(grading.justification).length).toBeGreaterThan(20);
      expect(done.json.value).toMatchObject({ currency: 'USD' });
      expect(done.json.market).toHaveProperty('gradingRecommendation');

      const overlay = await stack.call('GET', grading.links.overlay, { headers: auth });
      expect(overlay.status).toBe(200);
      expect(overlay.headers.get('content-type')).toBe('image/png');
      expect((overlay.body as Buffer).subarray(1, 4).toString('latin1')).toBe('PNG');
      // Free: polling and the overlay cost nothing.
      expect(await balance(auth)).toBe(1);

      // The run shows in the Prometheus metrics (one registry for the whole in-process stack).
      const metrics = await metricsRegistry.metrics();
      expect(metrics).toMatch(/cardlens_http_request_duration_seconds_count\{method="POST",route="\/v1\/scans",status="202"\} [1-9]/);
      expect(metrics).toMatch(/cardlens_grpc_server_handling_seconds_count\{service="cardlens\.scans\.v1\.ScansService",method="CreateScan",code="OK"\} [1-9]/);
      expect(metrics).toMatch(/cardlens_grpc_client_call_seconds_count\{method="analyzeCard",code="OK"\} [1-9]/);
      expect(metrics).toMatch(/cardlens_scans_unfinished\{status="queued"\} \d+/);
      expect(metrics).toMatch(/cardlens_scans_oldest_queued_age_seconds \d/);
      expect(metrics).toMatch(/cardlens_outbox_pending_rows\{table="scans\.outbox"\} \d+/);
    }, 120_000);

    it('image URLs with modules as a comma string (identify,grade): identification and grading only', async () => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { body: { frontImageUrl: `${server.origin}/front.jpg`, backImageUrl: `${server.origin}/back.jpg`, modules: 'identify,grade' } });
      expect(accepted.status).toBe(202);
      expect(accepted.json).toMatchObject({ modules: ['identify', 'grade'], creditsCharged: 2, creditsRemaining: 1 });
      const done = await waitForScan(auth, Number(accepted.json.id));
      expect(done.json.status).toBe('completed');
      expect(done.json).toHaveProperty('identification');
      expect(done.json).toHaveProperty('grading');
      expect(done.json).not.toHaveProperty('value');
      expect(done.json).not.toHaveProperty('market');
    }, 120_000);

    it.each([
      ['identify', 1, { grading: false, value: false }],
      ['grade', 1, { grading: true, value: false }],
      ['market', 1, { grading: false, value: true }],
    ] as const)('modules %s costs %i and carries exactly its sections', async (modules, cost, sections) => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { body: { frontImageUrl: `${server.origin}/front.jpg`, backImageUrl: `${server.origin}/back.jpg`, modules: [modules] } });
      expect(accepted.status).toBe(202);
      expect(accepted.json.creditsCharged).toBe(cost);
      const done = await waitForScan(auth, Number(accepted.json.id));
      expect(done.json.status).toBe('completed');
      expect(done.json).toHaveProperty('identification');
      expect('grading' in done.json).toBe(sections.grading);
      expect('value' in done.json).toBe(sections.value);
      expect('market' in done.json).toBe(sections.value);
      if (!sections.grading) {
        const overlay = await stack.call('GET', `/v1/scans/${String(accepted.json.id)}/overlay`, { headers: auth });
        expect(overlay.status).toBe(404);
      }
    }, 120_000);

    it('without a back image the grading says what it could not assess', async () => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { form: multipart('grade', { back: undefined }) });
      expect(accepted.status).toBe(202);
      const done = await waitForScan(auth, Number(accepted.json.id));
      const grading = done.json.grading as { notAssessed: string[]; notAssessedReasons: { item: string; reason: string }[]; centering: { back: unknown }; frontBack: { back: unknown } };
      expect(grading.notAssessed).toEqual(expect.arrayContaining(['back_centering', 'back_corners', 'back_edges', 'back_surface']));
      // The engine's own reason travels through inference, the scan result and the gateway.
      expect(grading.notAssessedReasons).toEqual(
        expect.arrayContaining(['back_centering', 'back_corners', 'back_edges', 'back_surface'].map((item) => ({ item, reason: 'the back was not photographed' }))),
      );
      expect(grading.centering.back).toBeNull();
      expect(grading.frontBack.back).toBeNull();
    }, 120_000);

    it('a photo on which nothing can be assessed: no grade, no placeholder numbers, the reasons given and the grading part refunded', async () => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { form: multipart('full', { front: images.lowResolution, back: undefined }) });
      expect(accepted.status).toBe(202);
      expect(accepted.json).toMatchObject({ creditsCharged: 2, creditsRemaining: 1 });
      const done = await waitForScan(auth, Number(accepted.json.id));
      expect(done.json.status).toBe('completed');
      const grading = done.json.grading as {
        grade: unknown; predictedGrade: unknown; summary: string; subGrades: Record<string, unknown>; subGradeConfidence: Record<string, unknown>;
        centering: { front: unknown; back: unknown }; frontBack: { front: Record<string, unknown> }; notAssessed: string[]; notAssessedReasons: { item: string; reason: string }[];
      };
      expect(grading.notAssessed).toEqual(expect.arrayContaining(['front_centering', 'front_corners', 'front_edges', 'front_surface']));
      // Nothing measured, so no number stands for a measurement: not the "nothing seen" 10, not a 50/50 centering.
      expect(grading.grade).toBeNull();
      expect(grading.predictedGrade).toBeNull();
      expect(grading.subGrades).toEqual({ centering: null, corners: null, edges: null, surface: null });
      expect(grading.subGradeConfidence).toEqual({ centering: null, corners: null, edges: null, surface: null });
      expect(grading.frontBack.front).toEqual({ centering: null, corners: null, edges: null, surface: null });
      expect(grading.centering).toEqual({ front: null, back: null });
      expect(grading.summary).toMatch(/^No grade: nothing could be assessed/);
      // What produced it is stored with it.
      expect((done.json.grading as { engine: unknown }).engine).toEqual({ version: expect.stringMatching(/^cardlens-vision-\d+$/), rubricVersion: '1.2.0' });
      expect(grading.notAssessedReasons.find((r) => r.item === 'front_surface')?.reason).toMatch(/pixels per mm/);
      // full = 2 credits; value and market are still given (worth market's 1), the grade's part (1) comes back.
      expect(done.json.refund).toEqual({ credits: 1, reason: expect.stringContaining('No grade could be given') });
      expect('value' in done.json && 'market' in done.json).toBe(true);
      // The refund follows the completion (once, by the debit's id; the queue sweep retries it if billing is away).
      const until = Date.now() + 20_000;
      while ((await balance(auth)) !== 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await balance(auth)).toBe(2);
    }, 120_000);

    it('a PNG sent under a .jpg name and image/jpeg type is judged by its bytes and accepted', async () => {
      const { auth } = await register(3);
      const accepted = await submit(auth, { form: multipart('identify', { front: images.png, back: undefined, frontName: 'front.jpg', frontType: 'image/jpeg' }) });
      expect(accepted.status).toBe(202);
      expect((await waitForScan(auth, Number(accepted.json.id))).json.status).toBe('completed');
    }, 120_000);
  });

  describe('bad requests are refused before anything is charged', () => {
    let auth: Record<string, string>;
    beforeAll(async () => {
      ({ auth } = await register(3));
    });

    const cases: [string, number, string, () => { form?: FormData; body?: unknown }][] = [
      ['JSON without frontImageUrl', 400, 'missing_front_image', () => ({ body: { backImageUrl: `${server.origin}/back.jpg`, modules: ['identify'] } })],
      ['multipart without front', 400, 'missing_front_image', () => ({ form: multipart('identify', { front: undefined }) })],
      ['unknown module', 400, 'invalid_modules', () => ({ body: { frontImageUrl: `${server.origin}/front.jpg`, modules: ['identify', 'price'] } })],
      ['full combined', 400, 'invalid_modules', () => ({ body: { frontImageUrl: `${server.origin}/front.jpg`, modules: 'full grade' } })],
      ['no modules', 400, 'invalid_modules', () => ({ body: { frontImageUrl: `${server.origin}/front.jpg` } })],
      ['empty module list', 400, 'invalid_modules', () => ({ body: { frontImageUrl: `${server.origin}/front.jpg`, modules: [] } })],
      ['deep', 400, 'deep_unsupported', () => ({ body: { frontImageUrl: `${server.origin}/front.jpg`, modules: ['deep'] } })],
      ['deep in a string', 400, 'deep_unsupported', () => ({ form: multipart('identify,deep') })],
      ['relative URL', 400, 'invalid_image_url', () => ({ body: { frontImageUrl: '/front.jpg', modules: 'identify' } })],
      ['ftp URL', 400, 'invalid_image_url', () => ({ body: { frontImageUrl: 'ftp://example.com/front.jpg', modules: 'identify' } })],
      ['URL answering 404', 400, 'invalid_image_url', () => ({ body: { frontImageUrl: `${server.origin}/missing.jpg`, modules: 'identify' } })],
      ['redirect to a private address', 400, 'invalid_image_url', () => ({ body: { frontImageUrl: `${server.origin}/redirect-to-private`, modules: 'identify' } })],
      ['redirect to the metadata address', 400, 'invalid_image_url', () => ({ body: { frontImageUrl: `${server.origin}/redirect-to-metadata`, modules: 'identify' } })],
      ['URL serving text', 400, 'invalid_image', () => ({ body: { frontImageUrl: `${server.origin}/text`, modules: 'identify' } })],
      ['text renamed .png', 400, 'invalid_image', () => ({ form: multipart('identify', { front: Buffer.from('just some text, not a picture'), frontName: 'front.png', frontType: 'image/png' }) })],
      ['truncated JPEG', 400, 'invalid_image', () => ({ form: multipart('identify', { front: images.front.subarray(0, Math.floor(images.front.length / 2)) }) })],
      ['pixel-bomb header', 400, 'invalid_image', () => ({ form: multipart('identify', { front: pixelBombJpeg(images.front) }) })],
      ['a real photo too small to grade (150 x 200)', 400, 'invalid_image', () => ({ form: multipart('grade', { front: images.small }) })],
      ['16 MB upload', 400, 'image_too_large', () => ({ form: multipart('identify', { front: Buffer.concat([images.front, Buffer.alloc(16 * 1024 * 1024 - images.front.length)]) }) })],
      ['body is an array', 400, 'invalid_body', () => ({ body: [1, 2] })],
      ['frontImageUrl not a string', 400, 'invalid_body', () => ({ body: { frontImageUrl: 42, modules: 'identify' } })],
    ];
    it.each(cases)('%s → %i %s, balance untouched', async (label, status, code, request) => {
      const r = await submit(auth, request());
      expect(r.status).toBe(status);
      expect(r.json).toMatchObject({ code, status });
      // The client is told why and what is needed, at submission, not by a failed scan after a charge.
      if (label.startsWith('a real photo too small')) expect(r.json.detail).toBe('front: the photo is 150 x 200 pixels, too small to grade: at least 200 pixels are needed on the short side, and 1000 or more with the card filling most of the frame for a full grade');
      expect(JSON.stringify(r.json)).not.toMatch(/stack|SELECT|prisma|grpc/i);
      expect(await balance(auth)).toBe(3);
    }, 60_000);

    it('a malformed Idempotency-Key → 400 invalid_idempotency_key', async () => {
      for (const key of ['has space', 'x'.repeat(65), 'ünïcode']) {
        const r = await stack.call('POST', '/v1/scans', { body: { frontImageUrl: `${server.origin}/front.jpg`, modules: 'identify' }, headers: { ...auth, 'Idempotency-Key': key } });
        expect(r.status).toBe(400);
        expect(r.json.code).toBe('invalid_idempotency_key');
      }
      expect(await balance(auth)).toBe(3);
    });

    it('another media type → 415; no key → 401', async () => {
      const text = await stack.call('POST', '/v1/scans', { rawBody: 'modules=identify', headers: { ...auth, 'Content-Type': 'text/plain' } });
      expect(text.status).toBe(415);
      const anonymous = await stack.call('POST', '/v1/scans', { body: { frontImageUrl: `${server.origin}/front.jpg`, modules: 'identify' } });
      expect(anonymous.status).toBe(401);
    });
  });

  describe('the balance a read reports (X-Credits-Remaining)', () => {
    it("follows a change made behind the gateway's back, by billing's announcement, well within the TTL", async () => {
      const { auth } = await register(3);
      const me = await stack.call('GET', '/v1/agents/me', { headers: auth });
      expect(me.headers.get('x-credits-remaining')).toBe('3'); // the gateway now holds the agent's balance
      const agentId = Number(me.json.agentId);
      // A debit through billing's own API, as another service would make it: this gateway sees no write.
      const billing = createClient(billingV1.BillingServiceClient, `127.0.0.1:${stack.ports.billing}`);
      try {
        await callUnary(billing, 'debitCredits', { agentId, amount: 2, causeType: 'test', causeId: 'behind-the-gateway', idempotencyKey: `behind:${agentId}` }, { deadlineMs: 5000 });
      } finally {
        billing.close();
      }
      const changed = Date.now();
      let seen = '3';
      while (seen !== '1' && Date.now() - changed < 8_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = String((await stack.call('GET', '/v1/agents/me', { headers: auth })).headers.get('x-credits-remaining'));
      }
      expect(seen).toBe('1');
      // The gateway's TTL (10 s) did not pass: the announcement did it (outbox relay, then the bus).
      expect(Date.now() - changed).toBeLessThan(8_000);
    });

    it("a read right after the agent's own write reports the write", async () => {
      const { auth } = await register(3);
      expect((await stack.call('GET', '/v1/agents/me', { headers: auth })).headers.get('x-credits-remaining')).toBe('3');
      const accepted = await submit(auth, { form: multipart('identify') });
      expect(accepted.status).toBe(202);
      const read = await stack.call('GET', `/v1/scans/${Number(accepted.json.id)}`, { headers: auth });
      expect(read.headers.get('x-credits-remaining')).toBe(String(accepted.json.creditsRemaining));
      expect(read.headers.get('x-credits-remaining')).not.toBe('3');
    });
  });

  describe('credits', () => {
    it('too few credits → 402 insufficient_credits with creditsRemaining and purchaseUrl; no scan, no charge', async () => {
      const { auth } = await register(1);
      const scanFolders = () => (existsSync(path.join(stack.blobDir, 'scans')) ? readdirSync(path.join(stack.blobDir, 'scans')).sort() : []);
      const foldersBefore = scanFolders();
      const r = await submit(auth, { form: multipart('full') });
      expect(r.status).toBe(402);
      // A refused scan writes nothing: its photos are stored only once it is paid for.
      expect(scanFolders()).toEqual(foldersBefore);
      expect(r.json).toMatchObject({ code: 'insufficient_credits', creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' });
      expect(await balance(auth)).toBe(1);
      // The one credit still buys a one-module scan.
      const ok = await submit(auth, { form: multipart('identify') });
      expect(ok.status).toBe(202);
      expect(ok.json.creditsRemaining).toBe(0);
    }, 60_000);
  });

  describe('ownership', () => {
    it("another agent's scan, an unknown id and a malformed id are all 404 scan_not_found", async () => {
      const owner = await register(3);
      const other = await register(3);
      const accepted = await submit(owner.auth, { body: { frontImageUrl: `${server.origin}/front.jpg`, modules: 'grade' } });
      const id = Number(accepted.json.id);
      await waitForScan(owner.auth, id);
      for (const path of [`/v1/scans/${id}`, `/v1/scans/${id}/overlay`, '/v1/scans/999999999', '/v1/scans/abc', '/v1/scans/0', '/v1/scans/-1']) {
        const r = await stack.call('GET', path, { headers: other.auth });
        expect(r.status).toBe(404);
        expect(r.json).toMatchObject({ code: 'scan_not_found' });
      }
      expect((await stack.call('GET', `/v1/scans/${id}/overlay`, { headers: owner.auth })).status).toBe(200);
    }, 120_000);
  });

  describe('Idempotency-Key', () => {
    it('20 parallel identical requests with one key → one scan, one debit, the same answer', async () => {
      const { auth } = await register(3);
      const key = `parallel-${mode}-${Date.now()}`;
      const responses = await Promise.all(Array.from({ length: 20 }, () => submit(auth, { form: multipart('identify,grade') }, key)));
      for (const r of responses) expect(r.status).toBe(202);
      const ids = new Set(responses.map((r) => r.json.id));
      expect(ids.size).toBe(1);
      for (const r of responses) expect(r.json.creditsCharged).toBe(2);
      expect(await balance(auth)).toBe(1);
      // A later replay: the original id and creditsCharged, no new charge.
      const replay = await submit(auth, { form: multipart('identify,grade') }, key);
      expect(replay.status).toBe(202);
      expect(replay.json).toMatchObject({ id: [...ids][0], creditsCharged: 2, creditsRemaining: 1, status: 'queued' });
      // The same key for a different request.
      const reused = await submit(auth, { form: multipart('identify') }, key);
      expect(reused.status).toBe(409);
      expect(reused.json.code).toBe('idempotency_key_reused');
      expect(await balance(auth)).toBe(1);
      await waitForScan(auth, Number([...ids][0]));
    }, 120_000);

    it('a URL request replays without fetching the images again; keys are per agent', async () => {
      const a = await register(3);
      const b = await register(3);
      const body = { frontImageUrl: `${server.origin}/front.jpg`, modules: 'identify' };
      const first = await submit(a.auth, { body }, 'shared-key');
      const before = server.connections();
      const again = await submit(a.auth, { body }, 'shared-key');
      expect(again.json.id).toBe(first.json.id);
      expect(server.connections()).toBe(before);
      const otherAgent = await submit(b.auth, { body }, 'shared-key');
      expect(otherAgent.status).toBe(202);
      expect(otherAgent.json.id).not.toBe(first.json.id);
      expect(await balance(a.auth)).toBe(2);
      expect(await balance(b.auth)).toBe(2);
    }, 60_000);
  });

  describe('SSRF: image URLs to non-public addresses are refused with no connection made', () => {
    let strict: RunningGateway;
    let strictCall: (body: unknown, auth: Record<string, string>) => Promise<Response>;
    beforeAll(async () => {
      // A second gateway over the same services with the default setting: loopback not allowed.
      strict = await startGateway({
        config: loadGatewayConfig({
          GATEWAY_PORT: '0',
          ACCOUNTS_GRPC_ADDRESS: `127.0.0.1:${stack.ports.accounts}`,
          BILLING_GRPC_ADDRESS: `127.0.0.1:${stack.ports.billing}`,
          SCANS_GRPC_ADDRESS: `127.0.0.1:${stack.ports.scans}`,
        }),
        logger: pino({ level: 'silent' }),
      });
      strictCall = (body, auth) => fetch(`${strict.baseUrl}/v1/scans`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    });
    afterAll(async () => {
      await strict?.stop();
    });

    it('refuses loopback, private, link-local, metadata, ULA and mapped addresses, and names resolving to them', async () => {
      const { auth } = await register(3);
      const port = server.port;
      const corpus = [
        `http://127.0.0.1:${port}/front.jpg`,
        `http://127.1.2.3:${port}/front.jpg`,
        `http://localhost:${port}/front.jpg`,
        `http://[::1]:${port}/front.jpg`,
        `http://[::ffff:127.0.0.1]:${port}/front.jpg`,
        `http://[::ffff:7f00:1]:${port}/front.jpg`,
        'http://10.0.0.7/front.jpg',
        'http://172.16.5.4/front.jpg',
        'http://172.31.255.255/front.jpg',
        'http://192.168.1.20/front.jpg',
        'http://169.254.169.254/latest/meta-data/',
        'http://[fc00::1]/front.jpg',
        'http://[fd12:3456::1]/front.jpg',
        'http://[fe80::1]/front.jpg',
        'http://0.0.0.0/front.jpg',
        'http://224.0.0.1/front.jpg',
        'http://2130706433/front.jpg',
        'http://0x7f.0.0.1/front.jpg',
      ];
      const before = server.connections();
      for (const url of corpus) {
        const response = await strictCall({ frontImageUrl: url, modules: 'identify' }, auth);
        const problem = (await response.json()) as Record<string, unknown>;
        expect({ url, status: response.status, code: problem.code }).toEqual({ url, status: 400, code: 'invalid_image_url' });
      }
      expect(server.connections()).toBe(before);
      expect(await balance(auth)).toBe(3);
    }, 60_000);
  });

  // Last: it stops the bus the whole stack uses.
  describe('when the job cannot be queued', () => {
    it('bus down → 500 enqueue_failed, the debit refunded, and the key answers idempotency_conflict', async () => {
      const { auth } = await register(3);
      await stack.bus.stop();
      const r = await submit(auth, { form: multipart('full') }, 'bus-down');
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ code: 'enqueue_failed' });
      expect(JSON.stringify(r.json)).not.toMatch(/kafka|broker|bus is/i);
      expect(await balance(auth)).toBe(3);
      const again = await submit(auth, { form: multipart('full') }, 'bus-down');
      expect(again.status).toBe(409);
      expect(again.json.code).toBe('idempotency_conflict');
      expect(await balance(auth)).toBe(3);
    }, 60_000);
  });
}

describe('prepaid scans on the embedded defaults (PGlite, in-process bus)', () => scansSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'prepaid scans on real Postgres, Redis and Kafka', () => scansSuite('infra'));
