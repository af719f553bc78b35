"""Legacy (2025-11-25) server with experimental tasks, written for mcp 1.29.0's lowlevel tasks API
(``server.experimental.enable_tasks()`` and ``ctx.experimental.run_task``).

Usage (run it with the mcp 1.x interpreter)::

    tasks_server.py [stdio] | http --port N [--host 127.0.0.1]

Server name ``legacy-tasks``. It declares ``capabilities.tasks`` (list, cancel, requests.tools.call)
and these tools (2025-11-25 basic/utilities/tasks.mdx §Tool-Level Negotiation in brackets):

- ``slow(steps=3, step_ms=100)`` [optional]: ``steps`` status updates ``step i/steps``, ``step_ms``
  apart; result ``slow: <steps> steps done``. Run plainly (no ``task``) it answers directly.
- ``confirm(filename)`` [required]: elicits ``{"confirm": boolean}`` mid-task (the request reaches the
  client on the ``tasks/result`` stream, with related-task ``_meta``); ``deleted <filename>`` or
  ``kept <filename>``.
- ``fail()`` [optional]: a tool error: stores ``isError: true`` result ``failed on purpose`` and moves the
  task to ``failed`` (§Task Status: isError -> failed).
- ``crash()`` [optional]: raises; the SDK fails the task without a result.
- ``echo(text)`` [no execution field: forbidden]: ``echo: <text>``, never a task.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import anyio  # noqa: E402
import surface  # noqa: E402
from mcp import types  # noqa: E402
from mcp.server.experimental.task_context import ServerTaskContext  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402

log = logging.getLogger("legacy-tasks")

server: Server = Server("legacy-tasks")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # 1.29 marks the experimental tasks API deprecated
    server.experimental.enable_tasks()

CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


def text(value: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)], isError=is_error)


def _tool(name: str, description: str, properties: dict[str, Any], support: str | None) -> types.Tool:
    execution = types.ToolExecution(taskSupport=support) if support else None  # type: ignore[arg-type]
    return types.Tool(name=name, description=description, inputSchema={"type": "object", "properties": properties},
                      execution=execution)


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        _tool("slow", "Counts steps slowly, reporting each as the task status.",
              {"steps": {"type": "integer"}, "step_ms": {"type": "integer"}}, types.TASK_OPTIONAL),
        _tool("confirm", "Asks the user to confirm deleting a file (elicitation mid-task).",
              {"filename": {"type": "string"}}, types.TASK_REQUIRED),
        _tool("fail", "Returns a tool error.", {}, types.TASK_OPTIONAL),
        _tool("crash", "Raises inside the task.", {}, types.TASK_OPTIONAL),
        _tool("echo", "Echoes its text, never as a task.", {"text": {"type": "string"}}, None),
    ]


async def _slow(steps: int, step_ms: int, task: ServerTaskContext | None) -> types.CallToolResult:
    for i in range(1, steps + 1):
        if task is not None:
            await task.update_status(f"step {i}/{steps}")
        await anyio.sleep(step_ms / 1000)
    return text(f"slow: {steps} steps done")


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult | types.CreateTaskResult:
    ctx = server.request_context
    if name == "echo":
        return text(f"echo: {arguments.get('text', '')}")
    if name == "slow":
        steps, step_ms = int(arguments.get("steps", 3)), int(arguments.get("step_ms", 100))
        if not ctx.experimental.is_task:
            return await _slow(steps, step_ms, None)
        return await ctx.experimental.run_task(lambda task: _slow(steps, step_ms, task))
    if name == "confirm":
        ctx.experimental.validate_task_mode(types.TASK_REQUIRED)
        filename = str(arguments.get("filename", "unknown.txt"))

        async def confirm(task: ServerTaskContext) -> types.CallToolResult:
            answer = await task.elicit(message=f"Delete {filename}?", requestedSchema=CONFIRM_SCHEMA)
            ok = answer.action == "accept" and bool((answer.content or {}).get("confirm"))
            return text(f"deleted {filename}" if ok else f"kept {filename}")

        return await ctx.experimental.run_task(confirm)
    if name == "fail":
        if not ctx.experimental.is_task:
            return text("failed on purpose", is_error=True)

        async def fail(task: ServerTaskContext) -> types.CallToolResult:
            support = server.experimental.task_support
            assert support is not None
            result = text("failed on purpose", is_error=True)
            await support.store.store_result(task.task_id, result)
            await task.fail("failed on purpose")
            return result

        return await ctx.experimental.run_task(fail)
    if name == "crash":
        async def crash(task: ServerTaskContext) -> types.CallToolResult:
            raise RuntimeError("crashed on purpose")

        if not ctx.experimental.is_task:
            raise RuntimeError("crashed on purpose")
        return await ctx.experimental.run_task(crash)
    return text(f"unknown tool: {name}", is_error=True)


async def run_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run_http(host: str, port: int) -> None:
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(app=server)

    class Endpoint:
        """The manager as a plain ASGI app on exactly ``/mcp`` (a Mount would redirect ``/mcp`` to ``/mcp/``)."""

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Route("/mcp", endpoint=Endpoint(), methods=["GET", "POST", "DELETE"])], lifespan=lifespan)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    transport, host, port = surface.stdio_or_http_args(__doc__.splitlines()[0], argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if transport == "http":
        assert port is not None
        run_http(host, port)
    else:
        anyio.run(run_stdio)


if __name__ == "__main__":
    main()
