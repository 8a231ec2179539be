// Stages each service's image contents: compiled JavaScript plus only the production files it loads.
//
//   node tools/images/stage.mjs [--out DIR] [service...]      (npm run images:stage -- ...)
//
// For every service, DIR/<service>/ gets:
//   dist/*.mjs      the service's entry points, bundled by tools/bundle.mjs (our TypeScript compiled and inlined,
//                   npm packages left as imports).
//   node_modules/   exactly the files those imports reach, found by @vercel/nft's trace; staging fails if one
//                   belongs to a package the lockfile marks dev-only.
//   services/<s>/…, packages/…   the data files the code opens at run time (migrations, the OpenAPI document,
//                   the vision models), at their repository paths.
//   package.json    {"type": "module"}.
//
// Each bundled module's `import.meta.url` names its source's repository path under the image root
// (DIR/<service>/<repository path>; see tools/bundle.mjs), and the data files are copied to those paths.
//
// The images are accounts, billing, gateway, grading, inference, scans, valuation and migrate (the migration Job).
// Bundles are built and traced in <repository>/.image-build (git-ignored), one image at a time, so two stagings
// must not run at once. The last line is JSON: per image, the bytes of dist, node_modules and data files, and the
// total.
import { nodeFileTrace } from '@vercel/nft';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleEntries, packageDirOf, posix, ROOT } from '../bundle.mjs';

/**
 * Packages the engine loads by computed paths the tracer cannot follow, copied whole: the tfjs WebAssembly
 * binaries (found with require.resolve), tesseract.js's worker script and its WebAssembly core (picked at run
 * time by CPU features), and the English OCR data.
 */
const VISION_RUNTIME_PACKAGES = ['@tensorflow/tfjs-backend-wasm', 'tesseract.js', 'tesseract.js-core', '@tesseract.js-data/eng'].map((name) => ({
  name,
  importer: 'packages/vision/src',
}));

/** Packages that read their own files by computed paths, copied whole wherever the trace reaches them. */
const WHOLE_WHEN_TRACED = [{ name: '@prisma/schema-engine-wasm', importer: 'packages/db/src' }];

/** Each image: its entry points (dist/<name>.mjs) and the data files it opens at run time. */
const IMAGES = {
  accounts: { entries: { main: 'services/accounts/src/main.ts' }, data: ['services/accounts/prisma'] },
  billing: { entries: { main: 'services/billing/src/main.ts' }, data: ['services/billing/prisma'] },
  gateway: { entries: { main: 'services/gateway/src/main.ts' }, data: ['services/gateway/openapi'] },
  grading: { entries: { main: 'services/grading/src/main.ts' }, data: ['services/grading/prisma'] },
  // The engine runs in child processes (engine-processes.ts forks dist/engine-process.mjs).
  inference: {
    entries: { main: 'services/inference/src/main.ts', 'engine-process': 'services/inference/src/engine-process.ts' },
    data: ['packages/vision/models'],
    packages: VISION_RUNTIME_PACKAGES,
  },
  // The same image runs the scans API (main) and the scan workers (worker).
  scans: { entries: { main: 'services/scans/src/main.ts', worker: 'services/scans/src/worker.ts' }, data: ['services/scans/prisma'] },
  valuation: { entries: { main: 'services/valuation/src/main.ts' }, data: ['services/valuation/prisma'] },
  // The migration Job: every service's schema and migrations, and the WebAssembly schema engine.
  migrate: {
    entries: { migrate: 'packages/db/src/cli.ts' },
    data: ['services/accounts/prisma', 'services/billing/prisma', 'services/grading/prisma', 'services/scans/prisma', 'services/valuation/prisma'],
  },
};

/** Every image also gets the telemetry preload (`node --import ./dist/register.mjs dist/main.mjs`), except migrate. */
const REGISTER_ENTRY = 'packages/telemetry/src/register.mjs';
/** Files loaded by specifier strings the tracer cannot see (the loader hook is registered by name). */
const EXTRA_TRACED = { register: ['import-in-the-middle/hook.mjs'] };

/** package-lock.json's entries by path ("node_modules/pino", "services/gateway/node_modules/lru-cache"). */
const LOCK_PACKAGES = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).packages;

function sizeOf(target) {
  if (!existsSync(target)) return { bytes: 0, files: 0 };
  const stat = statSync(target);
  if (!stat.isDirectory()) return { bytes: stat.size, files: 1 };
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(target)) {
    const inner = sizeOf(path.join(target, entry));
    bytes += inner.bytes;
    files += inner.files;
  }
  return { bytes, files };
}

/**
 * Where a service's bundles are built and traced (one service at a time): a folder directly under the repository
 * root, like dist/ in the image, so `../<repository path>` imports and bare imports resolve as they will there.
 */
const BUILD_DIST = path.join(ROOT, '.image-build');

/** Node's lookup of a package folder from a directory upwards (no exports map involved: the whole folder is wanted). */
function packageDirFrom(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir)) throw new Error(`package ${name} not found from ${fromDir}`);
  }
}

async function stage(name, outRoot) {
  const image = IMAGES[name];
  const out = path.join(outRoot, name);
  const buildDist = BUILD_DIST;
  rmSync(out, { recursive: true, force: true });
  rmSync(buildDist, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const entryPoints = { ...image.entries, ...(name === 'migrate' ? {} : { register: REGISTER_ENTRY }) };
  const result = await bundleEntries({ entryPoints, outdir: buildDist });

  // The bundles' imports of node_modules, followed by the tracer to every file they load.
  const bundles = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.mjs')).map((f) => path.resolve(ROOT, f));
  const extras = Object.entries(EXTRA_TRACED).flatMap(([entry, specifiers]) => (entryPoints[entry] ? specifiers : []));
  const extraFiles = extras.map((specifier) => fileURLToPath(import.meta.resolve(specifier, `file://${ROOT}/packages/telemetry/src/x.mjs`)));
  // Only npm packages are followed: a rewritten module URL names a source folder (services/<s>/src, whose
  // service folder the code resolves for its migrations), which the tracer would otherwise read whole, tests
  // included.
  const buildDir = posix(path.relative(ROOT, BUILD_DIST));
  const trace = await nodeFileTrace([...bundles, ...extraFiles], {
    base: ROOT,
    processCwd: ROOT,
    ignore: (file) => !file.split('/').includes('node_modules') && !file.startsWith(`${buildDir}/`),
  });
  // Production code only: a file of a package the lockfile marks dev-only means a service imports a dev
  // dependency (it would be missing from `npm ci --omit=dev` too), so staging stops.
  const devOnly = new Set();
  for (const file of trace.fileList) {
    const dir = packageDirOf(file.split('/').join(path.sep));
    if (dir && LOCK_PACKAGES[posix(dir)]?.dev) devOnly.add(posix(dir));
  }
  if (devOnly.size > 0) throw new Error(`${name}: the bundles load dev-only packages: ${[...devOnly].join(', ')}`);
  let traced = 0;
  for (const file of trace.fileList) {
    // Our own sources are in the bundle and data files are copied below: only npm packages are taken (a
    // workspace's own versions too, at their paths: services/<s>/node_modules/...).
    if (!file.split('/').includes('node_modules')) continue;
    const from = path.join(ROOT, file);
    if (!statSync(from).isFile()) continue;
    const to = path.join(out, file);
    mkdirSync(path.dirname(to), { recursive: true });
    cpSync(from, to, { dereference: true });
    traced += 1;
  }
  cpSync(buildDist, path.join(out, 'dist'), { recursive: true });
  const tracedWhole = WHOLE_WHEN_TRACED.filter(({ name }) => [...trace.fileList].some((file) => file.includes(`node_modules/${name}/`)));
  for (const { name, importer } of [...(image.packages ?? []), ...tracedWhole]) {
    // Found as Node finds it from the workspace that loads it, copied to the same repository path.
    const dir = packageDirFrom(name, path.join(ROOT, importer));
    cpSync(dir, path.join(out, path.relative(ROOT, dir)), { recursive: true, dereference: true });
  }
  for (const dir of image.data) cpSync(path.join(ROOT, dir), path.join(out, dir), { recursive: true, dereference: true });
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ name: `cardlens-${name}`, private: true, type: 'module' }, null, 2)}\n`);

  const dist = sizeOf(path.join(out, 'dist'));
  const data = image.data.reduce((sum, dir) => sum + sizeOf(path.join(out, dir)).bytes, 0);
  const total = sizeOf(out).bytes;
  // node_modules wherever they sit (the root's and a workspace's own versions).
  return { service: name, distBytes: dist.bytes, nodeModulesBytes: total - dist.bytes - data, nodeModulesFiles: traced, dataBytes: data, totalBytes: total };
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
const outRoot = path.resolve(values.out ?? path.join(tmpdir(), 'cardlens-images'));
const names = positionals.length > 0 ? positionals : Object.keys(IMAGES);
for (const name of names) if (!IMAGES[name]) throw new Error(`unknown image ${name}; images are ${Object.keys(IMAGES).join(', ')}`);

const mb = (bytes) => (bytes / 1e6).toFixed(1);
const rows = [];
for (const name of names) {
  const started = Date.now();
  const row = await stage(name, outRoot);
  rows.push(row);
  process.stdout.write(`${name.padEnd(10)} dist ${mb(row.distBytes).padStart(6)} MB  node_modules ${mb(row.nodeModulesBytes).padStart(6)} MB (${row.nodeModulesFiles} files)  data ${mb(row.dataBytes).padStart(5)} MB  total ${mb(row.totalBytes).padStart(6)} MB  (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
process.stdout.write(`staged in ${outRoot}\n`);
process.stdout.write(`${JSON.stringify({ outDir: outRoot, images: rows })}\n`);
