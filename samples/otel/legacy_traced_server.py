"""A 2025-11-25 server (mcp 1.29.0) that records the trace context each request reached it with.

Usage (run it with the mcp 1.x interpreter)::

    legacy_traced_server.py RECORD_FILE [stdio] | http --port N

Every tool of ``samples/legacy/mrtr_server.py``, plus ``traced_ask_name``: it appends one JSON line to RECORD_FILE
(``{"tool", "era", "traceparent", "tracestate", "baggage"}``, read from the request's ``params._meta``, where a 2025
server finds W3C trace context per the OpenTelemetry MCP conventions, and ``header_traceparent``, the HTTP header of
the request on Streamable HTTP), then asks the user's name (form elicitation).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "legacy"))
import mrtr_server  # noqa: E402
from mcp.server.fastmcp import Context  # noqa: E402
from trace_record import append, trace_keys  # noqa: E402


def received(meta: Any) -> dict[str, Any]:
    """The trace keys of a request's ``_meta`` (1.29 keeps unknown ``_meta`` keys as model extras)."""
    return trace_keys(meta.model_dump(by_alias=True) if meta is not None else None)


def main(argv: list[str]) -> None:
    record = Path(argv[0])
    server = mrtr_server.build_server()

    @server.tool(description="Record the trace context received, then ask the user's name.")
    async def traced_ask_name(ctx: Context) -> str:
        http = ctx.request_context.request  # (the HTTP request on Streamable HTTP, None on stdio)
        append(record, {"tool": "traced_ask_name", "era": "2025-11-25", **received(ctx.request_context.meta),
                        "header_traceparent": http.headers.get("traceparent") if http is not None else None,
                        "session_id": http.headers.get("mcp-session-id") if http is not None else None})
        name = await mrtr_server.ask_for_name(ctx)
        return f"Hello, {name}!" if name is not None else "declined"

    transport = argv[1] if len(argv) > 1 else "stdio"
    if transport == "http":
        server.settings.port = int(argv[argv.index("--port") + 1])
    server.run({"stdio": "stdio", "http": "streamable-http"}[transport])  # type: ignore[arg-type]


if __name__ == "__main__":
    main(sys.argv[1:])
