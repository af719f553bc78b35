"""One test module per rule (``test_mcpNNN.py``), as bump-pydantic has: before/after pairs, negatives,
idempotence, untouched bytes and ``xfail`` (strict) cases for known gaps.

The helpers live one directory up, in ``migrate_helpers`` (put on ``sys.path`` here):

- ``migrate_source(src, "MCP003")`` (or ``select="MCP003"``/``select=["MCP0"]``) runs rules over a source
  string and returns ``(new source, findings)``; ``assert_idempotent``, ``dedent``, ``migrate_manifest``.
- ``class TestMCPNNN(RuleTests)`` with ``rule``, ``cases`` (``Case(rule, before, after, statuses, markers)``;
  ``after=None`` for a report-only site) and ``negative`` (sources left alone, nothing reported) runs on
  every case: before/after, second run (the rule alone, and every default rule), unrelated code keeps
  its bytes, the ``--markers`` policy, and every negative.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
