"""MCP222 env-settings-not-read: `Settings` no longer reads `FASTMCP_*` environment variables or `.env`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP222", "import os\nport = os.environ.get('FASTMCP_PORT')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import os\nport = os.environ.get('PORT')\n",
]


class TestMCP222(RuleTests):
    rule = "MCP222"
    cases = CASES
    negative = NEGATIVE
