"""MCP102 camel-kwargs-normalize: camelCase constructor kwargs on MCP models -> snake_case (`Tool(inputSchema=...)` -> `input_schema=`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP102", "import mcp.types as types\nt = types.Tool(name='t', inputSchema={}, outputSchema=None)\n",
         "import mcp.types as types\nt = types.Tool(name='t', input_schema={}, output_schema=None)\n", {"fixed"}),
    # models re-exported by `mcp` and by the server package are the same mcp.types classes
    Case("MCP102", "from mcp.server.fastmcp import Icon\ni = Icon(src='x', mimeType='image/png')\n",
         "from mcp.server.fastmcp import Icon\ni = Icon(src='x', mime_type='image/png')\n", {"fixed"}),
    Case("MCP102", "from mcp import Tool\nt = Tool(name='t', inputSchema={})\n",
         "from mcp import Tool\nt = Tool(name='t', input_schema={})\n", {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import Tool\nt = Tool(inputSchema={})\n",
]


class TestMCP102(RuleTests):
    rule = "MCP102"
    cases = CASES
    negative = NEGATIVE
