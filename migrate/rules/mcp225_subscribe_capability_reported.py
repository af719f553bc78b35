"""MCP225 subscribe-capability-reported: a lowlevel server with a subscribe handler now advertises
``resources.subscribe: true``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(CallDetector):
    META = RuleMeta(
        "MCP225",
        "subscribe-capability-reported",
        Kind.ADVISORY,
        Safety.REPORT,
        "`resources.subscribe: true` now advertised when a subscribe handler exists",
        "lowlevel-server-subscribe-capability-now-correctly-reported",
    )
    TRIGGERS = ("subscribe_resource",)
    METHODS = frozenset({"subscribe_resource"})
    RECEIVERS = LOWLEVEL_SERVER
    MESSAGE = "with this handler the server now advertises resources.subscribe: true (v1 did not)"
