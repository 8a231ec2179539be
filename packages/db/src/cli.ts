// Database CLI behind the root scripts:
//   npm run db:migrate [-- --service <name>]...       apply pending migrations of every service (or the named ones)
//   npm run db:migration:new -- <name> --service <s>  write services/<s>/prisma/migrations/<ts>_<name>/migration.sql
//   tsx packages/db/src/cli.ts drift [--service <s>]  exit 1 when committed migrations differ from schema.prisma
// Target of `migrate`: DATABASE_URL (Postgres) when set, else the embedded PGlite at <root>/.data/pglite
// (`--pglite <dir>` picks another directory). `new` and `drift` need no database (they diff on a throwaway PGlite).
// Without `--`, npm swallows `--service`: `npm run db:migration:new add_x --service accounts` reaches us as
// argv [add_x, accounts] with npm_config_service=true, which is understood too.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DatabaseConfig } from './client';
import { DEFAULT_PGLITE_DIR } from './env';
import { diffMigration, migrate, newMigration, openShadowDatabase } from './migrate';
import { closePGlite, openPGlite } from './pglite';
import { serviceLayout } from './schema-files';

const USAGE = `usage:
  cli.ts migrate [--service <name>]... [--pglite <dir>]
  cli.ts new <migration-name> --service <name>
  cli.ts drift [--service <name>]...
options: --root <dir> (repository root; default: the one holding this package)`;

class UsageError extends Error {}

function defaultRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

/** Services with a `services/<name>/prisma/schema.prisma`, by name. */
function discoverServices(root: string): string[] {
  const dir = path.join(root, 'services');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(serviceLayout(path.join(dir, name)).schemaPath))
    .sort();
}

function selectServices(root: string, requested: string[]): string[] {
  const all = discoverServices(root);
  if (requested.length === 0) return all;
  for (const name of requested) {
    if (!all.includes(name)) {
      throw new UsageError(`unknown service ${JSON.stringify(name)}: services with prisma/schema.prisma are ${all.join(', ') || 'none'}`);
    }
  }
  return requested;
}

interface Parsed {
  command: string;
  positionals: string[];
  services: string[];
  root: string;
  pglite?: string;
}

function parse(argv: string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        service: { type: 'string', multiple: true },
        root: { type: 'string' },
        pglite: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('');
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('missing command');
  const services = [...(values.service ?? [])];
  let args = rest;
  const npmService = process.env.npm_config_service;
  if (services.length === 0 && npmService) {
    if (npmService === 'true') {
      // `npm run x a --service b` without `--`: the service names are the trailing positionals.
      const keep = command === 'new' ? 1 : 0;
      services.push(...args.slice(keep));
      args = args.slice(0, keep);
    } else {
      services.push(npmService);
    }
  }
  return {
    command,
    positionals: args,
    services,
    root: path.resolve(values.root ?? defaultRoot()),
    ...(values.pglite ? { pglite: path.resolve(values.pglite) } : {}),
  };
}

/** host:port/database of a URL, never its credentials. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

const seconds = (started: number) => `${((Date.now() - started) / 1000).toFixed(1)} s`;

async function runMigrate(args: Parsed): Promise<number> {
  const services = selectServices(args.root, args.services);
  if (services.length === 0) {
    console.log('no services with prisma/schema.prisma');
    return 0;
  }
  const url = args.pglite ? undefined : process.env.DATABASE_URL?.trim();
  const dataDir = args.pglite ?? path.join(args.root, DEFAULT_PGLITE_DIR);
  const started = Date.now();
  // One PGlite for all services (it is single-connection and heavy); migrations on it run one at a time.
  const pglite = url ? undefined : await openPGlite(dataDir);
  const database: DatabaseConfig = pglite ? { kind: 'pglite', pglite } : { kind: 'postgres', url: url ?? '' };
  console.log(pglite ? `migrating on PGlite ${dataDir}` : `migrating on Postgres ${describeUrl(url ?? '')} (DATABASE_URL)`);
  try {
    for (const name of services) {
      const t = Date.now();
      const result = await migrate({
        ...serviceLayout(path.join(args.root, 'services', name)),
        database,
      });
      console.log(
        result.applied.length
          ? `${name}: applied ${result.applied.join(', ')} (${seconds(t)})`
          : `${name}: up to date (${seconds(t)})`,
      );
    }
  } finally {
    if (pglite) await closePGlite(pglite);
  }
  console.log(`done in ${seconds(started)}`);
  return 0;
}

async function runNew(args: Parsed): Promise<number> {
  const [name, ...extra] = args.positionals;
  if (!name || extra.length > 0) throw new UsageError('new: give exactly one migration name');
  if (args.services.length !== 1) throw new UsageError('new: give exactly one --service');
  const [service] = selectServices(args.root, args.services);
  const result = await newMigration({ ...serviceLayout(path.join(args.root, 'services', service ?? '')), name });
  if (!result.created) {
    console.log(result.message);
    return 0;
  }
  console.log(`wrote ${path.relative(args.root, result.path)}\n\n${result.sql}`);
  return 0;
}

async function runDrift(args: Parsed): Promise<number> {
  const services = selectServices(args.root, args.services);
  const shadow = await openShadowDatabase();
  let drifted = 0;
  try {
    for (const name of services) {
      const sql = await diffMigration({ ...serviceLayout(path.join(args.root, 'services', name)), shadow });
      if (sql) {
        drifted++;
        console.log(`${name}: schema.prisma differs from its committed migrations; missing migration:\n${sql}`);
        console.log(`fix: npm run db:migration:new -- <name> --service ${name}\n`);
      } else {
        console.log(`${name}: no drift`);
      }
    }
  } finally {
    await shadow.close();
  }
  return drifted > 0 ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const args = parse(argv);
  switch (args.command) {
    case 'migrate':
      return runMigrate(args);
    case 'new':
      return runNew(args);
    case 'drift':
      return runDrift(args);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(args.command)}`);
  }
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
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  },
);
