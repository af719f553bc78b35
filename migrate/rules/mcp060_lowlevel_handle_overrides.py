"""MCP060 lowlevel-handle-overrides: subclasses overriding ``_handle_*`` dispatch methods must become middleware."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SubclassDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(SubclassDetector):
    META = RuleMeta(
        "MCP060",
        "lowlevel-handle-overrides",
        Kind.REQUIRED,
        Safety.REPORT,
        "Subclasses overriding `_handle_message`/`_handle_request`/`_handle_notification` -> middleware",
        "lowlevel-server-private-_handle_-dispatch-methods-removed",
    )
    TRIGGERS = ("_handle_",)
    BASES = LOWLEVEL_SERVER
    OVERRIDES = frozenset({"_handle_message", "_handle_notification", "_handle_request"})
    MESSAGE = "the _handle_* dispatch methods are gone: move this logic into Server(middleware=[...])"
