// `npm start` runs compiled JavaScript: this bundles the embedded process's entry points into dist/ (git-ignored)
// with tools/bundle.mjs, so no TypeScript loader (tsx, and the esbuild service it keeps running) lives in the
// service's processes at run time. esbuild takes a few seconds; a build whose inputs (every tracked or new source
// file, the lockfile) hash the same as the last one is skipped.
//
//   dist/all-in-one.mjs        services/all-in-one/src/main.ts: every service in one process
//   dist/inference-thread.mjs  the inference service's worker thread (embedded.ts starts it)
//   dist/engine-process.mjs    the vision engine's child processes (engine-processes.ts forks them)
//   dist/register.mjs          the telemetry preload (`node --import ./dist/register.mjs`)
//   dist/<service>.mjs         each service's own process (and scan-worker, migrate), as in a cluster
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleEntries, ROOT } from './bundle.mjs';

const OUT = path.join(ROOT, 'dist');
const STAMP = path.join(OUT, '.inputs.sha256');
const ENTRY_POINTS = {
  'all-in-one': 'services/all-in-one/src/main.ts',
  'inference-thread': 'services/all-in-one/src/inference-thread.ts',
  'engine-process': 'services/inference/src/engine-process.ts',
  register: 'packages/telemetry/src/register.mjs',
  // Each service's own process, as the images run them (bench:scan -- --variant cluster runs these on Postgres,
  // Redis and Kafka); shared code lands in common chunks, so they add little.
  accounts: 'services/accounts/src/main.ts',
  billing: 'services/billing/src/main.ts',
  gateway: 'services/gateway/src/main.ts',
  grading: 'services/grading/src/main.ts',
  inference: 'services/inference/src/main.ts',
  scans: 'services/scans/src/main.ts',
  'scan-worker': 'services/scans/src/worker.ts',
  valuation: 'services/valuation/src/main.ts',
  migrate: 'packages/db/src/cli.ts',
};

/** A hash of what the bundles are built from; undefined outside a git checkout (then it always builds). */
function inputsDigest() {
  let files;
  try {
    const listed = execSync("git ls-files -co --exclude-standard -- 'services/*/src/**' 'packages/*/src/**' 'packages/*/package.json' 'services/*/package.json' tsconfig.base.json package-lock.json tools/bundle.mjs tools/build-start.mjs", {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    files = listed.split('\n').filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
  } catch {
    return undefined;
  }
  // The generated Prisma clients are git-ignored but bundled: bootstrap regenerates them when their inputs change,
  // which its own stamp records.
  const generated = path.join(ROOT, 'node_modules/.cache/cardlens/generate.sha256');
  const hash = createHash('sha256');
  for (const file of files.sort()) hash.update(file).update('\0').update(readFileSync(path.join(ROOT, file))).update('\0');
  hash.update(existsSync(generated) ? readFileSync(generated) : '');
  return hash.digest('hex');
}

const digest = inputsDigest();
const built = Object.keys(ENTRY_POINTS).every((name) => existsSync(path.join(OUT, `${name}.mjs`)));
if (digest === undefined || !built || !existsSync(STAMP) || readFileSync(STAMP, 'utf8') !== digest) {
  process.stdout.write('Compiling the services...\n');
  rmSync(OUT, { recursive: true, force: true });
  await bundleEntries({ entryPoints: ENTRY_POINTS, outdir: OUT });
  if (digest !== undefined) writeFileSync(STAMP, digest);
}
