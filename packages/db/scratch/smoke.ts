import { newMigration, migrate, diffMigration, serviceLayout, openPGlite, closePGlite } from '../src/index';
import pg from 'pg';
const t = (label: string, t0: number) => console.log(label, Date.now() - t0, 'ms');
for (const svc of ['alpha', 'beta']) {
  const l = serviceLayout(`test/fixtures/${svc}`);
  let t0 = Date.now();
  console.log(await newMigration({ ...l, name: 'init' }));
  t(`new ${svc}`, t0);
  t0 = Date.now();
  console.log(JSON.stringify(await diffMigration(l)));
  t(`diff ${svc}`, t0);
}
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect(); await admin.query('DROP DATABASE IF EXISTS smoke'); await admin.query('CREATE DATABASE smoke'); await admin.end();
const url = 'postgres://postgres@127.0.0.1:5432/smoke';
for (const round of [1, 2]) for (const svc of ['alpha', 'beta']) {
  const t0 = Date.now();
  console.log(round, svc, await migrate({ ...serviceLayout(`test/fixtures/${svc}`), database: { kind: 'postgres', url } }));
  t(`pg migrate ${svc}`, t0);
}
const c = new pg.Client({ connectionString: url }); await c.connect();
console.log((await c.query(`select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog','information_schema') order by 1,2`)).rows);
console.log((await c.query(`select migration_name, checksum from alpha._prisma_migrations`)).rows);
await c.end();
let t0 = Date.now();
const lite = await openPGlite('memory://');
t('pglite open', t0);
for (const round of [1, 2]) for (const svc of ['alpha', 'beta']) {
  const t0 = Date.now();
  console.log(round, svc, await migrate({ ...serviceLayout(`test/fixtures/${svc}`), database: { kind: 'pglite', pglite: lite } }));
  t(`lite migrate ${svc}`, t0);
}
console.log((await lite.query(`select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog','information_schema') order by 1,2`)).rows);
console.log((await lite.query(`show search_path`)).rows);
await closePGlite(lite);
