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

# Published servers (PyPI and npm) for tests/published.
bash .ci/published-peers.sh

# Headless Chromium for the fleet dashboard test (tests/fleet/test_fleet_dashboard.py): Debian's package,
# installed only when missing and when we may (root, as in CI); otherwise that test is skipped.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing chromium (apt)" >&2
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
           && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2; }; then
        echo "bootstrap: chromium could not be installed; the dashboard screenshot test will be skipped" >&2
    fi
fi
