"""Modern (2026-07-28) scenario client, written for mcp 2.3.0 (``mcp.Client``).

Usage (run it with the project interpreter, ``.venv/bin/python``)::

    modern_client.py http://127.0.0.1:N/mcp [--scenario NAME ...] [--json]   # Streamable HTTP
    modern_client.py [--scenario NAME ...] [--json] -- COMMAND [ARGS ...]    # stdio

The client pins ``mode="2026-07-28"``: no probe, no fallback to ``initialize``; a 2025-only
server fails it. Its response cache is off, so every call reaches the wire. Scenarios (default:
all, in this order) against the sample "everything" / "mrtr" servers:

- ``basic``: ``server/discover`` (name, version, instructions, capabilities, supported versions),
  list tools/prompts/resources/templates, call echo/add/weather, read text/JSON/blob/template
  resources, get both prompts, complete a prompt and a template argument.
- ``progress``: ``slow_count(3)`` with a progress callback.
- ``logging``: ``log_levels`` with the client's ``log_level="debug"`` opt-in, then with a
  per-request ``_meta`` override to ``warning``; messages collected.
- ``subscriptions``: ``subscriptions/listen`` for tools/resources list changes and
  ``memo://readme``, then ``add_tool`` and ``touch``; events collected.
- ``mrtr``: every tool of the mrtr server (plus its prompt and resource); ``input_required``
  rounds driven here with deterministic elicitation/sampling/roots answers; each round's
  input kinds are reported (``rounds``), so one round with three inputs and two rounds are visible.
- ``errors``: a missing resource, an unknown tool, and the failing tool.

The JSON shape is documented in ``samples/clients/common.py``; step names and values match
``legacy_client.py`` except that ``ping`` is legacy-only and ``rounds``/``honored`` are modern-only.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp_types import LOG_LEVEL_META_KEY, SERVER_INFO_META_KEY

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import surface  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.session import ClientRequestContext  # noqa: E402
from mcp.client.subscriptions import ResourceUpdated, ServerEvent  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

PROTOCOL = "2026-07-28"
READ_TIMEOUT = 120.0
EVENT_TIMEOUT = 60.0
MAX_ROUNDS = 8


class Peer:
    """Client-side state: callbacks' answers and the log messages the server sent."""

    def __init__(self) -> None:
        self.logs: list[dict[str, Any]] = []
        self.answers = common.InputAnswers()
        self.inputs = self.answers.inputs

    async def elicit(self, context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult.model_validate(self.answers.elicit(common.wire(params)))

    async def sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult.model_validate(self.answers.sample(common.wire(params)))

    async def roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult.model_validate(self.answers.roots())

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append({"level": params.level, "logger": params.logger, "data": params.data})


def _tool(result: types.CallToolResult) -> dict[str, Any]:
    return common.tool_summary(common.wire(result))


def _contents(result: types.ReadResourceResult) -> list[dict[str, Any]]:
    return common.contents_summary(common.wire(result))


def _prompt(result: types.GetPromptResult) -> list[dict[str, Any]]:
    return common.prompt_summary(common.wire(result))


def _event(event: ServerEvent) -> str:
    if isinstance(event, ResourceUpdated):
        return common.event_name("notifications/resources/updated", event.uri)
    method = {
        "ToolsListChanged": "notifications/tools/list_changed",
        "PromptsListChanged": "notifications/prompts/list_changed",
        "ResourcesListChanged": "notifications/resources/list_changed",
    }[type(event).__name__]
    return common.event_name(method)


async def _error_of(call: Awaitable[Any]) -> dict[str, Any]:
    try:
        result = await call
    except MCPError as exc:
        return common.error_dict(exc.error.code, exc.error.message, exc.error.data)
    if isinstance(result, types.CallToolResult):
        return {"result": _tool(result)}
    return {"result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}


async def basic(client: Client, steps: dict[str, Any]) -> None:
    raw = await client.session.send_discover(PROTOCOL)
    discover = types.DiscoverResult.model_validate(raw)
    info = (discover.meta or {}).get(SERVER_INFO_META_KEY) or {}
    steps["server"] = {
        "name": info.get("name"),
        "version": info.get("version"),
        "instructions": discover.instructions,
        "capabilities": discover.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True),
        "supported_versions": discover.supported_versions,
    }
    tools = await client.list_tools()
    steps["tools"] = sorted(tool.name for tool in tools.tools)
    steps["weather_output_schema"] = next((t.output_schema for t in tools.tools if t.name == "weather"), None)
    steps["prompts"] = sorted(prompt.name for prompt in (await client.list_prompts()).prompts)
    steps["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
    steps["templates"] = sorted(t.uri_template for t in (await client.list_resource_templates()).resource_templates)
    steps["echo"] = _tool(await client.call_tool("echo", {"text": "hello"}))
    steps["add"] = _tool(await client.call_tool("add", {"a": 2, "b": 3}))
    steps["weather"] = _tool(await client.call_tool("weather", {"city": "Paris"}))
    for label, uri in common.BASIC_READS:
        steps[label] = _contents(await client.read_resource(uri))
    steps["prompt_review"] = _prompt(await client.get_prompt("review", {"code": "x = 1", "language": "rust"}))
    steps["prompt_hello"] = _prompt(await client.get_prompt("hello"))
    lang = await client.complete(types.PromptReference(name="review"), {"name": "language", "value": "py"})
    steps["complete_language"] = lang.completion.values
    name = await client.complete(
        types.ResourceTemplateReference(uri=surface.GREETING_TEMPLATE), {"name": "name", "value": "a"}
    )
    steps["complete_name"] = name.completion.values


async def progress(client: Client, steps: dict[str, Any]) -> None:
    seen: list[list[Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append([value, total, message])

    steps["result"] = _tool(await client.call_tool("slow_count", {"n": 3}, progress_callback=on_progress))
    steps["progress"] = seen


async def logging_scenario(client: Client, peer: Peer, steps: dict[str, Any]) -> None:
    for level in ["debug", "warning"]:
        peer.logs.clear()
        meta: types.RequestParamsMeta | None = {LOG_LEVEL_META_KEY: level} if level != "debug" else None
        steps[f"{level}_result"] = _tool(await client.call_tool("log_levels", {}, meta=meta))
        steps[f"{level}_messages"] = list(peer.logs)


async def subscriptions(client: Client, steps: dict[str, Any]) -> None:
    expected = {"tools/list_changed", "resources/list_changed", f"resources/updated {surface.README_URI}"}
    seen: set[str] = set()
    async with client.listen(
        tools_list_changed=True, resources_list_changed=True, resource_subscriptions=[surface.README_URI]
    ) as subscription:
        steps["honored"] = subscription.honored.model_dump(mode="json", by_alias=True, exclude_none=True)
        steps["add_tool"] = _tool(await client.call_tool("add_tool", {"name": common.RUNTIME_TOOL}))
        await client.call_tool("touch", {"uri": surface.README_URI})
        with anyio.fail_after(EVENT_TIMEOUT):
            async for event in subscription:
                seen.add(_event(event))
                if expected <= seen:
                    break
    steps["events"] = sorted(seen)
    steps["tools_after"] = sorted(tool.name for tool in (await client.list_tools()).tools)
    steps["runtime_tool"] = _tool(await client.call_tool(common.RUNTIME_TOOL, {}))
    steps["unsubscribed"] = True


Send = Callable[[types.InputResponses | None, str | None], Awaitable[Any]]


async def drive(client: Client, peer: Peer, send: Send) -> tuple[Any, list[list[str]]]:
    """Run the input_required loop by hand, recording the input kinds of every round."""
    rounds: list[list[str]] = []
    result = await send(None, None)
    while isinstance(result, types.InputRequiredResult):
        if len(rounds) >= MAX_ROUNDS:
            raise RuntimeError(f"more than {MAX_ROUNDS} input_required rounds")
        peer.inputs.clear()
        responses: types.InputResponses = {}
        for key, request in (result.input_requests or {}).items():
            context = ClientRequestContext(session=client.session, request_id=key)
            answer = await client.session.dispatch_input_request(context, request)
            if isinstance(answer, types.ErrorData):
                raise MCPError(answer.code, answer.message, answer.data)
            responses[key] = answer
        rounds.append(sorted(peer.inputs))
        result = await send(responses or None, result.request_state)
    return result, rounds


async def mrtr(client: Client, peer: Peer, steps: dict[str, Any]) -> None:
    for name, arguments in common.MRTR_CALLS:
        seen: list[list[Any]] = []

        async def on_progress(value: float, total: float | None, message: str | None, _seen: list = seen) -> None:
            _seen.append([value, total, message])

        def send(r: types.InputResponses | None, s: str | None, _name: str = name, _args: dict = arguments) -> Any:
            return client.session.call_tool(
                _name, _args, progress_callback=on_progress, input_responses=r, request_state=s,
                allow_input_required=True,
            )

        result, rounds = await drive(client, peer, send)
        entry = _tool(result)
        entry["inputs"] = sorted(kind for kinds in rounds for kind in kinds)
        entry["rounds"] = rounds
        if seen:
            entry["progress"] = seen
        steps[name] = entry

    def get_prompt(r: types.InputResponses | None, s: str | None) -> Any:
        return client.session.get_prompt(common.MRTR_PROMPT, {}, input_responses=r, request_state=s,
                                         allow_input_required=True)

    prompt, rounds = await drive(client, peer, get_prompt)
    steps[common.MRTR_PROMPT] = _prompt(prompt)
    steps["mrtr_prompt_inputs"] = sorted(kind for kinds in rounds for kind in kinds)

    def read(r: types.InputResponses | None, s: str | None) -> Any:
        return client.session.read_resource(common.MRTR_RESOURCE, input_responses=r, request_state=s,
                                            allow_input_required=True)

    contents, rounds = await drive(client, peer, read)
    steps["mrtr_resource"] = _contents(contents)
    steps["mrtr_resource_inputs"] = sorted(kind for kinds in rounds for kind in kinds)


async def errors(client: Client, steps: dict[str, Any]) -> None:
    steps["missing_resource"] = await _error_of(client.read_resource(surface.MISSING_URI))
    steps["unknown_tool"] = await _error_of(client.call_tool("no_such_tool", {}))
    steps["fail"] = await _error_of(client.call_tool("fail", {}))


async def run(options: common.Options) -> common.Report:
    report = common.Report("modern", options.target)
    peer = Peer()
    target: str | StdioServerParameters = (
        options.url if options.url is not None else StdioServerParameters(command=options.command[0], args=options.command[1:])
    )
    client = Client(
        target,
        mode=PROTOCOL,
        cache=None,
        read_timeout_seconds=READ_TIMEOUT,
        sampling_callback=peer.sample,
        elicitation_callback=peer.elicit,
        list_roots_callback=peer.roots,
        logging_callback=peer.log,
        log_level="debug",
        client_info=types.Implementation(name="mcp-eras-modern-client", version="0.1.0"),
    )
    try:
        async with client:
            report.protocol_version = client.protocol_version
            bodies = {
                "basic": lambda steps: basic(client, steps),
                "progress": lambda steps: progress(client, steps),
                "logging": lambda steps: logging_scenario(client, peer, steps),
                "subscriptions": lambda steps: subscriptions(client, steps),
                "mrtr": lambda steps: mrtr(client, peer, steps),
                "errors": lambda steps: errors(client, steps),
            }
            await common.run_all(report, options.scenarios, bodies)
    except Exception as exc:
        common.record_failure(report, exc)
    return report


if __name__ == "__main__":
    sys.exit(common.main(run, __doc__.splitlines()[0]))
