"""MCP074 websocket-removed: the WebSocket transport was removed."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP074",
        "websocket-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "WebSocket transport removed (`mcp.client.websocket`, `mcp.server.websocket`)",
        "websocket-transport-removed",
    )
    TRIGGERS = ("websocket",)
    PREFIXES = ("mcp.client.websocket", "mcp.server.websocket")
    MESSAGE = "the WebSocket transport was removed in v2: switch to streamable HTTP"
