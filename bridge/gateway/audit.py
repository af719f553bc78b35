"""The audit log: one structured line per call through a server's gateway layer (``mcp_eras.bridge.layers.policy``),
on the ``mcp_bridge.audit`` logger (stderr, JSON with ``--log-format json``). The fields are
``translate.gateway.policy.audit_record``'s: who called (the principal, never a token), which server, method and tool,
both eras, the outcome and the duration; the arguments only with ``audit_arguments = true``."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("mcp_bridge.audit")


class AuditLog:
    def __init__(self, with_arguments: bool = False, logger: logging.Logger = log) -> None:
        self.with_arguments = with_arguments
        self.logger = logger

    def write(self, record: dict[str, Any]) -> None:
        self.logger.info("audit %s %s %s%s %s %.1fms", record["principal"] or "-", record["server"], record["method"],
                         f" {record['tool']}" if record["tool"] else "", record["outcome"], record["duration_ms"],
                         extra={"event": "audit", **record})
