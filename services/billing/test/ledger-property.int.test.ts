// Property test (fast-check) of the credits ledger: over random interleavings of grants, scans (debits),
// refunds and trial grants, run against the real use cases on PGlite and on Postgres,
//   balance = credits in (grants + purchases) - debits + refunds, the balance is never negative,
//   each scan is debited at most once and refunded at most once (by exactly its debit's amount).
//
// A run is a list of batches for ONE fresh agent. A batch of one op is a sequential step; a batch of 2-6 ops
// runs concurrently (Promise.allSettled). Every op of a batch is issued from the state before the batch (a
// refund names the debit entry id its caller got back from debitCredits). After each batch:
// - the outcomes must be linearizable: some serial order of the batch's ops, replayed on the model, yields
//   exactly the observed results (new entry vs replay of which entry, balanceAfter, amount, the
//   insufficient_credits refusal and its creditsRemaining). appendEntry serializes one agent's effects on
//   the balance row lock, so this must hold on Postgres and not only on PGlite's single connection;
// - the database must agree with that model and with itself (checkDatabase below).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { AppError, isAppError } from '@cardlens/errors';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { appendEntry, retryOnIdempotencyRace, type AppendedEntry } from '../src/domain/ledger';
import { defaultPricing } from '../src/domain/pricing';
import { debitCredits } from '../src/use-cases/debit-credits';
import { fulfilCreditPurchase } from '../src/use-cases/fulfil-credit-purchase';
import { getBalance } from '../src/use-cases/get-balance';
import { grantTrialCredits, type TrialGrantResult } from '../src/use-cases/grant-trial-credits';
import { refundCredits } from '../src/use-cases/refund-credits';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

const SCAN_IDS = 6;
const GRANT_IDS = 4;
const TRIAL_CREDITS = defaultPricing.trial.registered;
const DAY_MS = 86_400_000;

type Op =
  | { type: 'grant'; grantId: number }
  | { type: 'scan'; scanId: number }
  /** Refunds the pick-th scan debited before the batch; a stray refund (or one with nothing debited) names a wrong entry id. */
  | { type: 'refund'; pick: number; stray: boolean }
  | { type: 'trial' };

interface Scenario {
  /** Cost of each scan id: a retry of a scan is the same request, so the cost belongs to the scan. */
  costs: number[];
  /** Each grant id is one purchase/grant (its idempotency key), so a repeat of it is a retry. */
  grants: { amount: number; kind: 'grant' | 'purchase' }[];
  /** The daily trial pool for this run's (private) UTC day: below TRIAL_CREDITS the trial is refused. */
  trialPool: number;
  batches: Op[][];
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('scan' as const), scanId: fc.nat({ max: SCAN_IDS - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('refund' as const), pick: fc.nat({ max: SCAN_IDS - 1 }), stray: fc.nat({ max: 4 }).map((n) => n === 0) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('grant' as const), grantId: fc.nat({ max: GRANT_IDS - 1 }) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'trial' as const }) },
);

// Concurrent batches include concurrent retries of the trial grant (a client retry racing the first call).
const batchArb: fc.Arbitrary<Op[]> = fc.oneof(
  opArb.map((op) => [op]),
  fc.array(opArb, { minLength: 2, maxLength: 6 }),
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  costs: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: SCAN_IDS, maxLength: SCAN_IDS }),
  grants: fc.array(fc.record({ amount: fc.integer({ min: 1, max: 10 }), kind: fc.constantFrom('grant' as const, 'purchase' as const) }), {
    minLength: GRANT_IDS,
    maxLength: GRANT_IDS,
  }),
  trialPool: fc.constantFrom(0, TRIAL_CREDITS - 1, TRIAL_CREDITS, 100),
  batches: fc.array(batchArb, { minLength: 1, maxLength: 12 }),
});

// ---------------------------------------------------------------------------------------------------------
// The model

interface EntryRef {
  entryId: bigint;
  balanceAfter: number;
  amount: number;
}

interface Model {
  balance: number;
  hasPurchased: boolean;
  grants: Map<number, EntryRef>;
  debits: Map<number, EntryRef>;
  refunds: Map<number, EntryRef>;
  /** The first answer of grantTrialCredits; every later call must give the same one. */
  trial: TrialGrantResult | undefined;
  /** Ledger rows this agent must have. */
  entries: number;
}

const emptyModel = (): Model => ({ balance: 0, hasPurchased: false, grants: new Map(), debits: new Map(), refunds: new Map(), trial: undefined, entries: 0 });
const cloneModel = (m: Model): Model => ({ ...m, grants: new Map(m.grants), debits: new Map(m.debits), refunds: new Map(m.refunds) });
const knownIds = (m: Model): Set<bigint> => new Set([...m.grants.values(), ...m.debits.values(), ...m.refunds.values()].map((e) => e.entryId));

/** An op as issued: a refund carries the scan it is for (if any) and the entry id it names. */
interface Call {
  op: Op;
  refundOf?: { scanId: number | undefined; entryId: bigint };
}

type Outcome = { entry: AppendedEntry } | { trial: TrialGrantResult } | { error: AppError };

const refOf = (e: AppendedEntry): EntryRef => ({ entryId: e.entryId, balanceAfter: e.balanceAfter, amount: e.amount });
const isReplayOf = (e: AppendedEntry, ref: EntryRef): boolean =>
  e.replayed && e.entryId === ref.entryId && e.balanceAfter === ref.balanceAfter && e.amount === ref.amount;
const isNewEntry = (e: AppendedEntry, amount: number, balanceAfter: number, m: Model): boolean =>
  !e.replayed && e.amount === amount && e.balanceAfter === balanceAfter && !knownIds(m).has(e.entryId);

/** Applies one op to the model (mutating it) if the observed outcome is what the model predicts; false otherwise. */
function step(m: Model, s: Scenario, call: Call, out: Outcome): boolean {
  const { op } = call;
  switch (op.type) {
    case 'grant': {
      const grant = s.grants[op.grantId]!;
      if (!('entry' in out)) return false;
      const previous = m.grants.get(op.grantId);
      if (previous) return isReplayOf(out.entry, previous);
      if (!isNewEntry(out.entry, grant.amount, m.balance + grant.amount, m)) return false;
      m.grants.set(op.grantId, refOf(out.entry));
      m.balance += grant.amount;
      m.hasPurchased ||= grant.kind === 'purchase';
      m.entries++;
      return true;
    }
    case 'scan': {
      const cost = s.costs[op.scanId]!;
      const previous = m.debits.get(op.scanId);
      // A retry of a debited scan is a replay even when the balance could no longer pay for it.
      if (previous) return 'entry' in out && isReplayOf(out.entry, previous);
      if (m.balance < cost) return 'error' in out && out.error.code === 'insufficient_credits' && out.error.extras.creditsRemaining === m.balance;
      if (!('entry' in out) || !isNewEntry(out.entry, -cost, m.balance - cost, m)) return false;
      m.debits.set(op.scanId, refOf(out.entry));
      m.balance -= cost;
      m.entries++;
      return true;
    }
    case 'refund': {
      const scanId = call.refundOf?.scanId;
      if (scanId === undefined) {
        // Issued with an id that is not one of this agent's debits: refused, nothing written.
        return 'error' in out && out.error.code === 'not_found';
      }
      const debit = m.debits.get(scanId)!;
      if (!('entry' in out)) return false;
      const previous = m.refunds.get(scanId);
      if (previous) return isReplayOf(out.entry, previous);
      if (!isNewEntry(out.entry, -debit.amount, m.balance - debit.amount, m)) return false;
      m.refunds.set(scanId, refOf(out.entry));
      m.balance -= debit.amount;
      m.entries++;
      return true;
    }
    case 'trial': {
      if (!('trial' in out)) return false;
      const expected = m.trial ?? (s.trialPool >= TRIAL_CREDITS ? { creditsGranted: TRIAL_CREDITS, poolExhausted: false } : { creditsGranted: 0, poolExhausted: true });
      if (out.trial.creditsGranted !== expected.creditsGranted || out.trial.poolExhausted !== expected.poolExhausted) return false;
      if (!m.trial) {
        m.trial = expected;
        m.balance += expected.creditsGranted;
        m.entries++; // the grant, or the zero "trial_pool_exhausted" entry that records the refusal
      }
      return true;
    }
  }
}

/** Some serial order of the batch that reproduces every observed outcome (depth-first search), or undefined. */
function linearize(m: Model, s: Scenario, calls: Call[], outcomes: Outcome[]): Model | undefined {
  const used = calls.map(() => false);
  const search = (current: Model, placed: number): Model | undefined => {
    if (placed === calls.length) return current;
    for (let i = 0; i < calls.length; i++) {
      if (used[i]) continue;
      const next = cloneModel(current);
      if (!step(next, s, calls[i]!, outcomes[i]!)) continue;
      used[i] = true;
      const found = search(next, placed + 1);
      used[i] = false;
      if (found) return found;
    }
    return undefined;
  };
  return search(m, 0);
}

const show = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof AppError ? { code: v.code, extras: v.extras } : v));

// ---------------------------------------------------------------------------------------------------------
// Driving the real use cases

interface Run {
  prisma: PrismaClient;
  agentId: number;
  scenario: Scenario;
  day: Date;
}

/** Scan ids are globally unique in production (the debit idempotency key is not scoped by agent): prefix the agent. */
const scanKey = (run: Run, scanId: number): string => `${run.agentId}-${scanId}`;

/**
 * A purchase goes through the real fulfilment every payment path calls (the confirmation consumer, the
 * success URL, the token rail), keyed by its checkout session: a repeat of a grant id is a replayed
 * confirmation of the same payment. An operator grant is one appendEntry of kind 'grant'. grantTrialCredits
 * is exercised as well ('trial' ops) but can credit an agent only once, so it cannot be the only source here.
 */
async function grantCredits(run: Run, grantId: number): Promise<AppendedEntry> {
  const grant = run.scenario.grants[grantId]!;
  if (grant.kind === 'purchase') {
    const purchase = {
      agentId: run.agentId,
      pack: 'starter',
      credits: grant.amount,
      amountCents: grant.amount * 20,
      currency: 'USD',
      checkoutSessionId: `cs_prop_${run.agentId}_${grantId}`,
      paymentIntentId: `pi_prop_${run.agentId}_${grantId}`,
      occurredAt: run.day,
    };
    const fulfilment = await run.prisma.$transaction((tx) => fulfilCreditPurchase(tx, purchase));
    return { entryId: fulfilment.entryId, balanceAfter: fulfilment.balanceAfter, replayed: !fulfilment.granted, amount: fulfilment.credits };
  }
  return retryOnIdempotencyRace(() =>
    run.prisma.$transaction((tx) =>
      appendEntry(tx, {
        agentId: run.agentId,
        kind: grant.kind,
        amount: grant.amount,
        causeType: grant.kind === 'purchase' ? 'pack' : 'operator_grant',
        causeId: `g${grantId}`,
        idempotencyKey: `${grant.kind}:${run.agentId}:${grantId}`,
      }),
    ),
  );
}

async function perform(run: Run, call: Call): Promise<Outcome> {
  const { prisma, agentId } = run;
  const { op } = call;
  try {
    switch (op.type) {
      case 'grant':
        return { entry: await grantCredits(run, op.grantId) };
      case 'scan': {
        const scanId = scanKey(run, op.scanId);
        const cost = run.scenario.costs[op.scanId]!;
        return { entry: await debitCredits({ prisma }, { agentId, amount: cost, causeType: 'scan', causeId: scanId, idempotencyKey: `scan:${scanId}` }) };
      }
      case 'refund':
        return { entry: await refundCredits({ prisma }, { agentId, debitEntryId: call.refundOf!.entryId, reason: 'scan could not be enqueued' }) };
      case 'trial': {
        const deps = { prisma, pricing: defaultPricing, dailyPoolCredits: run.scenario.trialPool, now: () => run.day };
        return { trial: await grantTrialCredits(deps, { agentId, tier: 'registered', commercialOnly: false }) };
      }
    }
  } catch (error) {
    if (isAppError(error) && (error.code === 'insufficient_credits' || error.code === 'not_found')) return { error };
    throw error;
  }
}

/** Issues a batch from the model's state before it: a refund names a debit the caller has, or a wrong id. */
function issue(m: Model, ops: Op[], foreignDebitId: bigint): Call[] {
  const debited = [...m.debits.entries()];
  return ops.map((op) => {
    if (op.type !== 'refund') return { op };
    const picked = debited[op.pick % Math.max(debited.length, 1)];
    if (picked && !op.stray) return { op, refundOf: { scanId: picked[0], entryId: picked[1].entryId } };
    // A wrong id must be refused whatever it names: another agent's debit, one of this agent's grants (not a
    // debit), or no entry at all.
    const grant = [...m.grants.values()][0];
    const wrong = [foreignDebitId, grant?.entryId ?? 0n, 0n][op.pick % 3]!;
    return { op, refundOf: { scanId: undefined, entryId: wrong } };
  });
}

// ---------------------------------------------------------------------------------------------------------
// What the database must say

async function checkDatabase(run: Run, m: Model): Promise<void> {
  const { prisma, agentId } = run;
  const entries = await prisma.ledgerEntry.findMany({ where: { agentId }, orderBy: { id: 'asc' } });
  const account = await prisma.creditAccount.findUnique({ where: { agentId } });
  const balance = await getBalance({ prisma }, agentId);
  const pool = await prisma.trialPoolDay.findUnique({ where: { day: run.day } });

  // balance row == sum of the ledger == credits in - debits + refunds == the model
  const sumOf = (kinds: string[]) => entries.filter((e) => kinds.includes(e.kind)).reduce((total, e) => total + e.amount, 0);
  const creditsIn = sumOf(['grant', 'purchase']);
  const debited = -sumOf(['debit']);
  const refunded = sumOf(['refund']);
  expect(balance.credits).toBe(account?.balance ?? 0);
  expect(sumOf(['grant', 'purchase', 'debit', 'refund'])).toBe(balance.credits);
  expect(creditsIn - debited + refunded).toBe(balance.credits);
  expect(balance.credits).toBe(m.balance);
  expect(balance.hasPurchased).toBe(m.hasPurchased);
  expect(balance.credits).toBeGreaterThanOrEqual(0);

  // Each entry: the right sign, and balanceAfter is the running sum in id order (one agent's effects are
  // serialized), hence never negative: the balance was never below zero at any point.
  let running = 0;
  for (const e of entries) {
    running += e.amount;
    expect({ id: e.id, kind: e.kind, balanceAfter: e.balanceAfter }).toEqual({ id: e.id, kind: e.kind, balanceAfter: running });
    expect(e.balanceAfter).toBeGreaterThanOrEqual(0);
    if (e.kind === 'debit') expect(e.amount).toBeLessThan(0);
    else if (e.kind === 'refund') expect(e.amount).toBeGreaterThan(0);
    else expect(e.amount).toBeGreaterThanOrEqual(0);
  }

  // Each scan debited at most once; each debit refunded at most once, by exactly its amount, after it.
  const debits = entries.filter((e) => e.kind === 'debit');
  const refunds = entries.filter((e) => e.kind === 'refund');
  for (let scanId = 0; scanId < SCAN_IDS; scanId++) {
    const forScan = debits.filter((e) => e.causeId === scanKey(run, scanId));
    expect(forScan.length).toBeLessThanOrEqual(1);
    const debit = forScan[0];
    if (debit) {
      expect(debit.idempotencyKey).toBe(`debit:scan:${scanKey(run, scanId)}`);
      expect(debit.amount).toBe(-run.scenario.costs[scanId]!);
    }
    const refundsOfScan = refunds.filter((r) => debit !== undefined && r.refundOfId === debit.id);
    expect(refundsOfScan.length).toBeLessThanOrEqual(1);
  }
  expect(debits).toHaveLength(new Set(debits.map((e) => e.causeId)).size);
  for (const r of refunds) {
    const debit = debits.find((d) => d.id === r.refundOfId);
    expect(debit).toBeDefined();
    expect(r.amount).toBe(-debit!.amount);
    expect(r.id > debit!.id).toBe(true);
    expect(r.idempotencyKey).toBe(`refund:${debit!.id}`);
  }

  // Exactly the effects the model applied, and nothing from refused or replayed calls.
  const ids = (kind: string[]) => entries.filter((e) => kind.includes(e.kind) && !e.idempotencyKey.startsWith('trial')).map((e) => e.id).sort();
  const modelIds = (map: Map<number, EntryRef>) => [...map.values()].map((e) => e.entryId).sort();
  expect(ids(['debit'])).toEqual(modelIds(m.debits));
  expect(ids(['refund'])).toEqual(modelIds(m.refunds));
  expect(ids(['grant', 'purchase'])).toEqual(modelIds(m.grants));
  expect(entries).toHaveLength(m.entries);

  // The trial: one entry at most (the grant or the recorded refusal), and the pool charged exactly once.
  const trialEntries = entries.filter((e) => e.idempotencyKey === `trial:${agentId}` || e.idempotencyKey === `trial-pool-refused:${agentId}`);
  expect(trialEntries.map((e) => e.amount)).toEqual(m.trial ? [m.trial.creditsGranted] : []);
  expect(pool?.granted ?? 0).toBe(m.trial?.creditsGranted ?? 0);
}

// ---------------------------------------------------------------------------------------------------------
// The property, on both databases

interface Harness {
  prisma: () => PrismaClient;
  numRuns: number;
}

function ledgerProperty(h: Harness): void {
  let nextAgent = 1;
  const foreignAgent = 999_999;
  let foreignDebitId = 0n;

  beforeAll(async () => {
    const prisma = h.prisma();
    await prisma.$transaction((tx) =>
      appendEntry(tx, { agentId: foreignAgent, kind: 'grant', amount: 5, causeType: 'operator_grant', causeId: 'foreign', idempotencyKey: 'grant:foreign' }),
    );
    foreignDebitId = (await debitCredits({ prisma }, { agentId: foreignAgent, amount: 2, causeType: 'scan', causeId: 'foreign', idempotencyKey: 'scan:foreign' })).entryId;
  });

  it('balance = credits in - debits + refunds, never negative, each scan debited and refunded at most once, under concurrent batches', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const agentId = nextAgent++;
        // A private UTC day per run: the daily trial pool is global, so runs must not share one.
        const run: Run = { prisma: h.prisma(), agentId, scenario, day: new Date(Date.UTC(2040, 0, 1) + agentId * DAY_MS) };
        let model = emptyModel();
        for (const [index, ops] of scenario.batches.entries()) {
          const calls = issue(model, ops, foreignDebitId);
          const settled = await Promise.allSettled(calls.map((call) => perform(run, call)));
          const unexpected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (unexpected) throw unexpected.reason;
          const outcomes = settled.map((r) => (r as PromiseFulfilledResult<Outcome>).value);
          const next = linearize(model, scenario, calls, outcomes);
          if (!next) {
            throw new Error(
              `batch ${index} is not linearizable from model ${show({ ...model, grants: [...model.grants], debits: [...model.debits], refunds: [...model.refunds] })}:\n` +
                calls.map((call, i) => `  ${show(call)} -> ${show(outcomes[i])}`).join('\n'),
            );
          }
          model = next;
          await checkDatabase(run, model);
        }
      }),
      { numRuns: h.numRuns },
    );
    // Refunds aimed at another agent's debit changed nothing there.
    const prisma = h.prisma();
    expect(await getBalance({ prisma }, foreignAgent)).toEqual({ credits: 3, hasPurchased: false });
    expect(await prisma.ledgerEntry.count({ where: { agentId: foreignAgent } })).toBe(2);
  });
}

describe('credits ledger properties on PGlite', () => {
  let database: Database | undefined;
  let prisma: PrismaClient | undefined;

  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(serviceDir), database });
    prisma = (await openPrisma(PrismaClient, database)).prisma;
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.close();
  });

  ledgerProperty({ prisma: () => prisma!, numRuns: 40 });
});

describeWithInfra('postgres', 'credits ledger properties on Postgres', () => {
  let db: TestDatabase | undefined;
  let prisma: PrismaClient | undefined;
  let closePrisma: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    db = await createTestDatabase({ label: 'billing_ledger_prop' });
    await migrate({ ...serviceLayout(serviceDir), database: { kind: 'postgres', url: db.url } });
    const open = await openPrisma(PrismaClient, { kind: 'postgres', url: db.url, poolSize: 10 });
    prisma = open.prisma;
    closePrisma = open.close;
  });
  afterAll(async () => {
    await closePrisma?.();
    await db?.drop();
  });

  ledgerProperty({ prisma: () => prisma!, numRuns: 40 });

  // Regression (found by this property test): grantTrialCredits used to read "already granted?" before taking
  // any lock, so a retry racing the first call also passed the check, queued on the pool row and took the
  // trial amount from the pool a second time (or, with a nearly full pool, answered "pool exhausted" to a
  // granted request). It now takes the agent's lock first. Reproduced deterministically: the pool row is held
  // until both calls are queued.
  it('concurrent retries of one trial grant take from the daily pool once', async () => {
    const client = prisma!;
    const agentId = 888_888;
    const day = new Date(Date.UTC(2039, 0, 1));
    const deps = { prisma: client, pricing: defaultPricing, dailyPoolCredits: 100, now: () => day };
    // Hold the (uncommitted) pool row so that both calls are in flight at once: the old code let both pass
    // their "already granted?" check and queue on this row; now the second waits on the agent lock.
    let inserted!: () => void;
    let release!: () => void;
    const rowHeld = new Promise<void>((resolve) => (inserted = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = client.$transaction(
      async (tx) => {
        await tx.$executeRaw`INSERT INTO "billing"."trial_pool_days" ("day", "granted") VALUES (${'2039-01-01'}::date, 0)`;
        inserted();
        await released;
      },
      { timeout: 20_000 },
    );
    await rowHeld;
    const calls = [0, 1].map(() => grantTrialCredits(deps, { agentId, tier: 'registered', commercialOnly: false }));
    for (let waited = 0; ; waited += 20) {
      const [{ waiting }] = await client.$queryRaw<[{ waiting: number }]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND (query LIKE '%trial_pool_days%' OR query LIKE '%credit_accounts%')`;
      if (waiting >= 2) break;
      if (waited > 10_000) throw new Error('setup: the two grants never queued (on the pool row or the agent lock)');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    release();
    await holder;
    const results = await Promise.all(calls);
    const pool = await client.trialPoolDay.findUnique({ where: { day } });
    expect(await client.ledgerEntry.count({ where: { agentId, kind: 'grant' } })).toBe(1);
    expect(results[1]).toEqual(results[0]);
    expect(pool?.granted).toBe(TRIAL_CREDITS);
  });
});
