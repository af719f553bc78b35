"""MCP208 callbacks-concurrent: Client callbacks and notifications run concurrently (no ordering); raising callbacks answer code 0."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests, migrate_source

CASES: list[Case] = [
    Case("MCP208", "from mcp import ClientSession\ns = ClientSession(r, w, sampling_callback=cb)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import ClientSession\nClientSession(sampling_callback=cb)\n",
]


class TestMCP208(RuleTests):
    rule = "MCP208"
    cases = CASES
    negative = NEGATIVE


IN_MEMORY = """
from mcp.shared.memory import create_connected_server_and_client_session
async def t(server, cb):
    async with create_connected_server_and_client_session(server, logging_callback=cb) as session:
        await session.list_tools()
"""


def test_the_v1_in_memory_helper_reports_mcp208_in_the_first_run() -> None:
    _, findings = migrate_source(IN_MEMORY)
    assert "MCP208" in {f.rule for f in findings}
