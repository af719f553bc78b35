#!/usr/bin/env bash
# Create the project's environments on a fresh machine (idempotent):
#   .venv        the project itself (editable) with its test extras, including mcp 2.3.0
#   .venvs/mcp1  the legacy peer: PyPI mcp 1.29.0, used to run 2025-era sample servers and clients
#   .venvs/oidc  npm oidc-provider 9.13.3: the OAuth authorization server of the sign-in tests (tests/auth).
#   .venvs/npm   npm @modelcontextprotocol/server-everything 2026.1.26: a 2025-11-25 tasks server of the
#                TypeScript SDK (its simulate-research-query tool runs as a task), for the tasks tests.
#   .venvs/fastmcp  a 2026 tasks-extension peer: FastMCP 4 + fastmcp-tasks (samples/modern/tasks_server.py).
#                fastmcp-tasks is the only PyPI runtime of the io.modelcontextprotocol/tasks extension; it
#                pulls pydocket/redis/cryptography and starlette>=1, so it gets its own environment
#                instead of widening the project's dependencies.
#   .venvs/fast-libs  mcp-eras[fast] (uvloop, httptools) as a plain folder: tests/run.sh puts it on PYTHONPATH
#                for a second pass over the HTTP-front tests and the real-peer direction A legs. Not in .venv:
#                mcp 2.3.0's own server (the conformance baseline) would pick httptools up as well.
# Re-running is cheap: each environment is rebuilt only when its inputs change.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
LEGACY_MCP="${MCP_ERAS_LEGACY_MCP:-mcp==1.29.0}"
TASKS_PEER="fastmcp-slim[server]==4.1.4 fastmcp-tasks==4.1.4"
EVERYTHING_NPM="@modelcontextprotocol/server-everything@2026.1.26"

stamp() { sha256sum pyproject.toml | cut -c1-16; }

if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.stamp 2>/dev/null)" != "$(stamp)" ]; then
    echo "bootstrap: creating .venv (project + test extras)" >&2
    "$PY" -m venv .venv
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]" >&2
    stamp >.venv/.stamp
fi

FAST_LIBS="uvloop>=0.19 httptools>=0.6"  # the [fast] extra of pyproject.toml
if [ "$(cat .venvs/fast-libs/.stamp 2>/dev/null)" != "$FAST_LIBS" ]; then
    echo "bootstrap: installing mcp-eras[fast] into .venvs/fast-libs" >&2
    rm -rf .venvs/fast-libs
    .venv/bin/python -m pip install -q --disable-pip-version-check --target .venvs/fast-libs $FAST_LIBS >&2
    echo "$FAST_LIBS" >.venvs/fast-libs/.stamp
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

if [ ! -x .venvs/fastmcp/bin/python ] || [ "$(cat .venvs/fastmcp/.stamp 2>/dev/null)" != "$TASKS_PEER" ]; then
    echo "bootstrap: creating .venvs/fastmcp ($TASKS_PEER)" >&2
    mkdir -p .venvs
    "$PY" -m venv .venvs/fastmcp
    # shellcheck disable=SC2086 # the list is word-split on purpose
    .venvs/fastmcp/bin/python -m pip install -q --disable-pip-version-check $TASKS_PEER >&2
    echo "$TASKS_PEER" >.venvs/fastmcp/.stamp
fi

if [ ! -x .venvs/npm/node_modules/.bin/mcp-server-everything ] || [ "$(cat .venvs/npm/.stamp 2>/dev/null)" != "$EVERYTHING_NPM" ]; then
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing nodejs and npm (Debian)" >&2
        apt-get update -q >&2 && apt-get install -y -q nodejs npm >&2
    fi
    if command -v npm >/dev/null 2>&1; then
        echo "bootstrap: installing $EVERYTHING_NPM into .venvs/npm" >&2
        mkdir -p .venvs/npm
        npm install --prefix .venvs/npm --no-fund --no-audit --no-update-notifier --loglevel=error "$EVERYTHING_NPM" >&2
        echo "$EVERYTHING_NPM" >.venvs/npm/.stamp
    else
        echo "bootstrap: npm not found; the server-everything tasks tests will fail until it is installed" >&2
    fi
fi

# The sign-in tests (tests/auth): npm oidc-provider as a real OAuth authorization server (dynamic registration,
# PKCE, resource indicators with JWT access tokens, refresh tokens, RFC 9207 iss), run by tests/auth/as_server.mjs.
OIDC_NPM="oidc-provider@9.13.3"
[ "$(cat .venvs/oidc/.stamp 2>/dev/null)" = "$OIDC_NPM" ] && [ -f .venvs/oidc/node_modules/oidc-provider/package.json ] ||
    { command -v npm >/dev/null 2>&1 && mkdir -p .venvs/oidc && echo "bootstrap: installing $OIDC_NPM into .venvs/oidc" >&2 &&
        npm install --prefix .venvs/oidc --no-fund --no-audit --no-update-notifier --loglevel=error "$OIDC_NPM" >&2 &&
        echo "$OIDC_NPM" >.venvs/oidc/.stamp; } ||
    echo "bootstrap: npm oidc-provider not installed; tests/auth will skip until it is" >&2

# The conformance harness and the Node 22 it needs (both from the npm registry), installed once under
# ~/.cache/mcp-conformance by the runner itself; done here so the first test run does not pay for it.
if command -v npm >/dev/null 2>&1; then
    bash tests/conformance/run-harness.sh --print-paths >/dev/null || echo "bootstrap: conformance harness not installed" >&2
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

# Issue 31 acceptance 3 (tests/migrate/test_migrate_public_corpus.py): published sdists of public projects
# that use the v1 SDK, by the name, version and sha256 of tests/migrate/data/public_corpus.toml, and the
# third-party packages their entry modules import, into .cache/migrate/public (idempotent: checked, not
# fetched again). A failure here makes that test fail under CI rather than skip.
.venv/bin/python tests/migrate/public_corpus.py fetch ||
    echo "bootstrap: the public migrate corpus could not be fetched; test_migrate_public_corpus will fail under CI" >&2
