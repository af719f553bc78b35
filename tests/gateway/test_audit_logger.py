"""The audit trail's own logger (issue 34, follow-up): ``mcp_eras.audit``, outside the bridge's ``mcp_bridge.*``
loggers, its lines at INFO, and kept when ``--log-level warning`` quiets the bridge; in JSON logs each line names its
logger, which is how an operator routes it (docs/fleet.md "Audit")."""

from __future__ import annotations

import json
import subprocess
import sys

from mcp_eras.bridge.translate.gateway import policy as gp

SCRIPT = """
import logging
from mcp_eras.bridge import clikit
from mcp_eras.bridge.gateway.audit import AuditLog
from mcp_eras.bridge.translate.gateway import policy as gp

clikit.setup_logging({level!r}, "json")
logging.getLogger("mcp_bridge.fleet").info("an ordinary info line")
AuditLog().write(gp.audit_record(principal="https://login.example/|reader", server="files", method="tools/call",
                                 tool="write", client_era="2026-07-28", upstream_era="2025-11-25", outcome="denied",
                                 duration=0.001))
"""


def lines(level: str) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(level=level)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]


def test_the_audit_has_its_own_logger_and_outlives_a_quieter_log_level() -> None:
    quiet = lines("warning")
    assert [(r["logger"], r["level"], r["event"]) for r in quiet] == [("mcp_eras.audit", "info", "audit")]
    record = quiet[0]
    assert {k: record[k] for k in gp.AUDIT_KEYS} == {
        "principal": "https://login.example/|reader", "server": "files", "method": "tools/call", "tool": "write",
        "client_era": "2026-07-28", "upstream_era": "2025-11-25", "outcome": "denied", "duration_ms": 1.0}
    assert [r["logger"] for r in lines("info")] == ["mcp_bridge.fleet", "mcp_eras.audit"]
