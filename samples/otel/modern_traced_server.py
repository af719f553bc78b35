"""A 2026-07-28 server (mcp 2.3.0) that records the trace context each request reached it with.

Usage (run it with the project interpreter)::

    modern_traced_server.py RECORD_FILE [stdio] | http --port N

Every tool of ``samples/modern/mrtr_server.py``, plus ``traced_summarize(text)``: each round appends one JSON line to
RECORD_FILE (``{"tool", "era", "round", "traceparent", "tracestate", "baggage"}``, read from the request's
``params._meta``), then asks the client's model for a summary (``input_required`` with a sampling request) or, on the
retry carrying the answer, returns it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "modern"))
import mrtr_server  # noqa: E402
from everything_server import parse_cli, serve  # noqa: E402
from mcp.server.mcpserver import Context  # noqa: E402
from mcp_types import InputRequiredResult  # noqa: E402
from trace_record import append, trace_keys  # noqa: E402


def received(params: Any) -> dict[str, Any]:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return trace_keys(meta if isinstance(meta, dict) else None)


def main(argv: list[str]) -> None:
    record = Path(argv[0])
    server = mrtr_server.build_server()

    @server.tool(description="Record the trace context received, then summarize with the client's model.",
                 structured_output=False)
    async def traced_summarize(text: str, ctx: Context) -> str | InputRequiredResult:
        summary = mrtr_server.sampled(ctx, "summary")
        line = {"tool": "traced_summarize", "era": "2026-07-28", "round": 1 if isinstance(summary, mrtr_server.Missing) else 2,
                **received(dict(ctx.request_context.params or {}))}
        append(record, line)
        if isinstance(summary, mrtr_server.Missing):
            return mrtr_server.ask(ctx, {"summary": mrtr_server.sampling_request(text)})
        return summary

    serve(server, parse_cli(__doc__.splitlines()[0], argv[1:], modern_only_flag=False))


if __name__ == "__main__":
    main(sys.argv[1:])
