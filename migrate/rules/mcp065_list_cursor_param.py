"""MCP065 list-cursor-param: ``session.list_tools(cursor=c)`` -> ``params=PaginatedRequestParams(cursor=c)``."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector
from migrate.rules.sdk import SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP065",
        "list-cursor-param",
        Kind.REQUIRED,
        Safety.REPORT,
        "`session.list_tools(cursor=c)` -> `session.list_tools(params=PaginatedRequestParams(cursor=c))`",
    )
    TRIGGERS = ("cursor=",)
    METHODS = frozenset({"list_prompts", "list_resource_templates", "list_resources", "list_tools"})
    RECEIVERS = SESSION_CLASS
    KEYWORDS = frozenset({"cursor"})
    MESSAGE = "cursor= was removed: pass params=types.PaginatedRequestParams(cursor=...)"
