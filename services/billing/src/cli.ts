// Billing's operator command (npm run billing:reconcile at the repository root; see ../RECONCILE.md):
//   cli.ts reconcile --since <date> [--until <date>] [--repair] [--pglite <dir>]
// Checks the payment provider's paid credit purchases against the ledger; --repair feeds missed events.
// Config: the service's own environment (STRIPE_*, DEPLOYMENT_ENVIRONMENT, PUBLIC_BASE_URL, PRICING_JSON).
// Database: DATABASE_URL (Postgres), else the embedded PGlite at <root>/.data/pglite (PGLITE_DIR or --pglite
// picks another); PGlite is single-process, so `npm start` must be stopped first.
// Output: one line per mismatch, then the report as one JSON line. Exit 0: no mismatch left, 1: some left
// (or a failure), 2: usage. Never prints keys or payment-method details.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase, DEFAULT_PGLITE_DIR, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { createLogger, type Logger } from '@cardlens/telemetry';
import { loadBillingConfig, type BillingConfig } from './config';
import { PrismaClient } from './db';
import { billingServiceDir, purchaseDepsFromConfig } from './service';
import { reconcilePurchases, unresolvedMismatches, type Mismatch, type ReconcileReport } from './use-cases/reconcile-purchases';

const USAGE = `usage: cli.ts reconcile --since <date> [--until <date>] [--repair] [--pglite <dir>]
  dates: YYYY-MM-DD (midnight UTC) or an ISO 8601 time; --until is exclusive
  through npm: npm run billing:reconcile -- --since 2026-11-01 [--repair]`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

class UsageError extends Error {}

interface Args {
  since: Date;
  until?: Date;
  repair: boolean;
  pglite?: string;
}

function parseDate(flag: string, value: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw new UsageError(`${flag}: not a date: ${JSON.stringify(value)}`);
  return date;
}

function parse(argv: string[]): Args {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        since: { type: 'string' },
        until: { type: 'string' },
        repair: { type: 'boolean', default: false },
        pglite: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('');
  const [command, ...extra] = positionals;
  if (command !== 'reconcile') throw new UsageError(command ? `unknown command ${JSON.stringify(command)}` : 'missing command');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!values.since) throw new UsageError('--since is required');
  const since = parseDate('--since', values.since);
  const until = values.until ? parseDate('--until', values.until) : undefined;
  if (until && until <= since) throw new UsageError('--until must be after --since');
  return { since, repair: values.repair, ...(until ? { until } : {}), ...(values.pglite ? { pglite: path.resolve(values.pglite) } : {}) };
}

/** As the service runs: Postgres from DATABASE_URL, else the embedded PGlite `npm start` uses. */
async function openDatabase(config: BillingConfig, pglite: string | undefined): Promise<Database> {
  if (!pglite && config.DATABASE_URL) return createDatabase({ kind: 'postgres', url: config.DATABASE_URL, poolSize: 2 });
  const dataDir = pglite ?? path.resolve(root, process.env.PGLITE_DIR ?? DEFAULT_PGLITE_DIR);
  // A missing folder would be created empty: nothing to reconcile, and a misleading "all clear".
  if (!existsSync(dataDir)) throw new Error(`no embedded database at ${dataDir}: set DATABASE_URL, or run \`npm start\` once`);
  try {
    return await createDatabase({ kind: 'pglite', dataDir });
  } catch (error) {
    throw new Error(
      `cannot open the embedded PGlite at ${dataDir}: PGlite is single-process and cannot be opened while \`npm start\` runs; stop it first (or set DATABASE_URL). ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function reconcile(args: Args, logger: Logger): Promise<ReconcileReport> {
  const config = loadBillingConfig();
  const database = await openDatabase(config, args.pglite);
  try {
    if (config.MIGRATE_ON_START) await migrate({ ...serviceLayout(billingServiceDir), database, logger });
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      // No relay here: the running billing service's relay publishes repaired confirmations at its next poll.
      const { purchases } = purchaseDepsFromConfig(config, prisma, logger, () => {});
      return await reconcilePurchases(purchases, { since: args.since, repair: args.repair, ...(args.until ? { until: args.until } : {}) });
    } finally {
      await close();
    }
  } finally {
    await database.close();
  }
}

function humanLine(m: Mismatch, report: ReconcileReport): string {
  const unrepairable = report.unrepairable.find((u) => u.id === m.id);
  const outcome =
    m.kind !== 'paid_not_granted'
      ? ''
      : report.repaired.includes(m.id)
        ? ' [repaired: confirmation written to the outbox; the billing service grants it]'
        : report.alreadyIngested.includes(m.id)
          ? ' [already ingested: its confirmation has not been granted yet; check the billing service]'
          : unrepairable
            ? ` [unrepairable: ${unrepairable.reason}]`
            : '';
  const field = (value: string | number | null) => value ?? '?';
  return `${m.kind} ${m.id} agent=${field(m.agentId)} pack=${field(m.pack)} credits=${field(m.credits)} amount_cents=${field(m.amountCents)}: ${m.detail}${outcome}`;
}

async function main(argv: string[]): Promise<number> {
  const args = parse(argv);
  // Logs go to stderr: stdout is the mismatch lines and the JSON report.
  const logger = createLogger('billing-reconcile', process.stderr);
  const report = await reconcile(args, logger);
  for (const mismatch of report.mismatches) console.log(humanLine(mismatch, report));
  console.log(JSON.stringify(report));
  return unresolvedMismatches(report).length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      if (error.message) console.error(error.message);
      console.error(USAGE);
      process.exitCode = 2;
      return;
    }
    // The message only: a stack adds nothing for an operator, and config errors name keys, never values.
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
