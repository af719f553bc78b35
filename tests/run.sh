#!/usr/bin/env bash
# The whole test suite from a fresh clone: builds the environments, lints, runs every test
# (unit, real-peer integration of both eras, conformance legs). Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/bootstrap.sh
export MCP_ERAS_LEGACY_PYTHON="$PWD/.venvs/mcp1/bin/python"
.venv/bin/python -m ruff check bridge migrate mcp_eras tests samples bench
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
