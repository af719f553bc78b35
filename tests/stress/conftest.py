"""Stress and fuzz tests reuse the in-process fakes (tests/inprocess) at a volume the in-process suite,
kept under 30 s, does not carry."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "inprocess"))
