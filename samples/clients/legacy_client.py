"""Legacy (2025-11-25) scenario client, written for mcp 1.29.0 (``ClientSession``).

Usage (run it with the mcp 1.x interpreter, e.g. ``.venvs/mcp1/bin/python``)::

    legacy_client.py http://127.0.0.1:N/mcp [--scenario NAME ...] [--json]   # Streamable HTTP
    legacy_client.py http://127.0.0.1:N/sse [--scenario NAME ...] [--json]   # deprecated HTTP+SSE
    legacy_client.py [--scenario NAME ...] [--json] -- COMMAND [ARGS ...]    # stdio

Scenarios (default: all, in this order) against the sample "everything" / "mrtr" servers:

- ``basic``: initialize result, ping, list tools/prompts/resources/templates, call echo/add/weather,
  read text/JSON/blob/template resources, get both prompts, complete a prompt and a template argument.
- ``progress``: ``slow_count(3)`` with a progress callback.
- ``logging``: ``logging/setLevel`` debug then warning, ``log_levels`` each time, messages collected.
- ``subscriptions``: ``resources/subscribe memo://readme``, ``add_tool`` and ``touch``; the
  change notifications arriving on the GET stream (HTTP) or stdout (stdio) are collected.
- ``mrtr``: every tool of the mrtr server with deterministic elicitation/sampling/roots callbacks.
- ``errors``: a missing resource, an unknown tool, and the failing tool.

The JSON shape is documented in ``samples/clients/common.py``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
from pydantic import AnyUrl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import surface  # noqa: E402
from mcp import ClientSession, StdioServerParameters, types  # noqa: E402
from mcp.client.sse import sse_client  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamablehttp_client  # noqa: E402
from mcp.shared.context import RequestContext  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402
from mcp.shared.session import RequestResponder  # noqa: E402

READ_TIMEOUT = timedelta(seconds=120)
EVENT_WAIT_SECONDS = 3.0
EVENT_ATTEMPTS = 20


class Peer:
    """Client-side state: callbacks' answers and everything the server pushed at us."""

    def __init__(self) -> None:
        self.logs: list[dict[str, Any]] = []
        self.events: set[str] = set()
        self.events_changed = anyio.Event()
        self.answers = common.InputAnswers()
        self.inputs = self.answers.inputs

    # --- input callbacks (server -> client requests) -------------------------------------
    async def elicit(self, context: RequestContext[Any, Any], params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult.model_validate(self.answers.elicit(common.wire(params)))

    async def sample(
        self, context: RequestContext[Any, Any], params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult.model_validate(self.answers.sample(common.wire(params)))

    async def roots(self, context: RequestContext[Any, Any]) -> types.ListRootsResult:
        return types.ListRootsResult.model_validate(self.answers.roots())

    # --- notifications -------------------------------------------------------------------
    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    async def message(
        self,
        message: RequestResponder[types.ServerRequest, types.ClientResult] | types.ServerNotification | Exception,
    ) -> None:
        if isinstance(message, Exception):
            print(f"transport error: {message!r}", file=sys.stderr)
            return
        if not isinstance(message, types.ServerNotification):
            return
        inner = message.root
        if isinstance(inner, types.ResourceUpdatedNotification):
            self.events.add(common.event_name(inner.method, str(inner.params.uri)))
        elif isinstance(
            inner,
            types.ToolListChangedNotification
            | types.ResourceListChangedNotification
            | types.PromptListChangedNotification,
        ):
            self.events.add(common.event_name(inner.method))
        else:
            return
        self.events_changed.set()

    async def wait_events(self, expected: set[str], timeout: float) -> bool:
        with anyio.move_on_after(timeout):
            while not expected <= self.events:
                self.events_changed = anyio.Event()
                if expected <= self.events:
                    break
                await self.events_changed.wait()
        return expected <= self.events


def _tool(result: types.CallToolResult) -> dict[str, Any]:
    return common.tool_summary(common.wire(result))


def _contents(result: types.ReadResourceResult) -> list[dict[str, Any]]:
    return common.contents_summary(common.wire(result))


def _prompt(result: types.GetPromptResult) -> list[dict[str, Any]]:
    return common.prompt_summary(common.wire(result))


async def _error_of(call: Any) -> dict[str, Any]:
    try:
        result = await call
    except McpError as exc:
        return common.error_dict(exc.error.code, exc.error.message, exc.error.data)
    if isinstance(result, types.CallToolResult):
        return {"result": _tool(result)}
    return {"result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}


async def basic(session: ClientSession, init: types.InitializeResult, steps: dict[str, Any]) -> None:
    steps["server"] = {
        "name": init.serverInfo.name,
        "version": init.serverInfo.version,
        "instructions": init.instructions,
        "capabilities": init.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
    }
    steps["ping"] = (await session.send_ping()).model_dump(mode="json", exclude_none=True)
    tools = await session.list_tools()
    steps["tools"] = sorted(tool.name for tool in tools.tools)
    steps["weather_output_schema"] = next(
        (tool.outputSchema for tool in tools.tools if tool.name == "weather"), None
    )
    steps["prompts"] = sorted(prompt.name for prompt in (await session.list_prompts()).prompts)
    steps["resources"] = sorted(str(r.uri) for r in (await session.list_resources()).resources)
    steps["templates"] = sorted(t.uriTemplate for t in (await session.list_resource_templates()).resourceTemplates)
    steps["echo"] = _tool(await session.call_tool("echo", {"text": "hello"}))
    steps["add"] = _tool(await session.call_tool("add", {"a": 2, "b": 3}))
    steps["weather"] = _tool(await session.call_tool("weather", {"city": "Paris"}))
    for label, uri in common.BASIC_READS:
        steps[label] = _contents(await session.read_resource(AnyUrl(uri)))
    steps["prompt_review"] = _prompt(await session.get_prompt("review", {"code": "x = 1", "language": "rust"}))
    steps["prompt_hello"] = _prompt(await session.get_prompt("hello"))
    lang = await session.complete(types.PromptReference(type="ref/prompt", name="review"), {"name": "language", "value": "py"})
    steps["complete_language"] = lang.completion.values
    name = await session.complete(
        types.ResourceTemplateReference(type="ref/resource", uri=surface.GREETING_TEMPLATE), {"name": "name", "value": "a"}
    )
    steps["complete_name"] = name.completion.values


async def progress(session: ClientSession, steps: dict[str, Any]) -> None:
    seen: list[list[Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append([value, total, message])

    result = await session.call_tool("slow_count", {"n": 3}, progress_callback=on_progress)
    steps["result"] = _tool(result)
    steps["progress"] = seen


async def logging_scenario(session: ClientSession, peer: Peer, steps: dict[str, Any]) -> None:
    for level in ["debug", "warning"]:
        peer.logs.clear()
        await session.set_logging_level(level)  # type: ignore[arg-type]
        result = await session.call_tool("log_levels", {})
        steps[f"{level}_result"] = _tool(result)
        steps[f"{level}_messages"] = list(peer.logs)


async def subscriptions(session: ClientSession, peer: Peer, steps: dict[str, Any]) -> None:
    await session.subscribe_resource(AnyUrl(surface.README_URI))
    expected = {"tools/list_changed", "resources/list_changed", f"resources/updated {surface.README_URI}"}
    steps["add_tool"] = _tool(await session.call_tool("add_tool", {"name": common.RUNTIME_TOOL}))
    # Change notifications ride the GET stream, which the transport opens asynchronously: one
    # sent before it is up is lost (2025 semantics). They are level triggers, so re-trigger
    # until all kinds have been seen once.
    for _ in range(EVENT_ATTEMPTS):
        await session.call_tool("touch", {"uri": surface.README_URI})
        if "tools/list_changed" not in peer.events:
            await session.call_tool("add_tool", {"name": common.RUNTIME_TOOL})
        if await peer.wait_events(expected, EVENT_WAIT_SECONDS):
            break
    steps["events"] = sorted(peer.events)
    steps["tools_after"] = sorted(tool.name for tool in (await session.list_tools()).tools)
    steps["runtime_tool"] = _tool(await session.call_tool(common.RUNTIME_TOOL, {}))
    await session.unsubscribe_resource(AnyUrl(surface.README_URI))
    steps["unsubscribed"] = True


async def mrtr(session: ClientSession, peer: Peer, steps: dict[str, Any]) -> None:
    for name, arguments in common.MRTR_CALLS:
        peer.inputs.clear()
        seen: list[list[Any]] = []

        async def on_progress(value: float, total: float | None, message: str | None, _seen: list = seen) -> None:
            _seen.append([value, total, message])

        result = await session.call_tool(name, arguments, progress_callback=on_progress)
        entry = _tool(result)
        entry["inputs"] = sorted(peer.inputs)
        if seen:
            entry["progress"] = seen
        steps[name] = entry
    peer.inputs.clear()
    steps[common.MRTR_PROMPT] = _prompt(await session.get_prompt(common.MRTR_PROMPT, {}))
    steps["mrtr_prompt_inputs"] = sorted(peer.inputs)
    peer.inputs.clear()
    steps["mrtr_resource"] = _contents(await session.read_resource(AnyUrl(common.MRTR_RESOURCE)))
    steps["mrtr_resource_inputs"] = sorted(peer.inputs)


async def errors(session: ClientSession, steps: dict[str, Any]) -> None:
    steps["missing_resource"] = await _error_of(session.read_resource(AnyUrl(surface.MISSING_URI)))
    steps["unknown_tool"] = await _error_of(session.call_tool("no_such_tool", {}))
    steps["fail"] = await _error_of(session.call_tool("fail", {}))


@asynccontextmanager
async def connect(options: common.Options) -> AsyncIterator[tuple[Any, Any]]:
    if options.url is None:
        params = StdioServerParameters(command=options.command[0], args=options.command[1:])
        async with stdio_client(params) as (read, write):
            yield read, write
    elif options.url.rstrip("/").endswith("/sse"):
        async with sse_client(options.url, sse_read_timeout=300) as (read, write):
            yield read, write
    else:
        async with streamablehttp_client(options.url, sse_read_timeout=timedelta(seconds=300)) as (read, write, _):
            yield read, write


async def run(options: common.Options) -> common.Report:
    report = common.Report("legacy", options.target)
    peer = Peer()
    try:
        async with connect(options) as (read, write), ClientSession(
            read,
            write,
            read_timeout_seconds=READ_TIMEOUT,
            sampling_callback=peer.sample,
            elicitation_callback=peer.elicit,
            list_roots_callback=peer.roots,
            logging_callback=peer.log,
            message_handler=peer.message,
            client_info=types.Implementation(name="mcp-eras-legacy-client", version="0.1.0"),
        ) as session:
            init = await session.initialize()
            report.protocol_version = init.protocolVersion
            bodies = {
                "basic": lambda steps: basic(session, init, steps),
                "progress": lambda steps: progress(session, steps),
                "logging": lambda steps: logging_scenario(session, peer, steps),
                "subscriptions": lambda steps: subscriptions(session, peer, steps),
                "mrtr": lambda steps: mrtr(session, peer, steps),
                "errors": lambda steps: errors(session, steps),
            }
            await common.run_all(report, options.scenarios, bodies)
    except Exception as exc:
        common.record_failure(report, exc)
    return report


if __name__ == "__main__":
    sys.exit(common.main(run, __doc__.splitlines()[0]))

