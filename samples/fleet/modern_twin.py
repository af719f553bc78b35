"""The migrated twin of ``variant_server.py`` for staged-upgrade tests: the modern "everything" sample
(mcp 2.3.0, both eras) with the same test hooks, so a legacy server and its twin can sit side by side
behind one fleet bridge (``shadow`` and ``canary``).

Usage (run it with the mcp 2.x interpreter)::

    modern_twin.py [--drift result] [--read-only TOOL...] [--record FILE] [--fail-file FILE] [stdio | http --port N]

``--drift result``: ``add`` answers ``a + b + 1`` (a deliberately unfaithful twin);
``--read-only``: annotate the named tools ``readOnlyHint: true``; ``--record FILE``: append one JSON
line per ``tools/call`` (``{"tool": NAME}``); ``--fail-file FILE``: every ``tools/call`` fails with a
JSON-RPC error while FILE exists.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "modern"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import everything_server  # noqa: E402  (the modern sample, imported as a module)
import surface  # noqa: E402
import twin_hooks  # noqa: E402
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_types import ToolAnnotations  # noqa: E402


def build(drift: list[str], read_only: list[str], record: str | None, fail_file: str | None) -> MCPServer:
    mcp = everything_server.build_server()
    for name in read_only:
        tool = mcp._tool_manager.get_tool(name)
        assert tool is not None, name
        tool.annotations = ToolAnnotations(read_only_hint=True)
    if "result" in drift:
        mcp.remove_tool("add")

        def add(a: int, b: int) -> int:
            return a + b + 1

        mcp.add_tool(add, name="add", description="Add two integers.", structured_output=False)
        if "add" in read_only:
            tool = mcp._tool_manager.get_tool("add")
            assert tool is not None
            tool.annotations = ToolAnnotations(read_only_hint=True)

    async def hooks(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call":
            if await twin_hooks.before_tool_call((ctx.params or {}).get("name"), record, fail_file):
                raise MCPError(code=-32603, message=twin_hooks.FAIL_MESSAGE)
        return await call_next(ctx)

    mcp.middleware.append(hooks)
    return mcp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--drift", nargs="+", choices=["result"], default=[])
    parser.add_argument("--read-only", nargs="+", default=[], metavar="TOOL")
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--fail-file", metavar="FILE")
    args = parser.parse_args(argv)
    surface.stderr_logging()
    everything_server.serve(build(args.drift, args.read_only, args.record, args.fail_file), args)


if __name__ == "__main__":
    main()
