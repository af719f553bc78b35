"""MCP057 lowlevel-kwonly-ctor: ``Server("name", "1.0", ...)`` positional args -> keywords."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.positional import PositionalToKeywords
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(PositionalToKeywords):
    META = RuleMeta("MCP057", "lowlevel-kwonly-ctor", Kind.REQUIRED, Safety.SAFE,
                    '`Server("name", "1.0", ...)` positional args -> keywords',
                    "lowlevel-server-constructor-parameters-are-now-keyword-only")
    TRIGGERS = ("Server(",)
    CALLEES = LOWLEVEL_SERVER
    V1_POSITIONAL = ("version", "instructions", "website_url", "icons", "lifespan")
    MESSAGE = "lowlevel Server constructor parameters are keyword-only in v2"
