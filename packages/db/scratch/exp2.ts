import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

const require = createRequire(import.meta.url);
const pkgDir = path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
const bg: any = await import('@prisma/schema-engine-wasm/schema_engine_bg');
const mod = new WebAssembly.Module(readFileSync(path.join(pkgDir, 'schema_engine_bg.wasm')));
const inst = new WebAssembly.Instance(mod, { './schema_engine_bg.js': bg });
bg.__wbg_set_wasm(inst.exports);
(inst.exports as any).__wbindgen_start();

function wrapAdapter(tag: string, a: SqlDriverAdapter): SqlDriverAdapter {
  return {
    provider: a.provider, adapterName: a.adapterName,
    queryRaw: (q) => { console.log(tag, 'queryRaw', q.sql.replace(/\s+/g, ' ').slice(0, 600)); return a.queryRaw(q); },
    executeRaw: (q) => { console.log(tag, 'executeRaw', q.sql.replace(/\s+/g, ' ').slice(0, 600)); return a.executeRaw(q); },
    executeScript: (s) => { console.log(tag, 'executeScript', s.replace(/\s+/g, ' ').slice(0, 100)); return a.executeScript(s); },
    startTransaction: async (i) => { console.log(tag, 'startTransaction'); const t = await a.startTransaction(i); return t; },
    getConnectionInfo: () => { const ci = a.getConnectionInfo?.() ?? { supportsRelationJoins: false }; console.log(tag, 'getConnectionInfo', ci); return ci; },
    dispose: () => { console.log(tag, 'dispose'); return a.dispose(); },
  };
}
function wrapFactory(f: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: f.provider, adapterName: f.adapterName,
    connect: async () => { console.log('FACTORY connect'); return wrapAdapter('[main]', await f.connect()); },
    connectToShadowDb: async () => { console.log('FACTORY connectToShadowDb'); return wrapAdapter('[shadow]', await f.connectToShadowDb()); },
  };
}

const alpha = path.resolve('test/fixtures/alpha/prisma/schema.prisma');
const text = readFileSync(alpha, 'utf8');
const filters = { externalTables: [], externalEnums: [] };
const mode = process.argv[2];
let factory: SqlMigrationAwareDriverAdapterFactory;
const url = 'postgres://postgres@127.0.0.1:5432/exp2';
if (mode === 'pg') {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect(); await admin.query('DROP DATABASE IF EXISTS exp2'); await admin.query('CREATE DATABASE exp2'); await admin.end();
  factory = new PrismaPg({ connectionString: url, options: '-c search_path=alpha' }, { schema: 'alpha' });
} else {
  const t = Date.now(); const lite = await PGlite.create(); console.log('pglite open ms', Date.now() - t);
  factory = new PrismaPGlite(lite);
}
const engine = await bg.SchemaEngine.new({ datamodels: [[alpha, text]] }, (m: string) => { if (process.env.LOGS) console.log('LOG', m); }, bindMigrationAwareSqlAdapterFactory(wrapFactory(factory)));
console.log('--- diff empty->schema');
const d = await engine.diff({ from: { tag: 'empty' }, to: { tag: 'schemaDatamodel', files: [{ path: alpha, content: text }] }, script: true, exitCode: true, filters });
const migrationsList = { baseDir: '/tmp/x', lockfile: { path: 'migration_lock.toml', content: 'provider = "postgresql"\n' }, shadowDbInitScript: '', migrationDirectories: [{ path: '20250101000000_init', migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: d.stdout } } }] };
console.log('--- diff migrations->schema');
let t0 = Date.now();
const d2 = await engine.diff({ from: { tag: 'migrations', ...migrationsList }, to: { tag: 'schemaDatamodel', files: [{ path: alpha, content: text }] }, script: true, exitCode: true, filters });
console.log('diff2', d2, Date.now() - t0);
if (mode === 'pg') {
  await new pg.Client({ connectionString: url }).connect().then(() => 0);
  const c = new pg.Client({ connectionString: url }); await c.connect(); await c.query('CREATE SCHEMA alpha'); await c.end();
}
console.log('--- apply');
t0 = Date.now();
console.log(await engine.applyMigrations({ migrationsList, filters }), Date.now() - t0);
console.log('--- apply again');
console.log(await engine.applyMigrations({ migrationsList, filters }));
engine.free(); console.log('freed'); await new Promise(r => setTimeout(r, 500));
if (mode === 'pg') { const c = new pg.Client({ connectionString: url }); await c.connect(); console.log((await c.query(`select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog','information_schema') order by 1,2`)).rows); await c.end(); }
