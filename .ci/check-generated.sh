#!/usr/bin/env bash
# Generated-code drift check, run by .ci/run right after `npm run generate`: fails when generation changed
# committed files under the generated directories, deleted some, or produced files that are not committed.
# Fix: run `npm run generate` locally and commit the result.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# services/gateway/openapi: openapi.yaml, generated from the zod contract in services/gateway/src/contract.
GENERATED_DIRS=(packages/contracts/src/gen services/gateway/openapi)

changes="$(git status --porcelain=v1 --untracked-files=all -- "${GENERATED_DIRS[@]}")"
if [[ -z "$changes" ]]; then
  echo "generated code is up to date (${GENERATED_DIRS[*]})"
  exit 0
fi

echo "ERROR: generated code differs from what is committed (${GENERATED_DIRS[*]})." >&2
echo "Run \`npm run generate\` and commit the result. Changed (M), deleted (D) or untracked (??) files:" >&2
printf '%s\n' "$changes" >&2
echo "--- diff (first 200 lines) ---" >&2
git --no-pager diff --no-color -- "${GENERATED_DIRS[@]}" | head -n 200 >&2
exit 1
