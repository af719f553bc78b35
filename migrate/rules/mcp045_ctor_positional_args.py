"""MCP045 ctor-positional-args: positional ``FastMCP(name, instructions, ...)`` args -> keywords.

v2 inserted ``title``, ``description`` and ``version`` after ``name``, so a v1 positional
``instructions`` would silently become the title. Keywords follow the v1 (1.17+) signature.
"""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.positional import PositionalToKeywords
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(PositionalToKeywords):
    META = RuleMeta("MCP045", "ctor-positional-args", Kind.REQUIRED, Safety.SAFE,
                    "Positional `FastMCP(name, instructions, ...)` args -> keywords (2nd positional is now `title`)",
                    "mcpserver-constructor-title-description-and-version-added-to-the-positional-parameters")
    TRIGGERS = ("FastMCP(", "MCPServer(")
    CALLEES = frozenset(n for n in SERVER_CLASS if n.endswith("FastMCP"))
    V1_POSITIONAL = ("instructions", "website_url", "icons", "auth_server_provider", "token_verifier", "event_store",
                     "retry_interval")
    MESSAGE = "v1 positional constructor arguments -> keywords"
