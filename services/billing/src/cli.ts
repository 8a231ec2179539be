// Billing's operator commands (npm run billing:reconcile / billing:report / billing:stripe-sync at the
// repository root; see ../RECONCILE.md):
//   cli.ts reconcile --since <date> [--until <date>] [--repair] [--pglite <dir>]
//     Checks the payment provider's paid credit purchases against the ledger; --repair feeds missed events.
//   cli.ts report --since <date> [--until <date>] [--pglite <dir>]
//     Finance's CSV on stdout: payments, refunds and credits granted, joined, with a status per row.
//   cli.ts stripe-sync [--pglite <dir>]
//     Creates the provider's products and prices for the price list (idempotent; a changed pack price moves
//     its lookup key to a new price). One JSON line per change, then a summary line.
// Config: the service's own environment (STRIPE_*, DEPLOYMENT_ENVIRONMENT, PUBLIC_BASE_URL, PRICING_JSON).
// Database: DATABASE_URL (Postgres), else the embedded PGlite at <root>/.data/pglite (PGLITE_DIR or --pglite
// picks another); PGlite is single-process, so `npm start` must be stopped first.
// reconcile output: one line per mismatch, then the report as one JSON line. Exit 0: no mismatch left, 1: some
// left (or a failure), 2: usage. report: exit 0 (the status column flags), a summary on stderr. Never prints
// keys or payment-method details.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase, DEFAULT_PGLITE_DIR, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { createLogger, type Logger } from '@cardlens/telemetry';
import { loadBillingConfig, type BillingConfig } from './config';
import { PrismaClient } from './db';
import { billingServiceDir, purchaseDepsFromConfig } from './service';
import { financeReport, financeReportCsv, flaggedRows } from './use-cases/finance-report';
import type { PurchaseDeps } from './use-cases/purchase-deps';
import { reconcilePurchases, unresolvedMismatches, type Mismatch, type ReconcileReport } from './use-cases/reconcile-purchases';
import { syncCatalog } from './use-cases/sync-catalog';

const USAGE = `usage: cli.ts reconcile --since <date> [--until <date>] [--repair] [--pglite <dir>]
       cli.ts report --since <date> [--until <date>] [--pglite <dir>]
       cli.ts stripe-sync [--pglite <dir>]
  dates: YYYY-MM-DD (midnight UTC) or an ISO 8601 time; --until is exclusive
  through npm: npm run billing:reconcile -- --since 2026-11-01 [--repair]
               npm run billing:report -- --since 2026-11-01 > report.csv
               npm run billing:stripe-sync`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

class UsageError extends Error {}

interface Args {
  command: 'reconcile' | 'report' | 'stripe-sync';
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
  if (command !== 'reconcile' && command !== 'report' && command !== 'stripe-sync') throw new UsageError(command ? `unknown command ${JSON.stringify(command)}` : 'missing command');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (values.repair && command !== 'reconcile') throw new UsageError('--repair is for reconcile only');
  if (command === 'stripe-sync') {
    if (values.since || values.until) throw new UsageError('stripe-sync takes no dates');
    return { command, since: new Date(0), repair: false, ...(values.pglite ? { pglite: path.resolve(values.pglite) } : {}) };
  }
  if (!values.since) throw new UsageError('--since is required');
  const since = parseDate('--since', values.since);
  const until = values.until ? parseDate('--until', values.until) : undefined;
  if (until && until <= since) throw new UsageError('--until must be after --since');
  return { command, since, repair: values.repair, ...(until ? { until } : {}), ...(values.pglite ? { pglite: path.resolve(values.pglite) } : {}) };
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

/** Runs `use` with the purchase use cases' dependencies, as the service builds them, on a migrated database. */
async function withDeps<T>(args: Args, logger: Logger, use: (deps: PurchaseDeps) => Promise<T>): Promise<T> {
  const config = loadBillingConfig();
  const database = await openDatabase(config, args.pglite);
  try {
    if (config.MIGRATE_ON_START) await migrate({ ...serviceLayout(billingServiceDir), database, logger });
    const { prisma, close } = await openPrisma(PrismaClient, database);
    try {
      // No relay here: the running billing service's relay publishes repaired confirmations at its next poll.
      const { purchases } = purchaseDepsFromConfig(config, prisma, logger, () => {});
      return await use(purchases);
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
  // Logs go to stderr: stdout is the command's output (mismatch lines and JSON, the CSV, the changes).
  const logger = createLogger(`billing-${args.command}`, process.stderr);
  const window = { since: args.since, ...(args.until ? { until: args.until } : {}) };
  if (args.command === 'stripe-sync') {
    const changes = await withDeps(args, logger, syncCatalog);
    for (const change of changes) console.log(JSON.stringify(change));
    console.log(JSON.stringify({ changes: changes.length }));
    return 0;
  }
  if (args.command === 'report') {
    const rows = await withDeps(args, logger, (deps) => financeReport(deps, window));
    process.stdout.write(financeReportCsv(rows));
    console.error(`${rows.length} rows, ${flaggedRows(rows).length} flagged (status other than ok or refunded)`);
    return 0;
  }
  const report = await withDeps(args, logger, (deps) => reconcilePurchases(deps, { ...window, repair: args.repair }));
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
