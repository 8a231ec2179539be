const orig = globalThis.setTimeout;
(globalThis as any).setTimeout = (fn: any, ms: number, ...a: any[]) => { if (ms > 500) console.log('setTimeout', ms, new Error().stack?.split('\n').slice(2, 5).join(' | ')); return orig(fn, ms, ...a); };
const { migrate, serviceLayout } = await import('../src/index');
const { createTestDatabase } = await import('@cardlens/testing');
const db = await createTestDatabase({ label: 'handles' });
await migrate({ ...serviceLayout('test/fixtures/alpha'), database: { kind: 'postgres', url: db.url } });
console.log('migrated');
