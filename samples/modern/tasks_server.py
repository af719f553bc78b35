"""2026-07-28 server with the ``io.modelcontextprotocol/tasks`` extension, written for FastMCP 4 +
``fastmcp-tasks`` 4.1.4 (PyPI; the only 2026 tasks server runtime we found). Run it with the
``.venvs/fastmcp`` interpreter (built by .ci/bootstrap.sh).

Usage::

    tasks_server.py [stdio] | http --port N [--host 127.0.0.1]

Server name ``modern-tasks``; the extension keeps tasks in memory (``memory://``). Tools (each may run
as a task; the server decides per call, ext tasks.mdx §Capability Negotiation):

- ``slow(steps=3, step_ms=100)``: sleeps ``steps`` x ``step_ms``; ``slow: <steps> steps done``.
- ``confirm(filename)``: asks ``{"confirm": boolean}`` mid-task (the guard pattern: it returns an
  input request; fastmcp-tasks surfaces it as ``inputRequests`` and re-runs the tool after
  ``tasks/update``); ``deleted <filename>`` or ``kept <filename>``.
- ``fail()``: a tool error (``isError: true``: ``completed`` in 2026, ``failed`` for a 2025 client).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import mcp_types  # noqa: E402
import surface  # noqa: E402
from fastmcp import Context, FastMCP  # noqa: E402
from fastmcp.exceptions import ToolError  # noqa: E402
from fastmcp_tasks import TasksExtension  # noqa: E402

CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


def build() -> FastMCP:
    mcp = FastMCP("modern-tasks")
    mcp.add_extension(TasksExtension(url="memory://"))

    @mcp.tool(task=True)
    async def slow(steps: int = 3, step_ms: int = 100) -> str:
        """Counts steps slowly."""
        for _ in range(steps):
            await asyncio.sleep(step_ms / 1000)
        return f"slow: {steps} steps done"

    @mcp.tool(task=True)
    async def confirm(filename: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
        """Asks the user to confirm deleting a file."""
        answers = ctx.input_responses or {}
        answer = answers.get("confirm")
        if answer is None:
            ask = mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(
                message=f"Delete {filename}?", requested_schema=CONFIRM_SCHEMA))
            return mcp_types.InputRequiredResult(input_requests={"confirm": ask})
        data = answer.model_dump(by_alias=True) if hasattr(answer, "model_dump") else dict(answer)
        ok = data.get("action") == "accept" and bool((data.get("content") or {}).get("confirm"))
        return f"deleted {filename}" if ok else f"kept {filename}"

    @mcp.tool(task=True)
    async def fail() -> str:
        """Returns a tool error."""
        raise ToolError("failed on purpose")

    return mcp


def main(argv: list[str] | None = None) -> None:
    transport, host, port = surface.stdio_or_http_args(__doc__.splitlines()[0], argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    mcp = build()
    if transport == "http":
        mcp.run("http", host=host, port=port, path="/mcp", show_banner=False)
    else:
        mcp.run("stdio", show_banner=False)


if __name__ == "__main__":
    main()
