#!/usr/bin/env bash
# The main job, end to end on a fresh machine: build the environments, start mcp-bridge in front of
# the bundled legacy (mcp 1.29, 2025-11-25) sample servers, and call them with a 2026-07-28 client
# (mcp 2.3.0, mode="2026-07-28", no fallback) through the bridge. Everything prints to the terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/bootstrap.sh
PY=.venv/bin/python
export PYTHONWARNINGS=ignore  # mcp 1.x prints pydantic-settings warnings on every start
LEGACY=.venvs/mcp1/bin/python
PORT="${MCP_ERAS_DEMO_PORT:-8765}"
URL="http://127.0.0.1:$PORT/mcp"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

echo "== 1. A 2026 client straight at the legacy server fails (the spec's own matrix) =="
$PY samples/clients/modern_client.py --scenario basic -- "$LEGACY" samples/legacy/everything_server.py 2>/dev/null \
    || echo "   -> as expected: a 2025-only server cannot serve a 2026-07-28 client"

echo
echo "== 2. mcp-bridge on $URL, upstream: the legacy everything server as a stdio child =="
$PY -m bridge serve --listen "127.0.0.1:$PORT" --log-level warning -- "$LEGACY" samples/legacy/everything_server.py &
pids+=($!)
for _ in $(seq 100); do $PY -c "import socket,sys; socket.create_connection(('127.0.0.1',$PORT),0.2)" 2>/dev/null && break; sleep 0.1; done
$PY samples/clients/modern_client.py "$URL" --scenario basic --scenario progress --scenario logging --scenario subscriptions --scenario errors
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()

echo
echo "== 3. Elicitation, sampling and roots: a legacy server asks mid-call, the 2026 client answers input_required rounds =="
$PY samples/clients/modern_client.py --scenario mrtr -- $PY -m bridge serve --stdio --log-level warning -- "$LEGACY" samples/legacy/mrtr_server.py
echo
echo "demo finished: every call above went 2026-07-28 client -> mcp-bridge -> 2025-era server."
