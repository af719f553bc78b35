"""A 2026-07-28 server (mcp 2.3.0) for the 2025-front memory test (test_legacy_front_memory.py), over stdio.

It is ``samples/modern/mrtr_server.py`` (``ask_name``: one form elicitation, the direction B round trip) plus:

* ``big(size)``: one progress notification, then a text of ``size`` bytes (the progress makes the bridge answer a
  2025 client on an SSE stream, whose events it keeps for ``Last-Event-ID`` replay);
* ``changed()``: announces ``tools/list_changed`` (reaches a 2025 client on its GET stream).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "samples" / "modern"))
sys.path.insert(0, str(ROOT / "samples"))

from mcp.server.mcpserver import Context  # noqa: E402
from mrtr_server import build_server  # noqa: E402


def main() -> None:
    mcp = build_server()

    @mcp.tool(description="Report progress once, then answer a text of `size` bytes.", structured_output=False)
    async def big(size: int, ctx: Context) -> str:
        await ctx.report_progress(1, 1, "almost")
        return "x" * size

    @mcp.tool(description="Announce tools/list_changed.", structured_output=False)
    async def changed(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        return "announced"

    mcp.run("stdio")


if __name__ == "__main__":
    main()
