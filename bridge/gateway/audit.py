"""The audit log: one structured line per call through a server's gateway layer (``mcp_eras.bridge.layers.policy``),
on its own logger, ``mcp_eras.audit`` (``AUDIT_LOGGER``), outside the bridge's ``mcp_bridge`` loggers so that it can be
routed and kept apart from them: it writes to the same stderr handler (JSON with ``--log-format json``, where each
line names its ``logger`` and has ``"event": "audit"``), at INFO, and its level is pinned to INFO, so that
``--log-level warning`` quiets the bridge but not the audit trail. The fields are
``translate.gateway.policy.audit_record``'s: who called (the principal, never a token), which server, method and tool,
both eras, the outcome and the duration; the arguments only with ``audit_arguments = true``."""

from __future__ import annotations

import logging
from typing import Any

AUDIT_LOGGER = "mcp_eras.audit"
log = logging.getLogger(AUDIT_LOGGER)
log.setLevel(logging.INFO)


class AuditLog:
    def __init__(self, with_arguments: bool = False, logger: logging.Logger = log) -> None:
        self.with_arguments = with_arguments
        self.logger = logger

    def write(self, record: dict[str, Any]) -> None:
        self.logger.info("audit %s %s %s%s %s %.1fms", record["principal"] or "-", record["server"], record["method"],
                         f" {record['tool']}" if record["tool"] else "", record["outcome"], record["duration_ms"],
                         extra={"event": "audit", **record})
