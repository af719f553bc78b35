"""Ground truth for mcp-migrate: the SDK's own hand-ported examples, migrated and compared by AST.

    .venv/bin/python bench/migrate_groundtruth.py PATH-TO-python-sdk-CHECKOUT [--select ALL] [--json] [--diff]

The measure lives in tests/migrate/groundtruth.py, where its own tests use it (tests never import from bench/); this
is its command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "migrate"))

from groundtruth import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
