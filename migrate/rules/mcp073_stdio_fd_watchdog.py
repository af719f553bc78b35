"""MCP073 stdio-fd-watchdog: watchdogs polling fd 0 for POLLHUP/POLLERR are disarmed, or fire at
startup, under v2's stdio fd diversion."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

POLL_FLAGS = frozenset({"select.POLLHUP", "select.POLLERR", "select.POLLNVAL"})


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP073",
        "stdio-fd-watchdog",
        Kind.REQUIRED,
        Safety.REPORT,
        "Watchdogs polling fd 0 (POLLHUP/POLLERR) are disarmed or fire at startup under v2's fd diversion",
        "stdio_server-keeps-the-protocol-streams-on-private-descriptors",
    )
    TRIGGERS = ("POLLHUP", "POLLERR")

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self.resolves_to(node, POLL_FLAGS) and any(m.startswith("mcp") for m in self.ctx.table().modules):
            self.report(node, "v2 diverts the stdio fds: a POLLHUP watchdog on fd 0 no longer sees the client leave",
                        fixed=False)
        return True
