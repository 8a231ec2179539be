// Installs dependencies on a fresh clone and regenerates the git-ignored Prisma clients, so that the
// README's two quick-start commands work on a machine that has only Node and npm. Generation (about 13 s) is
// skipped when its inputs (the protos, every Prisma schema, the lockfile that pins the generators) hash the same
// as at the last generation and every Prisma client is still there.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

if (Number(process.versions.node.split('.')[0]) < 24) {
  process.stderr.write(`warning: Node ${process.versions.node}; CardLens targets Node 24 LTS (see the README's quick start)\n`);
}
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false' };
/** Runs a setup step quietly: its output is shown only when it fails (a newcomer sees the banner, not the tooling). */
const run = (cmd, what) => {
  process.stdout.write(`${what}...\n`);
  try {
    execSync(cmd, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, npm_config_loglevel: 'error' }, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    process.stdout.write(String(error.stdout ?? ''));
    process.stderr.write(String(error.stderr ?? ''));
    throw error;
  }
};
const stamp = 'node_modules/.package-lock.json';
if (!existsSync(stamp) || statSync('package-lock.json').mtimeMs > statSync(stamp).mtimeMs) {
  // .ci/npm-ci.sh: npm ci, tolerating lock entries for other platforms' binaries that this registry cannot serve.
  run('bash .ci/npm-ci.sh', 'Installing dependencies (npm ci, about three minutes on a fresh clone)');
}

const generatedStamp = 'node_modules/.cache/cardlens/generate.sha256';
const inputs = generationInputs();
const digest = inputs && hashOf(inputs);
const upToDate = digest !== undefined && existsSync(generatedStamp) && readFileSync(generatedStamp, 'utf8') === digest && clientsPresent(inputs);
if (!upToDate) {
  run('npx turbo run generate --output-logs=errors-only', 'Generating the gRPC and Prisma clients');
  if (digest !== undefined) {
    mkdirSync(path.dirname(generatedStamp), { recursive: true });
    writeFileSync(generatedStamp, digest);
  }
}

/** The files generation reads, from git (undefined outside a git checkout: then it always runs). */
function generationInputs() {
  try {
    const listed = execSync("git ls-files -co --exclude-standard proto '*.prisma' package-lock.json", { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return listed.split('\n').filter((file) => file !== '' && existsSync(file)).sort();
  } catch {
    return undefined;
  }
}

function hashOf(files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Every schema's generated client directory exists (they are git-ignored, so a clean would remove them). */
function clientsPresent(files) {
  return files
    .filter((file) => file.endsWith('.prisma'))
    .every((schema) => {
      const output = /output\s*=\s*"([^"]+)"/.exec(readFileSync(schema, 'utf8'))?.[1];
      return output === undefined || existsSync(path.join(path.dirname(schema), output));
    });
}
