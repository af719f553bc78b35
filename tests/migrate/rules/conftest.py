"""One test module per rule (``test_mcpNNN.py``): cases, negatives, idempotence and ``xfail``
(strict) cases for known gaps. The shared helpers live one directory up."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
