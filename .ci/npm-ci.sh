#!/usr/bin/env bash
# `npm ci --no-audit --no-fund`, tolerating one defect of the registry reachable here: it answers 404 for
# other platforms' optional binary packages, so package-lock.json lacks their entries and a plain `npm ci`
# stops with "Missing: <pkg>@ from lock file". In that case (and only that one) the lock is copied aside,
# stub entries are added for the missing optional packages (.ci/lock-optional-stubs.mjs), `npm ci` runs,
# and the original lock is put back with its timestamp (so tools/bootstrap.mjs does not reinstall).
# Any other lock mismatch still fails. Run from a clone: `npm ci` replaces node_modules.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mkdir -p .ci/.work
out=.ci/.work/npm-ci.log
rc=0
npm ci --no-audit --no-fund "$@" >"$out" 2>&1 || rc=$?
if ((rc == 0)); then
  cat "$out"
  exit 0
fi

missing="$(grep -E '^npm error Missing: .+ from lock file$' "$out" || true)"
others="$(grep -E '^npm error (Missing|Invalid): ' "$out" | grep -vE ' from lock file$' || true)"
if [[ -z "$missing" || -n "$others" ]] || ! grep -q 'can only install packages when your package.json and package-lock.json' "$out"; then
  cat "$out" >&2
  exit "$rc"
fi

echo "npm-ci.sh: plain \`npm ci\` refused the lock only for missing optional entries ($(wc -l <<<"$missing") packages);" \
  "stubbing them and retrying" >&2
backup=.ci/.work/package-lock.orig.json
cp -p package-lock.json "$backup"
restore() { cp -p "$backup" package-lock.json && rm -f "$backup"; }
trap restore EXIT
node .ci/lock-optional-stubs.mjs package-lock.json >&2
# A name npm reported that the stubs do not cover is a real mismatch: this second `npm ci` fails on it.
npm ci --no-audit --no-fund "$@"
