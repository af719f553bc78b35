"""MCP048 internal-context-arg: `Tool.run`, `ToolManager.call_tool`, `Prompt.render`,
`ResourceTemplate.create_resource` require a positional `context`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP048", "from mcp.server.fastmcp.prompts.base import Prompt\nasync def f(p: Prompt) -> None:\n"
                   "    await p.render({})\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(template):\n    template.render({})\n",
]


class TestMCP048(RuleTests):
    rule = "MCP048"
    cases = CASES
    negative = NEGATIVE
