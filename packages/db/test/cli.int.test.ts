// The CLI behind `npm run db:migrate` / `db:migration:new`, run as a child process on a scratch repository root.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { FIXTURES } from './helpers';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: undefined, npm_config_service: undefined, ...env };
    for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
    delete childEnv.NODE_OPTIONS;
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: childEnv });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

let root: string;
const schemaOf = (service: string) => path.join(root, 'services', service, 'prisma', 'schema.prisma');

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'cardlens-db-cli-'));
  for (const name of ['alpha', 'beta']) {
    cpSync(path.join(FIXTURES, name, 'prisma'), path.join(root, 'services', name, 'prisma'), { recursive: true });
  }
  mkdirSync(path.join(root, 'services', 'gateway', 'src'), { recursive: true }); // a service without a database
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

// Each CLI run is a fresh process that loads the wasm schema engine and starts PGlite (seconds each, far more
// on a loaded 2-core machine), and these tests run several in a row.
const CLI_TEST_TIMEOUT_MS = 240_000;

describe('cli drift / new', () => {
  it('reports no drift, then drift after a schema change, until `new` writes the migration', async () => {
    const clean = await run(['drift', '--root', root]);
    expect(clean.out).toMatch(/alpha: no drift[\s\S]*beta: no drift/);
    expect(clean.code).toBe(0);

    const schema = readFileSync(schemaOf('alpha'), 'utf8');
    writeFileSync(schemaOf('alpha'), schema.replace('  name      String\n', '  name      String\n  grade     String?\n'));
    const drifted = await run(['drift', '--root', root]);
    expect(drifted.code).toBe(1);
    expect(drifted.out).toContain('ADD COLUMN     "grade" TEXT');
    expect(drifted.out).toContain('beta: no drift');

    const created = await run(['new', 'add_grade', '--service', 'alpha', '--root', root]);
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/wrote services\/alpha\/prisma\/migrations\/\d{14}_add_grade\/migration\.sql/);
    expect((await run(['drift', '--service', 'alpha', '--root', root])).code).toBe(0);
    expect((await run(['new', 'again', '--service', 'alpha', '--root', root])).out).toContain('no schema change');
  }, CLI_TEST_TIMEOUT_MS);

  it('understands `npm run db:migration:new <name> --service <s>` without `--` (npm eats --service)', async () => {
    const schema = readFileSync(schemaOf('beta'), 'utf8');
    writeFileSync(schemaOf('beta'), schema.replace('  label  String      @unique\n', '  label  String      @unique\n  note   String?\n'));
    const created = await run(['new', 'add_note', 'beta', '--root', root], { npm_config_service: 'true' });
    expect(created.out).toContain('_add_note/migration.sql');
    expect(created.code).toBe(0);
  });

  it('rejects unknown services and missing arguments with usage (exit 2)', async () => {
    expect(await run(['drift', '--service', 'nope', '--root', root])).toMatchObject({ code: 2, out: expect.stringContaining('unknown service') });
    expect((await run(['new', 'x', '--root', root])).code).toBe(2);
  });

  it('migrates every service into one PGlite data directory; the second run is a no-op', async () => {
    const dataDir = path.join(root, '.data', 'pglite');
    const first = await run(['migrate', '--root', root, '--pglite', dataDir]);
    expect(first.out).toMatch(/alpha: applied \d{14}_init, \d{14}_add_grade/);
    expect(first.out).toMatch(/beta: applied \d{14}_init, \d{14}_add_note/);
    expect(first.code).toBe(0);
    const second = await run(['migrate', '--root', root, '--pglite', dataDir]);
    expect(second.out).toMatch(/alpha: up to date[\s\S]*beta: up to date/);
    expect(second.code).toBe(0);
  }, CLI_TEST_TIMEOUT_MS);
});

describeWithInfra('postgres', 'cli migrate on Postgres (DATABASE_URL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ label: 'db-cli' });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('applies one service by --service, then the rest, then nothing', async () => {
    const one = await run(['migrate', '--service', 'beta', '--root', root], { DATABASE_URL: db.url });
    expect(one.out).toMatch(/beta: applied/);
    expect(one.out).not.toContain('alpha');
    expect(one.code).toBe(0);
    const all = await run(['migrate', '--root', root], { DATABASE_URL: db.url });
    expect(all.out).toMatch(/alpha: applied[\s\S]*beta: up to date/);
    expect(all.out).not.toContain('postgres@'); // no credentials in the output
    const again = await run(['migrate', '--root', root], { DATABASE_URL: db.url });
    expect(again.out).toMatch(/alpha: up to date[\s\S]*beta: up to date/);
  });
});
