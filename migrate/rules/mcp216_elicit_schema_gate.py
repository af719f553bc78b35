"""MCP216 elicit-schema-gate: ``ctx.elicit(schema=Model)`` validates the rendered schema (Optional, bare
lists, unions, nested models rejected)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP216",
        "elicit-schema-gate",
        Kind.ADVISORY,
        Safety.REPORT,
        "`ctx.elicit(schema=Model)` validates the rendered schema; mismatched accepts raise `ValueError`",
        "contextelicit-schema-gate-validates-the-rendered-schema",
    )
    TRIGGERS = ("schema=",)
    METHODS = frozenset(
        {
            "elicit",
        }
    )
    RECEIVERS = CONTEXT_CLASS
    KEYWORDS = frozenset(
        {
            "schema",
        }
    )
    MESSAGE = "elicit(schema=...) now rejects Optional fields, bare list[str], unions and nested models: check this model"
