"""A deliberately unfaithful copy of the legacy "everything" sample (mcp 1.29), for `mcp-bridge verify`.

Usage (run it with the mcp 1.x interpreter)::

    drift_server.py --drift KIND [KIND...] [stdio | http --port N]

Drift kinds (each changes exactly one thing against ``samples/legacy/everything_server.py``):

- ``description``: the ``echo`` tool's description is reworded;
- ``schema``: the ``add`` tool takes ``a: int, b: float`` (its inputSchema differs);
- ``result``: ``add`` answers ``a + b + 1``;
- ``missing``: the ``hello`` prompt is gone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "legacy"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import everything_server  # noqa: E402  (the legacy sample, imported as a module)
import surface  # noqa: E402

KINDS = ("description", "schema", "result", "missing")


def build(drifts: list[str]):  # type: ignore[no-untyped-def]
    mcp = everything_server.build_server()
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--drift", nargs="+", choices=KINDS, default=[])
    args = parser.parse_args(argv)
    surface.stderr_logging()
    mcp = build(args.drift)
    if args.transport == "http":
        mcp.settings.port = args.port
    mcp.run({"stdio": "stdio", "http": "streamable-http"}[args.transport])  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
