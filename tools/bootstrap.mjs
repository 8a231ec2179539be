// Installs dependencies on a fresh clone and regenerates the git-ignored Prisma clients, so that the
// README's two quick-start commands work on a machine that has only Node and npm.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const run = (cmd) => execSync(cmd, { stdio: 'inherit', env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false' } });
const stamp = 'node_modules/.package-lock.json';
if (!existsSync(stamp) || statSync('package-lock.json').mtimeMs > statSync(stamp).mtimeMs) {
  // .ci/npm-ci.sh: npm ci, tolerating lock entries for other platforms' binaries that this registry cannot serve.
  run('bash .ci/npm-ci.sh');
}
run('npx turbo run generate --output-logs=errors-only');
