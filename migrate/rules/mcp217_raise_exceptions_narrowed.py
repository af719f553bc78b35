"""MCP217 raise-exceptions-narrowed: ``server.run(..., raise_exceptions=True)`` no longer re-raises
transport errors."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(CallDetector):
    META = RuleMeta(
        "MCP217",
        "raise-exceptions-narrowed",
        Kind.ADVISORY,
        Safety.REPORT,
        "`server.run(..., raise_exceptions=True)` no longer re-raises transport (parse) errors",
        "lowlevel-serverrunraise_exceptionstrue-transport-errors-no-longer-re-raised",
    )
    TRIGGERS = ("raise_exceptions",)
    METHODS = frozenset(
        {
            "run",
        }
    )
    RECEIVERS = LOWLEVEL_SERVER
    KEYWORDS = frozenset(
        {
            "raise_exceptions",
        }
    )
    MESSAGE = "raise_exceptions=True no longer re-raises transport (parse) errors"
