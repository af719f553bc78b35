#!/usr/bin/env bash
# Published MCP servers of the 2025 era that real users run, for tests/published (idempotent):
#   .venvs/published  PyPI mcp-server-time / -fetch / -git on mcp 1.29.0 (their last 2025-era pins)
#   .cache/published-npm  npm server-everything (two 2025-era releases), server-filesystem, server-memory
# All versions are pinned so a new release cannot change the test's reference answers.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
PYPI_PEERS="mcp==1.29.0 mcp-server-time==2026.7.10 mcp-server-fetch==2026.7.10 mcp-server-git==2026.7.10"
NPM_PEERS="everything-2025-11@npm:@modelcontextprotocol/server-everything@2025.11.25
everything-2026-08@npm:@modelcontextprotocol/server-everything@2026.8.31
@modelcontextprotocol/server-filesystem@2026.8.31
@modelcontextprotocol/server-memory@2026.8.31"

if [ "$(cat .venvs/published/.stamp 2>/dev/null)" != "$PYPI_PEERS" ]; then
    echo "published-peers: creating .venvs/published ($PYPI_PEERS)" >&2
    rm -rf .venvs/published
    "$PY" -m venv .venvs/published
    # shellcheck disable=SC2086
    .venvs/published/bin/python -m pip install -q --disable-pip-version-check $PYPI_PEERS >&2
    echo "$PYPI_PEERS" >.venvs/published/.stamp
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "published-peers: npm not found; the npm servers' tests will be skipped" >&2
elif [ "$(cat .cache/published-npm/.stamp 2>/dev/null)" != "$NPM_PEERS" ]; then
    echo "published-peers: installing npm servers into .cache/published-npm" >&2
    mkdir -p .cache/published-npm
    # shellcheck disable=SC2086
    npm install --silent --no-audit --no-fund --prefix .cache/published-npm $NPM_PEERS >&2
    echo "$NPM_PEERS" >.cache/published-npm/.stamp
fi
