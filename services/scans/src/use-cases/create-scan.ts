import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStore } from '@cardlens/blob-store';
import { busTables, enqueueOutbox, publishOutboxRowNow, type Bus } from '@cardlens/bus';
import { events, type scansV1, type ScanModuleName } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { checkModules, gradingPartCost, scanCost } from '../domain/modules';
import { scanJob } from './requeue-interrupted';
import { describeImage, storeImage, type StoredImage } from '../scan-images';
import { markChargedScanAbandoned, settleAbandonedScan } from './settle-scans';

export interface CreateScanDeps {
  prisma: PrismaClient;
  blobs: BlobStore;
  bus: Bus;
  billing: Downstream['billing'];
  logger: Logger;
  settings: { enqueueTimeoutMs: number; idempotencyWaitMs: number; idempotencyTtlHours: number };
}

export interface CreateScanInput {
  agentId: number;
  modules: scansV1.Module[];
  front: Uint8Array;
  back?: Uint8Array;
  idempotencyKey?: string;
  requestFingerprint: string;
}

/** What a POST /v1/scans answers (202), stored with the idempotency key for replays. */
export interface ScanAcceptance {
  scanId: number;
  modules: ScanModuleName[];
  creditsCharged: number;
  creditsRemaining: number;
  replayed: boolean;
}

const tables = busTables('scans');
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Accepts a prepaid scan, debit-first:
 * 1. reserve: a pending scan row and, with an Idempotency-Key, the key (agent-scoped; a concurrent duplicate
 *    waits here for the first request's outcome and then replays it);
 * 2. debit the live module cost through billing (ledger key `scan:<id>`, so a retry never charges twice); a
 *    refusal (402) discards the reservation, and nothing was written;
 * 3. store the images (blob store) and record their hashes (a failure abandons the scan and refunds the debit);
 * 4. one transaction: the scan becomes queued, the ScanJobRequested goes into the outbox (held from the relay
 *    while this request publishes it) and the key records the response, still pending;
 * 5. publish that outbox row at once, holding no database connection while the bus is waited on; once the bus
 *    has taken it, the key is completed (only then does a duplicate request get the 202). If the bus does not
 *    accept it in time, the row is deleted, the scan is abandoned, the key remembers the refund, the debit is
 *    refunded and the answer is enqueue_failed. A crash anywhere leaves a pending or abandoned row that
 *    settleStaleScans finishes (refunding whatever was charged); a crash after step 4 leaves the job to the
 *    outbox relay once its hold runs out, and the key then answers as accepted.
 */
export async function createScan(deps: CreateScanDeps, input: CreateScanInput): Promise<ScanAcceptance> {
  const names = checkModules(input.modules);
  if (input.idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(input.idempotencyKey)) {
    throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 1-64 characters of A-Z, a-z, 0-9, _ and -.');
  }
  const front = describeImage(input.front, 'front');
  const back = input.back ? describeImage(input.back, 'back') : undefined;
  const prices = await deps.billing.modulePrices();
  const cost = scanCost(names, prices);
  const gradingCredits = Math.min(cost, gradingPartCost(names, prices));

  const reservation = await reserve(deps, input, names, cost, gradingCredits);
  if (reservation.kind === 'replay') return reservation.acceptance;
  const scanId = reservation.scanId;
  const { prisma, logger } = deps;

  let debit;
  try {
    debit = await deps.billing.debit({
      agentId: input.agentId,
      amount: cost,
      causeType: 'scan',
      causeId: String(scanId),
      idempotencyKey: `scan:${scanId}`,
    });
  } catch (error) {
    if (error instanceof AppError && error.httpStatus < 500) {
      // Nothing was charged (insufficient_credits carries creditsRemaining and purchaseUrl): no scan, and
      // the key stays free for a retry after buying credits.
      await discardReservation(deps, scanId, input);
      throw error;
    }
    // The debit's outcome is unknown (billing unreachable or timed out): the scan stays pending and the
    // settlement job refunds whatever was charged.
    logger.warn({ err: error, scanId }, 'debit outcome unknown; the pending scan is left for settlement');
    throw new AppError('billing_unavailable', 'Billing did not answer; nothing is lost: any charge for this request is refunded automatically.');
  }

  // The photos are stored only once the scan is paid for: a refused request writes nothing.
  let stored: { front: StoredImage; back?: StoredImage };
  try {
    stored = { front: await storeImage(deps.blobs, scanId, 'front', input.front, front) };
    if (back && input.back) stored.back = await storeImage(deps.blobs, scanId, 'back', input.back, back);
  } catch (error) {
    logger.error({ err: error, scanId }, 'could not store the photos; refunding');
    await abandon(deps, scanId, 'the photos could not be stored');
    throw new AppError('enqueue_failed', 'The scan could not be queued; the credits were refunded.');
  }

  const acceptance: ScanAcceptance = { scanId, modules: names, creditsCharged: cost, creditsRemaining: debit.balance, replayed: false };
  let outboxId: string;
  try {
    outboxId = await prisma.$transaction(async (tx) => {
      const scan = await tx.scan.update({
        where: { id: BigInt(scanId) },
        data: {
          status: 'queued',
          debitEntryId: BigInt(debit.entryId),
          statusMessage: 'Queued for analysis',
          ...imageColumns('front', stored.front),
          ...(stored.back ? imageColumns('back', stored.back) : {}),
        },
      });
      const id = await enqueueOutbox(
        tx,
        tables.outbox,
        { topic: events.scanJobRequested.topic, key: String(scanId), value: events.scanJobRequested.encode(scanJob(scan)) },
        { holdMs: publishHoldMs(deps.settings) },
      );
      if (input.idempotencyKey !== undefined) {
        // Still pending: the key answers 202 only once the bus has the job.
        await tx.idempotencyKey.update({
          where: { agentId_key: { agentId: input.agentId, key: input.idempotencyKey } },
          data: { response: { scanId, modules: names, creditsCharged: cost } },
        });
      }
      return id;
    });
  } catch (error) {
    logger.error({ err: error, scanId }, 'could not record the queued scan; refunding');
    await abandon(deps, scanId, 'the scan could not be recorded');
    throw new AppError('enqueue_failed', 'The scan could not be queued; the credits were refunded.');
  }

  const queued = await publishOutboxRowNow({
    prisma,
    table: tables.outbox,
    bus: deps.bus,
    id: outboxId,
    timeoutMs: deps.settings.enqueueTimeoutMs,
    onFailure: async (tx, error) => {
      logger.error({ err: error, scanId }, 'the scan job was not accepted by the bus; refunding');
      await markChargedScanAbandoned(tx, BigInt(scanId));
    },
  }).catch((error: unknown) => {
    // The database failed around the publish: the committed outbox row is the relay's to deliver.
    logger.warn({ err: error, scanId }, 'immediate publish failed; the outbox relay will deliver the job');
    return true;
  });
  if (!queued) {
    await settleAbandonedScan(deps, BigInt(scanId)).catch((error: unknown) => logger.warn({ err: error, scanId }, 'refund deferred to settlement'));
    throw new AppError('enqueue_failed', 'The scan could not be queued; the credits were refunded.');
  }
  if (input.idempotencyKey !== undefined) {
    await completeKey(deps.prisma, input.agentId, input.idempotencyKey).catch((error: unknown) =>
      // findIdempotentScan completes it on the next replay (the job is on the bus or the relay's).
      logger.warn({ err: error, scanId }, 'could not complete the idempotency key'),
    );
  }
  return acceptance;
}

/** How long the relay leaves a new scan job to the request publishing it: its bus wait and a margin. */
function publishHoldMs(settings: CreateScanDeps['settings']): number {
  return settings.enqueueTimeoutMs + 10_000;
}

function completeKey(prisma: PrismaClient, agentId: number, key: string) {
  return prisma.idempotencyKey.updateMany({ where: { agentId, key, state: 'pending' }, data: { state: 'completed' } });
}

type Reservation = { kind: 'new'; scanId: number } | { kind: 'replay'; acceptance: ScanAcceptance };

class KeyTaken extends Error {}

async function reserve(deps: CreateScanDeps, input: CreateScanInput, names: ScanModuleName[], cost: number, gradingCredits: number): Promise<Reservation> {
  const { prisma } = deps;
  const key = input.idempotencyKey;
  const waitUntil = Date.now() + deps.settings.idempotencyWaitMs;
  for (;;) {
    try {
      const scanId = await prisma.$transaction(async (tx) => {
        const scan = await tx.scan.create({ data: { agentId: input.agentId, status: 'pending', modules: names, creditsCharged: cost, gradingCredits } });
        if (key !== undefined) {
          // A concurrent request with the same key blocks on the primary key until this commits, then inserts nothing.
          const inserted = await tx.idempotencyKey.createMany({
            data: [{
              agentId: input.agentId,
              key,
              fingerprint: input.requestFingerprint,
              scanId: scan.id,
              state: 'pending',
              expiresAt: new Date(Date.now() + deps.settings.idempotencyTtlHours * 3_600_000),
            }],
            skipDuplicates: true,
          });
          if (inserted.count === 0) throw new KeyTaken();
        }
        return Number(scan.id);
      });
      return { kind: 'new', scanId };
    } catch (error) {
      if (!(error instanceof KeyTaken) || key === undefined) throw error;
    }
    const outcome = await findIdempotentScan(deps, { agentId: input.agentId, idempotencyKey: key, requestFingerprint: input.requestFingerprint });
    if (outcome.kind === 'accepted') return { kind: 'replay', acceptance: outcome.acceptance };
    if (outcome.kind === 'in_flight' && Date.now() > waitUntil) {
      throw new AppError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry in a few seconds.');
    }
    if (outcome.kind === 'in_flight') await sleep(100);
  }
}

export type IdempotentOutcome = { kind: 'none' } | { kind: 'in_flight' } | { kind: 'accepted'; acceptance: ScanAcceptance };

/**
 * What an agent's Idempotency-Key stands for: nothing (unknown or expired; an expired key is removed), a request
 * still in flight, or an accepted scan to replay (same request). A different request with the key is
 * idempotency_key_reused; a request that was refunded is idempotency_conflict.
 */
export async function findIdempotentScan(
  deps: Pick<CreateScanDeps, 'prisma' | 'billing'>,
  request: { agentId: number; idempotencyKey: string; requestFingerprint: string },
): Promise<IdempotentOutcome> {
  const where = { agentId_key: { agentId: request.agentId, key: request.idempotencyKey } };
  const row = await deps.prisma.idempotencyKey.findUnique({ where });
  if (!row) return { kind: 'none' };
  if (row.expiresAt.getTime() <= Date.now()) {
    await deps.prisma.idempotencyKey.deleteMany({ where: { agentId: request.agentId, key: request.idempotencyKey, expiresAt: { lte: new Date() } } });
    return { kind: 'none' };
  }
  if (row.fingerprint !== request.requestFingerprint) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; use a new key.');
  }
  if (row.state === 'refunded') {
    throw new AppError('idempotency_conflict', 'The request with this Idempotency-Key failed after charging and was refunded; retry with a new key.');
  }
  if (row.state !== 'completed' && !(row.response !== null && (await handedToBus(deps.prisma, row.scanId)))) return { kind: 'in_flight' };
  if (row.state !== 'completed') await completeKey(deps.prisma, request.agentId, request.idempotencyKey);
  const stored = row.response as { scanId: number; modules: ScanModuleName[]; creditsCharged: number };
  return {
    kind: 'accepted',
    acceptance: { ...stored, creditsRemaining: await deps.billing.balance(request.agentId), replayed: true },
  };
}

/**
 * Whether a queued scan whose key is still pending has its job beyond the request that made it: the scan was
 * queued and its job is published, or left to the relay because its hold ran out (that request died after
 * committing). A job still on hold is with a request that is still waiting on the bus.
 */
async function handedToBus(prisma: PrismaClient, scanId: bigint): Promise<boolean> {
  // One statement, so one snapshot: the scan's status and its outbox row change together when a publish fails.
  const rows = await prisma.$queryRawUnsafe<{ handed: boolean }[]>(
    `SELECT s.status NOT IN ('pending', 'abandoned') AND NOT EXISTS (
       SELECT 1 FROM ${tables.outbox} o
       WHERE o.key = s.id::text AND o.topic = $2 AND o.published_at IS NULL AND o.created_at > clock_timestamp()
     ) AS handed
     FROM "scans"."scans" s WHERE s.id = $1`,
    scanId,
    events.scanJobRequested.topic,
  );
  return rows[0]?.handed === true;
}

/** Nothing was charged: the request leaves no scan behind and frees its key. */
async function discardReservation(deps: CreateScanDeps, scanId: number, input: CreateScanInput): Promise<void> {
  await deps.prisma.$transaction(async (tx) => {
    if (input.idempotencyKey !== undefined) await tx.idempotencyKey.deleteMany({ where: { agentId: input.agentId, key: input.idempotencyKey, scanId: BigInt(scanId) } });
    await tx.scan.update({ where: { id: BigInt(scanId) }, data: { status: 'abandoned', statusMessage: null, settledAt: new Date() } });
  });
}

/** Charged but not accepted: the scan is abandoned, its key remembers the refund, the debit is refunded. */
async function abandon(deps: CreateScanDeps, scanId: number, reason: string): Promise<void> {
  try {
    await deps.prisma.$transaction((tx) => markChargedScanAbandoned(tx, BigInt(scanId)));
    await settleAbandonedScan(deps, BigInt(scanId));
  } catch (error) {
    deps.logger.warn({ err: error, scanId, reason }, 'abandoning the scan failed; settlement will refund it');
  }
}

function imageColumns(side: 'front' | 'back', image: StoredImage) {
  return side === 'front'
    ? { frontKey: image.key, frontSha256: image.sha256, frontBytes: image.sizeBytes, frontType: image.contentType }
    : { backKey: image.key, backSha256: image.sha256, backBytes: image.sizeBytes, backType: image.contentType };
}

