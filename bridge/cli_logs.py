"""Log lines of every command: stderr, as text or as one JSON object per line (``--log-format json``).

Below ``clikit`` and ``fleet.serve`` (both use it), importing only the standard library.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

trace_ids: Callable[[], tuple[str, str] | None] | None = None
"""Set while OpenTelemetry is on (``mcp_eras.bridge.telemetry``): the active span's (trace_id, span_id), or None."""


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, plus the record's structured extras."""

    RESERVED = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime", "taskName"}

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if trace_ids is not None and (ids := trace_ids()) is not None:
            out["trace_id"], out["span_id"] = ids
        for key, value in record.__dict__.items():
            if key not in self.RESERVED and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def use_json_logs() -> None:
    """Every handler of the root logger (a stderr one if there is none) writes JSON lines."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
