"""MCP080 memory-streams-api: `create_client_server_memory_streams()` wrappers lack `send_nowait`/`receive_nowait`/`statistics()`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP080", "from mcp.shared.memory import create_client_server_memory_streams\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.shared.memory import Something\n",
]


class TestMCP080(RuleTests):
    rule = "MCP080"
    cases = CASES
    negative = NEGATIVE
