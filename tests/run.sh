#!/usr/bin/env bash
# The whole test suite from a fresh clone: builds the environments, lints, runs every test
# (unit, real-peer integration of both eras, conformance legs), then the HTTP fronts and the real-peer
# legs of both directions again with mcp-eras[fast] (uvloop, httptools and the fronts' shortcut).
# Extra args go to pytest (then only that one pass runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/bootstrap.sh
export MCP_ERAS_LEGACY_PYTHON="$PWD/.venvs/mcp1/bin/python"
.venv/bin/python -m ruff check bridge migrate mcp_eras tests samples bench
if [ "$#" -gt 0 ]; then
    exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
fi
.venv/bin/python -m pytest -q -p no:cacheprovider
echo "tests/run.sh: the fronts again with mcp-eras[fast]" >&2
PYTHONPATH="$PWD/.venvs/fast-libs" exec .venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/unit/test_perf_choices.py tests/inprocess/test_fast_post.py tests/inprocess/test_disconnect_watch.py \
    tests/inprocess/test_h11_guard.py tests/inprocess/test_http_front.py tests/inprocess/test_middleware.py tests/inprocess/test_http_framing.py \
    tests/inprocess/test_lean_http_wire.py tests/inprocess/test_event_stream.py tests/inprocess/test_child_process.py \
    tests/inprocess/test_legacy_upstream.py tests/inprocess/test_fastpath_fallback.py tests/inprocess/test_fastpath_lean_http.py \
    tests/integration/test_direction_a.py tests/integration/test_mrtr_a.py tests/integration/test_direction_b.py \
    tests/integration/test_front_bad_input.py tests/integration/test_matrix.py
