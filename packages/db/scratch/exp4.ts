import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
const tpl = new Blob([readFileSync('/tmp/cardlens-pglite-template-0.5.16.tar')]);
let t = Date.now();
const mod = await WebAssembly.compile(readFileSync('../../node_modules/@electric-sql/pglite/dist/pglite.wasm'));
console.log('compile pglite.wasm', Date.now() - t);
for (let i = 0; i < 2; i++) { t = Date.now(); const p = await PGlite.create({ loadDataDir: tpl, extensions: { pg_trgm } }); console.log('tpl plain', Date.now() - t); await p.close(); }
for (let i = 0; i < 2; i++) { t = Date.now(); const p = await PGlite.create({ loadDataDir: tpl, extensions: { pg_trgm }, pgliteWasmModule: mod }); console.log('tpl precompiled', Date.now() - t); await p.close(); }
for (let i = 0; i < 2; i++) { t = Date.now(); const p = await PGlite.create({ loadDataDir: tpl, pgliteWasmModule: mod }); console.log('tpl precompiled no ext', Date.now() - t); await p.close(); }
