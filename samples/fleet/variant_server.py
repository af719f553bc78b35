"""Variants of the legacy "everything" sample (mcp 1.29) for fleet tests: deliberately unfaithful
copies (for `mcp-bridge verify`) and a copy with a gate tool that holds calls in flight.

Usage (run it with the mcp 1.x interpreter)::

    variant_server.py [--drift KIND [KIND...]] [--gate] [--read-only TOOL...] [--record FILE]
                      [--fail-file FILE] [stdio | http --port N]

``--gate`` adds two test tools: ``wait_for_file(path)`` polls for ``path`` and answers
``released <path>`` once it exists, so a test can keep calls in flight for as long as it needs (no
sleeps, no timing); ``show_env(name)`` answers the server's environment variable ``name`` (or
``<unset>``); ``show_trace()`` answers the W3C trace context keys (``traceparent``,
``tracestate``, ``baggage``) found in the request's ``_meta``, as JSON.

Staged-upgrade options (the modern twin, ``modern_twin.py``, takes the same): ``--read-only``
annotates the named tools ``readOnlyHint: true``; ``--record FILE`` appends one JSON line per
``tools/call`` (``{"tool": NAME}``) so a test can see which calls reached this server;
``--fail-file FILE`` answers every ``tools/call`` with a JSON-RPC error while FILE exists.

Drift kinds (each changes exactly one thing against ``samples/legacy/everything_server.py``):

- ``description``: the ``echo`` tool's description is reworded;
- ``schema``: the ``add`` tool takes ``a: int, b: float`` (its inputSchema differs);
- ``result``: ``add`` answers ``a + b + 1``;
- ``missing``: the ``hello`` prompt is gone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "legacy"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
import everything_server  # noqa: E402  (the legacy sample, imported as a module)
import surface  # noqa: E402
import twin_hooks  # noqa: E402
from mcp import types  # noqa: E402
from mcp.server.fastmcp import Context  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402

KINDS = ("description", "schema", "result", "missing")


def build(drifts: list[str], gate: bool = False):  # type: ignore[no-untyped-def]
    mcp = everything_server.build_server()
    if gate:
        @mcp.tool(description="Block until the file at path exists.", structured_output=False)
        async def wait_for_file(path: str) -> str:
            while not await anyio.Path(path).exists():  # noqa: ASYNC110 - another process creates the file
                await anyio.sleep(0.02)
            return f"released {path}"

        @mcp.tool(description="The value of an environment variable of this server process.", structured_output=False)
        def show_env(name: str) -> str:
            return os.environ.get(name, "<unset>")

        @mcp.tool(description="The trace context keys of this request's _meta, as JSON.", structured_output=False)
        async def show_trace(ctx: Context) -> str:
            meta = ctx.request_context.meta
            extra = (meta.model_extra or {}) if meta is not None else {}
            return json.dumps({k: extra[k] for k in ("traceparent", "tracestate", "baggage") if k in extra}, sort_keys=True)

    if "description" in drifts:
        mcp._tool_manager.get_tool("echo").description = "Echo the text back, verbatim."
    if "schema" in drifts or "result" in drifts:
        mcp.remove_tool("add")
        bump = 1 if "result" in drifts else 0
        if "schema" in drifts:
            def add(a: int, b: float) -> int:
                return int(a + b + bump)
        else:
            def add(a: int, b: int) -> int:  # type: ignore[misc]
                return a + b + bump
        mcp.add_tool(add, name="add", description="Add two integers.", structured_output=False)
    if "missing" in drifts:
        mcp._prompt_manager._prompts.pop("hello", None)
    return mcp


def stage(mcp, read_only: list[str], record: str | None, fail_file: str | None) -> None:  # type: ignore[no-untyped-def]
    """The staged-upgrade test hooks: read-only annotations, a call record, a failure switch."""
    for name in read_only:
        mcp._tool_manager.get_tool(name).annotations = types.ToolAnnotations(readOnlyHint=True)
    low = mcp._mcp_server
    handler = low.request_handlers[types.CallToolRequest]

    async def call_tool(req: types.CallToolRequest):  # type: ignore[no-untyped-def]
        if await twin_hooks.before_tool_call(req.params.name, record, fail_file):
            raise McpError(types.ErrorData(code=-32603, message=twin_hooks.FAIL_MESSAGE))
        return await handler(req)

    low.request_handlers[types.CallToolRequest] = call_tool


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--drift", nargs="+", choices=KINDS, default=[])
    parser.add_argument("--gate", action="store_true")
    parser.add_argument("--read-only", nargs="+", default=[], metavar="TOOL")
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--fail-file", metavar="FILE")
    args = parser.parse_args(argv)
    surface.stderr_logging()
    mcp = build(args.drift, args.gate)
    stage(mcp, args.read_only, args.record, args.fail_file)
    if args.transport == "http":
        mcp.settings.port = args.port
    mcp.run({"stdio": "stdio", "http": "streamable-http"}[args.transport])  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
