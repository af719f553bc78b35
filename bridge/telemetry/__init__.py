"""OpenTelemetry for the bridge (the optional extra ``mcp-eras[otel]``): spans, the MCP metrics and trace ids in logs.

Off unless asked for (``--otel``, or ``MCP_ERAS_OTEL=1``) and installed. Off means no OpenTelemetry import at all: the
hook the call path reads (``current()``) is None and the observed call is the one without tracing. What a span carries
and how trace context crosses the eras is decided in ``mcp_eras.bridge.translate.trace_context``; ``otel`` holds the
SDK set-up and the traced call.
"""

from __future__ import annotations

import logging
import os
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_eras.bridge.telemetry.otel import Telemetry

log = logging.getLogger("mcp_bridge.telemetry")

ENV_SWITCH = "MCP_ERAS_OTEL"
ENV_ARGUMENTS = "MCP_ERAS_OTEL_ARGUMENTS"
"""``1``: spans of tools/call also carry the call's arguments (``gen_ai.tool.call.arguments``); off by default."""

_active: Telemetry | None = None


def current() -> Telemetry | None:
    """The running telemetry, None when off (the only thing the call path asks)."""
    return _active


def waiting(name: str) -> AbstractContextManager[Any]:
    """A span for a wait inside a call (``mcp_eras.lease_wait``: a call queued for a 2025 session's input lease), child
    of the call's client span; nothing when off. For slow paths only: it is one call and a check when off."""
    return nullcontext() if _active is None else _active.tracer.start_as_current_span(name)


def upstream_session(trace: dict[str, str], session_id: str | None) -> None:
    """A traced request (``trace``: the W3C fields it carries) goes to a 2025 server's session ``session_id``: its client
    span gets ``mcp.session.id``. Nothing when off or without a session (a stdio child, a 2026 server)."""
    if _active is not None and session_id:
        _active.upstream_session(trace.get("traceparent", ""), session_id)


def wanted(flag: bool) -> bool:
    """``--otel`` given, or ``MCP_ERAS_OTEL`` set to 1/true/yes; ``OTEL_SDK_DISABLED=true`` wins over both."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return flag or os.environ.get(ENV_SWITCH, "").strip().lower() in ("1", "true", "yes", "on")


def enable(flag: bool, transport: str = "tcp", instance: str | None = None) -> Telemetry | None:
    """Start OpenTelemetry when wanted and installed (configured by the standard ``OTEL_*`` variables); a missing
    package is one warning and the bridge runs without it."""
    global _active
    if _active is not None or not wanted(flag):
        return _active
    try:
        from mcp_eras.bridge.telemetry.otel import Telemetry, from_environment
    except ImportError as exc:
        log.warning("OpenTelemetry asked for but not installed (%s): pip install 'mcp-eras[otel]'; running without it", exc)
        return None
    _active = Telemetry(*from_environment(instance), transport=transport,
                        with_arguments=os.environ.get(ENV_ARGUMENTS, "").strip().lower() in ("1", "true", "yes", "on"))
    from mcp_eras.bridge import cli_logs

    cli_logs.trace_ids = _active.current_ids
    log.info("OpenTelemetry on: traces and metrics over OTLP/HTTP (OTEL_* variables)", extra={"event": "otel"})
    return _active


def disable() -> None:
    """Flush and stop (at exit; tests)."""
    global _active
    active, _active = _active, None
    if active is not None:
        from mcp_eras.bridge import cli_logs

        cli_logs.trace_ids = None
        active.shutdown()
