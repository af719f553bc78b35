"""MCP022 oauth-callback-result: ``callback_handler`` returns ``AuthorizationCodeResult(code, state, iss)``
instead of ``(code, state)``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP022",
        "oauth-callback-result",
        Kind.REQUIRED,
        Safety.REPORT,
        "`callback_handler` returns `AuthorizationCodeResult(code, state, iss)` instead of `(code, state)`",
        "oauth-callback_handler-returns-authorizationcoderesult",
    )
    TRIGGERS = ("callback_handler",)
    CALLEES = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})
    KEYWORDS = frozenset({"callback_handler"})
    MESSAGE = "callback_handler must now return AuthorizationCodeResult(code=..., state=..., iss=...)"
