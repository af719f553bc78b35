"""MCP068 shared-session-removed: ``mcp.shared.session`` is gone in v2 (RequestResponder, BaseSession)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP068",
        "shared-session-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "`mcp.shared.session` removed (`RequestResponder`, `BaseSession`, generic TypeVars)",
        "clientsession-now-runs-on-jsonrpcdispatcher-basesession-removed",
    )
    TRIGGERS = ("session",)
    PREFIXES = ("mcp.shared.session",)
    MESSAGE = "mcp.shared.session was removed: type message handlers with the v2 client types by hand"
