"""MCP032 get-session-id-removed: the ``get_session_id`` callback (``GetSessionIdCallback``) is gone;
the session id comes from an httpx2 response event hook. Uses of the third tuple element are
reported by MCP004; this rule reports the callback type."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP032",
        "get-session-id-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "Session id via the removed third tuple element -> httpx2 response event hook",
        "get_session_id-callback-removed-from-streamable_http_client",
    )
    TRIGGERS = ("GetSessionIdCallback",)
    NAMES = frozenset({"mcp.client.streamable_http.GetSessionIdCallback"})
    MESSAGE = "GetSessionIdCallback was removed: read mcp-session-id from an httpx2 response event hook"
