"""MCP050 resource-extra-forbid: `Resource` subclasses (`TextResource`, `FunctionResource`, `FileResource`, ...) reject unknown kwargs."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP050", "from mcp.server.fastmcp.resources import FunctionResource\n"
                   "r = FunctionResource(uri='x://y', fn=f, tags=['x'])\n", None, {"manual"}, 1),
    Case("MCP050", "from mcp.server.fastmcp.resources.types import TextResource\n"
                   "r = TextResource(uri='x://y', text='t', extra_field=1, name='n')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import FunctionResource\nFunctionResource(uri='x', fn=f, tags=['x'])\n",
    "from mcp.server.fastmcp.resources import FunctionResource\nr = FunctionResource(uri='x://y', fn=f, name='n', "
    "mime_type='text/plain')\n",
    "from mcp.server.fastmcp.resources import FunctionResource\nr = FunctionResource(uri='x://y', fn=f, **extra)\n",
]


class TestMCP050(RuleTests):
    rule = "MCP050"
    cases = CASES
    negative = NEGATIVE
