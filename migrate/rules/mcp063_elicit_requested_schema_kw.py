"""MCP063 elicit-requested-schema-kw: ``session.elicit(..., requestedSchema=)`` -> ``requested_schema=``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP063", "elicit-requested-schema-kw", Kind.REQUIRED, Safety.SAFE,
        '`session.elicit(..., requestedSchema=...)` -> `requested_schema=`',
        '',
    )
    TRIGGERS = ("requestedSchema",)
    METHODS = frozenset({"elicit", "elicit_form"})
    RECEIVERS = CONTEXT_CLASS | SESSION_CLASS
    RENAME_KW = {"requestedSchema": "requested_schema"}
    MESSAGE = "`requestedSchema=` -> `requested_schema=`"
