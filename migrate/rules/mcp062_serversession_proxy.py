"""MCP062 serversession-proxy: ``ServerSession`` is a per-request proxy in v2: subclasses/constructions need
a hand port."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SubclassDetector


class Rule(SubclassDetector):
    META = RuleMeta(
        "MCP062",
        "serversession-proxy",
        Kind.REQUIRED,
        Safety.REPORT,
        "`ServerSession` is a per-request proxy: identity-keyed state, direct construction/subclassing",
        "serversession-is-now-a-thin-proxy-no-longer-a-basesession",
    )
    TRIGGERS = ("ServerSession",)
    BASES = frozenset({"mcp.server.session.ServerSession"})
    OVERRIDES = frozenset({})
    MESSAGE = "ServerSession is a per-request proxy in v2: do not subclass/construct it or key state on its identity"
