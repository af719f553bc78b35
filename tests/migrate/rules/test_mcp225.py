"""MCP225 subscribe-capability-reported: `resources.subscribe: true` now advertised when a subscribe handler exists."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP225", "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.subscribe_resource()\n"
                   "async def sub(uri) -> None: ...\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(feed):\n    feed.subscribe_resource('x')\n",
]


class TestMCP225(RuleTests):
    rule = "MCP225"
    cases = CASES
    negative = NEGATIVE
