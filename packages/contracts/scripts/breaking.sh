#!/usr/bin/env sh
# Checks proto/ for breaking changes (buf rule set FILE) against an earlier commit.
#   packages/contracts/scripts/breaking.sh [git-ref]      (default ref: HEAD~1, or $BUF_BREAKING_AGAINST)
# Exits 0 with a message when there is nothing to compare with: the default HEAD~1 does not exist
# (first commit, shallow clone) or the commit has no proto/buf.yaml. An explicit ref that does not
# exist is an error. Runs offline (buf ships in node_modules; the git input is the local repository).
set -eu

repo_root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
ref=${1:-${BUF_BREAKING_AGAINST:-HEAD~1}}
cd "$repo_root"

buf=$repo_root/node_modules/.bin/buf
if [ ! -x "$buf" ]; then
  echo "breaking: $buf not found; run npm ci first" >&2
  exit 1
fi

if ! commit=$(git rev-parse --verify --quiet "$ref^{commit}"); then
  if [ "$ref" = "HEAD~1" ]; then
    echo "breaking: no previous commit to compare with (first commit or shallow clone); skipped."
    exit 0
  fi
  echo "breaking: unknown git ref '$ref'" >&2
  exit 1
fi
if ! git cat-file -e "$commit:proto/buf.yaml" 2>/dev/null; then
  echo "breaking: '$ref' ($commit) has no proto/buf.yaml; nothing to compare with; skipped."
  exit 0
fi

echo "breaking: checking proto/ against $ref ($commit)"
git_dir=$(git rev-parse --path-format=absolute --git-common-dir)
"$buf" breaking proto --against "$git_dir#format=git,ref=$commit,subdir=proto"
echo "breaking: no breaking changes against $ref."
