#!/usr/bin/env bash
# The main job, end to end: start mcp-bridge in front of the bundled legacy (mcp 1.29, 2025-11-25)
# sample servers and call them with a 2026-07-28 client (mcp 2.3.0, mode="2026-07-28", no fallback)
# through the bridge. Each scenario prints as soon as it finishes; long lines are folded.
#
# Environments: reuses .venv (made by .ci/bootstrap.sh) when it is there; otherwise builds
# .venvs/demo with only what the demo needs (the project and mcp 2.3.0, no test tools) and
# .venvs/mcp1 (mcp 1.29.0, the legacy peer). First run: about a minute of pip; then well under 60 s.
#
#   MCP_ERAS_DEMO_PORT=8765   the bridge's port (checked first: the demo stops if it is taken)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1          # every line as it happens, also through the pipes below
export PYTHONWARNINGS=ignore       # mcp 1.x prints pydantic-settings warnings on every start
PORT="${MCP_ERAS_DEMO_PORT:-8765}"
URL="http://127.0.0.1:$PORT/mcp"
WIDTH="$(( ${COLUMNS:-$(tput cols 2>/dev/null || echo 100)} - 2 ))"
START=$SECONDS

say() { printf '\n== %s (%ss)\n' "$*" "$((SECONDS - START))"; }
fold_lines() { fold -s -w "$WIDTH"; }

# 1. The port, before anything slow.
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "demo: port $PORT on 127.0.0.1 is already in use; free it or run with MCP_ERAS_DEMO_PORT=<another port>" >&2
    exit 1
fi

# 2. Environments: only what the demo needs.
PYTHON="${PYTHON:-python3}"
if [ -x .venv/bin/mcp-eras ] && .venv/bin/mcp-eras --version >/dev/null 2>&1 && .venv/bin/python -c "import mcp" 2>/dev/null; then
    PY=.venv/bin/python
else
    PY=.venvs/demo/bin/python
    stamp="$(sha256sum pyproject.toml | cut -c1-16)"
    if [ ! -x "$PY" ] || [ "$(cat .venvs/demo/.stamp 2>/dev/null)" != "$stamp" ]; then
        say "installing the project and mcp 2.3.0 into .venvs/demo (first run only)"
        "$PYTHON" -m venv .venvs/demo
        "$PY" -m pip install --disable-pip-version-check --progress-bar off -q -e ".[demo]" 2>&1 | fold_lines
        echo "$stamp" >.venvs/demo/.stamp
    fi
fi
# The installed command, not `python -m mcp_eras.bridge`: from the repository root the source folder mcp_eras/
# (which holds only the umbrella command) would shadow an installed, non-editable mcp_eras package.
BRIDGE="$(dirname "$PY")/mcp-bridge"
LEGACY=.venvs/mcp1/bin/python
LEGACY_MCP="${MCP_ERAS_LEGACY_MCP:-mcp==1.29.0}"
if [ ! -x "$LEGACY" ] || [ "$(cat .venvs/mcp1/.stamp 2>/dev/null)" != "$LEGACY_MCP" ]; then
    say "installing $LEGACY_MCP into .venvs/mcp1, the legacy peer (first run only)"
    "$PYTHON" -m venv .venvs/mcp1
    "$LEGACY" -m pip install --disable-pip-version-check --progress-bar off -q "$LEGACY_MCP" 2>&1 | fold_lines
    echo "$LEGACY_MCP" >.venvs/mcp1/.stamp
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

client() { "$PY" -u samples/clients/modern_client.py "$@" 2>&1 | fold_lines; }

say "1. A 2026 client straight at the legacy server fails (the spec's own matrix)"
if "$PY" -u samples/clients/modern_client.py --scenario basic -- "$LEGACY" samples/legacy/everything_server.py >/dev/null 2>&1; then
    echo "   unexpected: it worked"
else
    echo "   -> as expected: a 2025-only server cannot serve a 2026-07-28 client"
fi

say "2. mcp-bridge on $URL, upstream: the legacy everything server as a stdio child"
"$BRIDGE" serve --port "$PORT" --log-level warning -- "$LEGACY" samples/legacy/everything_server.py &
pids+=($!)
for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
    kill -0 "${pids[0]}" 2>/dev/null || { echo "demo: the bridge did not start" >&2; exit 1; }
    sleep 0.1
done
# The era verdict: a stdio upstream's era is settled by the bridge's first round trip with the child (server/discover,
# then initialize to confirm a 2025 answer), which /healthz's own check makes; until then /healthz reports era null.
# Ask again until the verdict is in, for at most 30 s.
"$PY" - "$PORT" <<'EOF'
import json, sys, time, urllib.error, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/healthz"
deadline = time.monotonic() + 30
while True:
    try:
        health = json.load(urllib.request.urlopen(url, timeout=10))
    except urllib.error.HTTPError as exc:  # 503 while the upstream cannot be reached: the body says why
        health = json.load(exc)
    up = health.get("upstream") or {}
    if up.get("era") or time.monotonic() > deadline:
        break
    time.sleep(0.2)
if up.get("era"):
    print(f"   the bridge detected the upstream's era: {up['era']} (probed over {up.get('probed') or 'stdio'}); /healthz says {health['status']}")
else:
    print(f"   no era verdict within 30 s; /healthz says {health['status']}: {health.get('reason') or up.get('state')}")
    sys.exit(1)
EOF
for scenario in basic progress logging subscriptions errors; do
    say "2.$scenario through the bridge"
    client "$URL" --scenario "$scenario"
done
"$PY" - "$PORT" <<'EOF'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=10).read().decode()
counts = [line for line in text.splitlines() if line.startswith("mcp_bridge_requests_total{")]
print("\n   what the bridge relayed, from its /metrics:")
print("\n".join(f"   {line}" for line in counts) or "   (no relayed requests counted)")
EOF
kill -INT "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()

say "3. Elicitation, sampling and roots: a legacy server asks mid-call, the 2026 client answers input_required rounds"
client --scenario mrtr -- "$BRIDGE" serve --stdio --log-level warning -- "$LEGACY" samples/legacy/mrtr_server.py

say "demo finished: section 1 went straight to the 2025-era server and failed; every call of sections 2 and 3 went 2026-07-28 client -> mcp-bridge -> 2025-era server"
