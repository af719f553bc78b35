"""Peers for the direction-B tests, as source text written to a temporary directory.

* ``MODERN_SERVER``: an mcp 2.3.0 ``MCPServer`` driven on the 2026-07-28 wire (stdio or HTTP), with
  plain tools/resources/prompts/completion, progress and logs, change notifications, and MRTR tools
  that return ``input_required`` (single, multiple inputs in one round, several rounds, URL mode,
  request-state only).
* ``LEGACY_CLIENT``: an mcp 1.x ``ClientSession`` (run with the legacy interpreter) that performs the
  scenarios and prints one JSON object on stdout.
* ``STDIO_BRIDGE``: the legacy stdio front over a modern upstream, a stand-in for ``mcp-bridge --stdio``
  so the test does not depend on the CLI.
"""

MODERN_SERVER = r'''
import os
import sys
from pathlib import Path
from typing import Annotated

import anyio
from pydantic import Field
from mcp.server.mcpserver import MCPServer, Context
from mcp_types import (
    CallToolResult, Completion, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestFormParams, ElicitRequestURLParams, InputRequiredResult, ListRootsRequest,
    SamplingMessage, TextContent,
)

import warnings
warnings.simplefilter("ignore")
mcp = MCPServer("direction-b-modern", version="2.0.0", instructions="Modern fixture for direction B.", log_level="ERROR")


def text(s):
    return CallToolResult(content=[TextContent(type="text", text=s)])


def field(obj, name):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def elicit(message, prop):
    return ElicitRequest(params=ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": {prop: {"type": "string"}}, "required": [prop]}))


def sample(prompt):
    return CreateMessageRequest(params=CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=50))


@mcp.tool()
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def echo(message: str) -> str:
    """Echo a message."""
    return message


@mcp.tool()
async def slow_count(n: int, ctx: Context) -> str:
    """Report progress n times."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted {n}"


@mcp.tool()
async def log_levels(ctx: Context) -> str:
    """Log at four levels."""
    await ctx.debug("debug message")
    await ctx.info("info message")
    await ctx.warning("warning message")
    await ctx.error("error message")
    return "logged"


@mcp.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool (tools/list_changed)."""
    async def extra() -> str:
        return name
    mcp.add_tool(extra, name=name, description="added at runtime")
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announce a resource update."""
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@mcp.tool()
async def ask_name(ctx: Context) -> CallToolResult | InputRequiredResult:
    """One elicitation."""
    answers = ctx.input_responses or {}
    got = answers.get("who")
    if got is None:
        return InputRequiredResult(input_requests={"who": elicit("What is your name?", "name")})
    if field(got, "action") != "accept":
        return text(f"no name ({field(got, 'action')})")
    return text(f"Hello, {field(got, 'content')['name']}!")


@mcp.tool()
async def ask_many(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Elicitation, sampling and roots in one round."""
    answers = ctx.input_responses or {}
    if not all(k in answers for k in ("color", "capital", "roots")):
        return InputRequiredResult(input_requests={
            "color": elicit("Favourite colour?", "color"),
            "capital": sample("What is the capital of France?"),
            "roots": ListRootsRequest(),
        }, request_state="many-1")
    color = field(answers["color"], "content")["color"]
    content = field(answers["capital"], "content")
    said = field(content, "text")
    roots = [str(field(r, "uri")) for r in field(answers["roots"], "roots")]
    return text(f"color={color} capital={said} roots={','.join(roots)} state={ctx.request_state}")


@mcp.tool()
async def ask_rounds(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Two rounds: a name, then a sampled greeting; the state carries the name across."""
    answers = ctx.input_responses or {}
    state = ctx.request_state
    if state is None:
        return InputRequiredResult(input_requests={"who": elicit("Name?", "name")}, request_state="round-1")
    if state == "round-1":
        name = field(answers["who"], "content")["name"]
        return InputRequiredResult(input_requests={"greet": sample(f"Greet {name}")}, request_state="round-2:" + name)
    if state.startswith("round-2:"):
        said = field(field(answers["greet"], "content"), "text")
        return text(f"{state[8:]} -> {said}")
    return text("bad state")


@mcp.tool()
async def ask_url(ctx: Context) -> CallToolResult | InputRequiredResult:
    """URL-mode elicitation."""
    answers = ctx.input_responses or {}
    got = answers.get("login")
    if got is None:
        return InputRequiredResult(input_requests={"login": ElicitRequest(params=ElicitRequestURLParams(
            message="Sign in", url="https://example.com/login"))})
    return text(f"url {field(got, 'action')}")


@mcp.tool()
async def shed(ctx: Context) -> CallToolResult | InputRequiredResult:
    """requestState-only rounds (load shedding) before the result."""
    state = ctx.request_state
    n = int(state) if state else 0
    if n < 2:
        return InputRequiredResult(request_state=str(n + 1))
    return text(f"after {n} retries")


@mcp.tool()
async def endless(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Always wants more input."""
    return InputRequiredResult(input_requests={"again": elicit("Again?", "name")})


@mcp.tool()
async def regional(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
                   count: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Count"})]) -> str:
    """Arguments mirrored into Mcp-Param-* headers (the server checks them on HTTP)."""
    return f"{region}/{count}"


@mcp.tool()
async def gate(marker: str, ctx: Context) -> str:
    """Report progress once, then wait until the marker file exists; record a cancellation in marker.cancelled."""
    await ctx.report_progress(1, 2, "waiting for the gate")
    try:
        while not Path(marker).exists():
            await anyio.sleep(0.05)
    except anyio.get_cancelled_exc_class():
        Path(marker + ".cancelled").write_text("cancelled")
        raise
    await ctx.report_progress(2, 2, "gate open")
    return "gate passed"


@mcp.tool()
async def ask_cancel(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Asks a question the client answers by cancelling the call."""
    return InputRequiredResult(input_requests={"q": elicit("Cancel me?", "name")})


@mcp.tool()
async def ask_sample_fail(ctx: Context) -> CallToolResult | InputRequiredResult:
    """Asks for a sampling the client refuses."""
    return InputRequiredResult(input_requests={"s": sample("please refuse")})


@mcp.tool()
async def ask_decline(ctx: Context) -> CallToolResult | InputRequiredResult:
    """An elicitation the client declines (or fails: the bridge sends cancel)."""
    answers = ctx.input_responses or {}
    if "d" in answers:
        return text(f"action={field(answers['d'], 'action')}")
    return InputRequiredResult(input_requests={"d": elicit("Decline me", "other")})


@mcp.tool()
async def crash() -> str:
    """Kill the server process mid-call."""
    os._exit(3)


@mcp.tool()
async def fail() -> str:
    """Always fails."""
    from mcp.server.mcpserver.exceptions import ToolError
    raise ToolError("this tool always fails")


@mcp.resource("memo://readme", mime_type="text/plain")
def readme() -> str:
    return "Read me first."


@mcp.resource("greeting://{name}", mime_type="text/plain")
def greeting(name: str) -> str:
    return f"Greetings, {name}."


@mcp.prompt()
def hello(name: str) -> str:
    """Say hello."""
    return f"Say hello to {name}."


@mcp.prompt()
async def confirm_prompt(ctx: Context) -> str | InputRequiredResult:
    """A prompt that needs an answer first."""
    answers = ctx.input_responses or {}
    if "topic" not in answers:
        return InputRequiredResult(input_requests={"topic": elicit("Topic?", "name")})
    topic = field(answers["topic"], "content")["name"]
    return f"Talk about {topic}"


@mcp.completion()
async def complete(ref, argument, context):
    values = [v for v in ("alice", "albert", "bob") if v.startswith(argument.value)]
    return Completion(values=values, total=len(values), has_more=False)


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run()
    else:
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
'''


LEGACY_CLIENT = r'''
import json
import os
import sys
from datetime import timedelta

import anyio
from pydantic import AnyUrl
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

WAIT = 60
MARKER = os.environ.get("DIRECTION_B_MARKER", "")


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class Peer:
    def __init__(self):
        self.session = None
        self.question_id = None
        self.raw = []
        self.logs = []
        self.notes = []
        self.inputs = []
        self.changed = anyio.Event()

    def withdrawn(self):
        return any(m.get("method") == "notifications/cancelled" and (m.get("params") or {}).get("requestId") == self.question_id
                   for m in self.raw)

    async def tap(self, read, send):
        async with send:
            async for item in read:
                if not isinstance(item, Exception):
                    self.raw.append(item.message.root.model_dump(by_alias=True, mode="json", exclude_none=True))
                await send.send(item)

    async def on_message(self, message):
        if isinstance(message, types.ServerNotification):
            root = message.root
            self.notes.append({"method": root.method, "params": dump(root.params) if root.params else None})
            self.changed.set()
            self.changed = anyio.Event()

    async def wait_for(self, method, **match):
        with anyio.fail_after(WAIT):
            while True:
                for n in self.notes:
                    if n["method"] == method and all((n["params"] or {}).get(k) == v for k, v in match.items()):
                        return n
                await self.changed.wait()

    async def cancel_call(self, request_id):
        note = types.CancelledNotification(params=types.CancelledNotificationParams(requestId=request_id, reason="test"))
        await self.session.send_notification(types.ClientNotification(note))

    async def on_log(self, params):
        self.logs.append({"level": params.level, "data": params.data})

    async def elicit(self, context, params):
        if getattr(params, "mode", "form") == "url":
            self.inputs.append({"kind": "url", "url": params.url, "elicitationId": params.elicitationId})
            return types.ElicitResult(action="accept")
        self.inputs.append({"kind": "form", "message": params.message})
        if params.message == "Cancel me?":
            # Cancel the tools/call that caused this question; the bridge must withdraw the question.
            # (mcp 1.x handles server requests inline, so answer now and watch the raw stream for the withdrawal.)
            self.question_id = context.request_id
            await self.cancel_call(self.session._request_id - 1)
            return types.ElicitResult(action="decline")
        props = (params.requestedSchema or {}).get("properties", {})
        if "name" in props:
            return types.ElicitResult(action="accept", content={"name": "Ada"})
        if "color" in props:
            return types.ElicitResult(action="accept", content={"color": "green"})
        return types.ElicitResult(action="decline")

    async def sample(self, context, params):
        prompt = params.messages[0].content.text
        self.inputs.append({"kind": "sampling", "prompt": prompt})
        if prompt == "please refuse":
            return types.ErrorData(code=-1, message="User rejected sampling request")
        answer = "Paris" if "France" in prompt else "Hi " + prompt.split()[-1]
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=answer),
                                         model="fixture-model", stopReason="endTurn")

    async def roots(self, context):
        self.inputs.append({"kind": "roots"})
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])


async def call(session, name, args=None, **kw):
    try:
        res = await session.call_tool(name, args or {}, **kw)
        return dump(res)
    except McpError as exc:
        return {"error": dump(exc.error)}


async def scenarios(session, peer, which, out):
    if "basic" in which:
        out["ping"] = dump(await session.send_ping())
        out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        out["add"] = await call(session, "add", {"a": 2, "b": 3})
        out["echo"] = await call(session, "echo", {"message": "héllo\nworld"})
        out["resources"] = [str(r.uri) for r in (await session.list_resources()).resources]
        out["templates"] = [t.uriTemplate for t in (await session.list_resource_templates()).resourceTemplates]
        out["readme"] = dump(await session.read_resource(AnyUrl("memo://readme")))
        out["greeting"] = dump(await session.read_resource(AnyUrl("greeting://bob")))
        out["prompts"] = sorted(p.name for p in (await session.list_prompts()).prompts)
        out["hello"] = dump(await session.get_prompt("hello", {"name": "Ada"}))
        out["complete"] = dump(await session.complete(types.PromptReference(type="ref/prompt", name="hello"),
                                                      {"name": "name", "value": "al"}))
        try:
            await session.read_resource(AnyUrl("memo://missing"))
            out["missing"] = None
        except McpError as exc:
            out["missing"] = dump(exc.error)
        out["fail"] = await call(session, "fail")
        out["unknown_tool"] = await call(session, "no_such_tool")
    if "progress" in which:
        seen = []

        async def progress(p, total, message):
            seen.append([p, total, message])

        out["slow_count"] = await call(session, "slow_count", {"n": 3}, progress_callback=progress)
        out["progress"] = seen
    if "logging" in which:
        out["logs_before"] = await call(session, "log_levels")
        before = len(peer.logs)
        await session.set_logging_level("debug")
        out["logs_debug_result"] = await call(session, "log_levels")
        after_debug = len(peer.logs)
        await session.set_logging_level("warning")
        await call(session, "log_levels")
        out["logs"] = {"before": peer.logs[:before], "debug": peer.logs[before:after_debug], "warning": peer.logs[after_debug:]}
        try:
            bad = types.SetLevelRequestParams.model_construct(level="loud")
            await session.send_request(
                types.ClientRequest(types.SetLevelRequest(method="logging/setLevel", params=bad)), types.EmptyResult)
            out["bad_level"] = None
        except (McpError, Exception) as exc:
            out["bad_level"] = dump(exc.error) if isinstance(exc, McpError) else repr(exc)
    if "subscriptions" in which:
        await session.subscribe_resource(AnyUrl("memo://readme"))
        await call(session, "touch", {"uri": "memo://readme"})
        out["updated"] = await peer.wait_for("notifications/resources/updated", uri="memo://readme")
        await call(session, "add_tool", {"name": "fresh_tool"})
        out["tools_changed"] = await peer.wait_for("notifications/tools/list_changed")
        out["tools_after"] = sorted(t.name for t in (await session.list_tools()).tools)
        await session.unsubscribe_resource(AnyUrl("memo://readme"))
        out["unsubscribed"] = True
    if "extras" in which:
        out["regional"] = await call(session, "regional", {"region": "Zürich ", "count": 7})
        out["greeting_unicode"] = dump(await session.read_resource(AnyUrl("greeting://Zoë")))
        out["sample_refused"] = await call(session, "ask_sample_fail")
        out["declined"] = await call(session, "ask_decline")
    if "cancel" in which:
        marker = MARKER
        async with anyio.create_task_group() as tg:
            async def progress(p, total, message):
                if p == 1:
                    await peer.cancel_call(session._request_id - 1)

            async def gate():
                await call(session, "gate", {"marker": marker}, progress_callback=progress)
                out["gate_answered"] = True

            tg.start_soon(gate)
            with anyio.fail_after(WAIT):
                while not os.path.exists(marker + ".cancelled"):
                    await anyio.sleep(0.05)
            out["gate_cancelled"] = True

            async def ask():
                await call(session, "ask_cancel")
                out["ask_cancel_answered"] = True

            tg.start_soon(ask)
            with anyio.fail_after(WAIT):
                while peer.question_id is None or not peer.withdrawn():
                    await anyio.sleep(0.05)
            out["question_withdrawn"] = True
            out["ping_after_cancel"] = dump(await session.send_ping())
            tg.cancel_scope.cancel()
    if "nocaps" in which:
        out["nocaps_ask_name"] = await call(session, "ask_name")
        out["nocaps_inputs"] = peer.inputs
    if "crash" in which:
        out["crash"] = await call(session, "crash")
        out["after_crash"] = await call(session, "add", {"a": 1, "b": 1})
    if "mrtr" in which:
        out["ask_name"] = await call(session, "ask_name")
        out["ask_many"] = await call(session, "ask_many")
        out["ask_rounds"] = await call(session, "ask_rounds")
        out["ask_url"] = await call(session, "ask_url")
        out["shed"] = await call(session, "shed")
        out["endless"] = await call(session, "endless")
        try:
            out["confirm_prompt"] = dump(await session.get_prompt("confirm_prompt"))
        except McpError as exc:
            out["confirm_prompt"] = {"error": dump(exc.error)}
        out["inputs"] = peer.inputs
        out["elicitation_complete"] = [n for n in peer.notes if n["method"] == "notifications/elicitation/complete"]


async def main():
    args = sys.argv[1:]
    which = set(args[0].split(","))
    target = args[1:]
    peer = Peer()
    out = {}
    if target[0] == "--":
        transport = stdio_client(StdioServerParameters(command=target[1], args=target[2:]))
    else:
        transport = streamablehttp_client(target[0])
    async with transport as streams, anyio.create_task_group() as tg:
        raw_read, write = streams[0], streams[1]
        tapped, read = anyio.create_memory_object_stream(100)
        tg.start_soon(peer.tap, raw_read, tapped)
        # scenario "nocaps": a client that declares no client capabilities at all
        inputs = {} if "nocaps" in which else dict(sampling_callback=peer.sample, elicitation_callback=peer.elicit,
                                                   list_roots_callback=peer.roots)
        async with ClientSession(read, write, read_timeout_seconds=timedelta(seconds=120), **inputs,
                                 logging_callback=peer.on_log, message_handler=peer.on_message) as session:
            peer.session = session
            init = await session.initialize()
            out["init"] = dump(init)
            await scenarios(session, peer, which, out)
        tg.cancel_scope.cancel()
    print(json.dumps(out))


anyio.run(main)
'''


STDIO_BRIDGE = r'''
import asyncio
import sys

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.legacy import LegacyStdioSession
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream


async def main():
    rounds, args = int(sys.argv[1]), sys.argv[2:]
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28", mrtr_max_rounds=rounds)
    if args[0] == "--":
        upstream = ModernStdioUpstream(args[1:], settings)
    else:
        upstream = ModernHttpUpstream(args[0], settings)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=settings.max_line_bytes)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def write(msg):
        sys.stdout.buffer.write(jsonrpc.dumps(msg) + b"\n")
        sys.stdout.buffer.flush()

    session = LegacyStdioSession(upstream, settings, write)
    try:
        while line := await reader.readline():
            if not line.strip():
                continue
            try:
                msg = jsonrpc.parse_frame(line)
            except jsonrpc.FrameError as exc:
                await write(exc.to_response())
                continue
            await session.on_frame(msg)
    finally:
        await session.aclose()
        await upstream.aclose()


asyncio.run(main())
'''
