"""Legacy (2025-11-25) tasks client, written for mcp 1.29.0's experimental tasks API
(``session.experimental.call_tool_as_task`` / ``get_task`` / ``get_task_result`` / ``list_tasks`` /
``cancel_task``), against a server with the ``slow``, ``confirm`` and ``fail`` task tools
(samples/legacy/tasks_server.py or samples/modern/tasks_server.py, usually through the bridge).

Usage (run it with the mcp 1.x interpreter)::

    legacy_tasks_client.py http://127.0.0.1:N/mcp          # Streamable HTTP
    legacy_tasks_client.py -- COMMAND [ARGS ...]           # stdio

Prints one JSON report on stdout: ``{"ok": bool, "error": str|None, "steps": {...}}``.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

TERMINAL = ("completed", "failed", "cancelled")


@asynccontextmanager
async def connect(argv: list[str], **kw: Any) -> AsyncIterator[ClientSession]:
    if argv and argv[0] == "--":
        params = StdioServerParameters(command=argv[1], args=argv[2:])
        async with stdio_client(params) as (read, write), ClientSession(read, write, **kw) as session:
            yield session
    else:
        async with streamablehttp_client(argv[0]) as (read, write, _sid), ClientSession(read, write, **kw) as session:
            yield session


async def run(argv: list[str]) -> dict[str, Any]:
    steps: dict[str, Any] = {}
    statuses: list[dict[str, Any]] = []
    asked: list[dict[str, Any]] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", None)
        if isinstance(root, types.TaskStatusNotification):
            statuses.append(root.params.model_dump(by_alias=True, exclude_none=True))

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.model_dump(by_alias=True, exclude_none=True))
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with connect(argv, message_handler=on_message, elicitation_callback=on_elicit,
                       read_timeout_seconds=timedelta(seconds=60)) as session:
        init = await session.initialize()
        caps = init.capabilities.model_dump(by_alias=True, exclude_none=True)
        steps["capabilities"] = caps.get("tasks")
        tools = await session.list_tools()
        steps["taskSupport"] = {t.name: (t.execution.taskSupport if t.execution else None) for t in tools.tools}
        exp = session.experimental

        created = await exp.call_tool_as_task("slow", {"steps": 3, "step_ms": 100})
        result = await exp.get_task_result(created.task.taskId, types.CallToolResult)
        task = await exp.get_task(created.task.taskId)
        steps["slow"] = {"created": created.task.status, "text": [c.text for c in result.content if c.type == "text"],
                         "status": task.status, "relatedTask": (result.meta or {}).get("io.modelcontextprotocol/related-task")}

        created = await exp.call_tool_as_task("confirm", {"filename": "a.txt"})
        result = await exp.get_task_result(created.task.taskId, types.CallToolResult)
        steps["confirm"] = {"text": [c.text for c in result.content if c.type == "text"],
                            "asked": [a.get("message") for a in asked],
                            "relatedTask": [(a.get("_meta") or {}).get("io.modelcontextprotocol/related-task") for a in asked]}

        created = await exp.call_tool_as_task("fail", {})
        result = await exp.get_task_result(created.task.taskId, types.CallToolResult)
        task = await exp.get_task(created.task.taskId)
        steps["fail"] = {"isError": result.isError, "status": task.status}

        created = await exp.call_tool_as_task("slow", {"steps": 1000, "step_ms": 100})
        cancelled = await exp.cancel_task(created.task.taskId)
        task = await exp.get_task(created.task.taskId)
        steps["cancel"] = {"cancelResult": cancelled.status, "status": task.status}
        try:
            await exp.cancel_task(created.task.taskId)
            steps["cancel"]["again"] = "accepted"
        except McpError as exc:
            steps["cancel"]["again"] = exc.error.code

        listed = await exp.list_tasks()
        steps["list"] = sorted(t.status for t in listed.tasks)
        try:
            await exp.get_task("guessed-task-id")
            steps["guessed"] = "answered"
        except McpError as exc:
            steps["guessed"] = exc.error.code
        steps["statusNotifications"] = sorted({s.get("status") for s in statuses})
    return steps


def _leaves(exc: BaseException) -> list[str]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [repr(exc)]


def main() -> None:
    argv = sys.argv[1:]
    report: dict[str, Any] = {"ok": False, "error": None, "steps": {}}
    try:
        report["steps"] = anyio.run(run, argv)
        report["ok"] = True
    except BaseException as exc:  # noqa: BLE001 - the report carries it
        report["error"] = "; ".join(_leaves(exc)) + "\n" + "".join(traceback.format_exception(exc))[-3000:]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
