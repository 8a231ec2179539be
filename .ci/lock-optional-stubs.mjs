// Adds a minimal lock entry ({ version, optional: true }) for every optional dependency that
// package-lock.json names (in some package's optionalDependencies) but has no node_modules/ entry for.
//
// Why: the npm registry reachable here answers 404 for other platforms' binary packages
// (@swc/core-darwin-arm64, @turbo/windows-64, @unrs/resolver-binding-*, ...), so `npm install` writes a
// lock without them, and `npm ci` then refuses the lock ("Missing: @swc/core-darwin-arm64@ from lock
// file"). With these stubs `npm ci` accepts the lock; on this platform it skips them (an optional
// package that cannot be fetched is not an error), elsewhere npm fetches them by version.
// Used by .ci/npm-ci.sh on a temporary copy of the lock; never meant to be committed.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages ?? {};

const parentDirs = (path) => {
  // Where node would look for a dependency of the package at `path`: its own node_modules, then each
  // enclosing node_modules up to the root.
  const dirs = [];
  let dir = path;
  for (;;) {
    dirs.push(dir === '' ? 'node_modules' : `${dir}/node_modules`);
    const cut = dir.lastIndexOf('/node_modules/');
    if (cut >= 0) dir = dir.slice(0, cut);
    else if (dir !== '') dir = '';
    else break;
  }
  return dirs;
};

const added = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    if (parentDirs(path).some((dir) => packages[`${dir}/${name}`])) continue;
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    packages[key] = { version: spec, optional: true, ...(entry.dev ? { dev: true } : {}) };
    added.push(`${name}@${spec}`);
  }
}

if (added.length > 0) {
  const ordered = Object.keys(packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  lock.packages = Object.fromEntries(ordered.map((key) => [key, packages[key]]));
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}
process.stdout.write(`${added.length} optional lock entries stubbed${added.length ? `: ${added.join(' ')}` : ''}\n`);
