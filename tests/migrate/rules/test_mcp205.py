"""MCP205 httpx2-runtime-differences: SDK HTTP client now httpx2: OS trust store, UA `python-httpx2/...`, loggers `httpx2`/`httpcore2`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP205", "from mcp.client.sse import sse_client\nc = sse_client('http://x')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import sse_client\nsse_client('x')\n",
]


class TestMCP205(RuleTests):
    rule = "MCP205"
    cases = CASES
    negative = NEGATIVE
