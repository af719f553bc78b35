#!/usr/bin/env bash
# Create the project's environments on a fresh machine (idempotent):
#   .venv        the project itself (editable) with its test extras, including mcp 2.3.0
#   .venvs/mcp1  the legacy peer: PyPI mcp 1.29.0, used to run 2025-era sample servers and clients
# Re-running is cheap: each environment is rebuilt only when its inputs change.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
LEGACY_MCP="${MCP_ERAS_LEGACY_MCP:-mcp==1.29.0}"

stamp() { sha256sum pyproject.toml | cut -c1-16; }

if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.stamp 2>/dev/null)" != "$(stamp)" ]; then
    echo "bootstrap: creating .venv (project + test extras)" >&2
    "$PY" -m venv .venv
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]" >&2
    stamp >.venv/.stamp
fi

if [ ! -x .venvs/mcp1/bin/python ] || [ "$(cat .venvs/mcp1/.stamp 2>/dev/null)" != "$LEGACY_MCP" ]; then
    echo "bootstrap: creating .venvs/mcp1 ($LEGACY_MCP)" >&2
    mkdir -p .venvs
    "$PY" -m venv .venvs/mcp1
    .venvs/mcp1/bin/python -m pip install -q --disable-pip-version-check "$LEGACY_MCP" >&2
    echo "$LEGACY_MCP" >.venvs/mcp1/.stamp
fi

# Real parts of the scale-out tests (tests/scale): a Redis server and a load balancer, from Debian.
# CI runs as root on a fresh Debian machine; elsewhere the tests skip with a clear reason if absent.
if ! command -v redis-server >/dev/null || ! { command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; }; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "bootstrap: installing redis-server and haproxy (Debian)" >&2
        { apt-get install -y -q redis-server haproxy || { apt-get update -q && apt-get install -y -q redis-server haproxy; }; } >&2
        # The package starts a system-wide instance; the tests run their own on free ports.
        systemctl disable --now redis-server >/dev/null 2>&1 || service redis-server stop >/dev/null 2>&1 || true
    else
        echo "bootstrap: redis-server/haproxy missing and not root: tests/scale will skip" >&2
    fi
fi

# Published servers (PyPI and npm) for tests/published.
bash .ci/published-peers.sh
