"""A 2025-11-25 server (mcp 1.x ``FastMCP``) with the tools of the 2026-07-28 ``input-required-result-*``
conformance scenarios, written the only way a 2025 server can ask for input: server->client requests.

Each ``test_input_required_result_*`` tool (and the prompt ``test_input_required_result_prompt``) awaits
``elicitation/create`` (``ctx.elicit``), ``sampling/createMessage`` (``ctx.session.create_message``) or
``roots/list`` in the middle of the call, with the question and schema the matching scenario puts in its
``inputRequests``. A bridge in front of it (2026-07-28 front, legacy upstream) parks the call when such a
request arrives, answers the 2026 client with ``input_required``, and resumes the call when the retry
brings ``inputResponses``: that is the path the 2026-07-28 suite exercises through this fixture.

What a 2025 server cannot express: the *key* of an input request (``user_name``, ``capital_question``...)
is minted by whoever builds the ``input_required`` result, here the bridge, so the scenario that wants
the literal key ``user_name`` (``input-required-result-basic-elicitation``) cannot pass through it.

``roots/list`` is sent tied to the tool call (``related_request_id``), so on Streamable HTTP it travels on
the call's own response stream like the other two requests; ``--plain-list-roots`` uses the SDK's
``session.list_roots()`` instead, which 1.x sends on the session's standalone GET stream.

Run: ``python samples/conformance/legacy_input_required_server.py --port 3011`` (endpoint ``/mcp``),
or ``--stdio``. Needs PyPI ``mcp`` 1.x (tested with 1.29.0).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

import mcp.types as types
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.prompts.base import UserMessage
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel, Field

log = logging.getLogger("legacy_input_required_server")

server = FastMCP(name="mcp-eras-legacy-input-required-fixture")
PLAIN_LIST_ROOTS = False


class Name(BaseModel):
    name: str = Field(description="Your name")


class Confirm(BaseModel):
    ok: bool = Field(description="Confirm")


class Color(BaseModel):
    color: str = Field(description="Your favorite color")


class PromptContext(BaseModel):
    context: str = Field(description="Context for the prompt")


# --- the three kinds of server->client request, tied to the current call ------------------------------


async def ask_name(ctx: Context, message: str = "What is your name?") -> str:
    answer = await ctx.elicit(message=message, schema=Name)
    return answer.data.name if answer.action == "accept" else f"({answer.action})"


async def sample(ctx: Context, text: str, max_tokens: int) -> str:
    result = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))],
        max_tokens=max_tokens,
        related_request_id=ctx.request_id,
    )
    content = result.content
    return content.text if isinstance(content, types.TextContent) else f"({content.type} content)"


async def list_roots(ctx: Context) -> list[types.Root]:
    if PLAIN_LIST_ROOTS:
        result = await ctx.session.list_roots()
    else:
        result = await ctx.session.send_request(
            types.ServerRequest(types.ListRootsRequest(method="roots/list")),
            types.ListRootsResult,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    return list(result.roots)


def declared(ctx: Context, capability: types.ClientCapabilities) -> bool:
    return ctx.session.check_client_capability(capability)


# --- tools of the input-required-result-* scenarios -----------------------------------------------------


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks the user's name (elicitation/create), then greets them."""
    return f"Hello, {await ask_name(ctx)}!"


@server.tool()
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client's model a question (sampling/createMessage) and returns its answer."""
    return f"Model said: {await sample(ctx, 'What is the capital of France?', 100)}"


@server.tool()
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks the client for its roots (roots/list) and names them."""
    roots = await list_roots(ctx)
    return f"Client exposed {len(roots)} root(s): " + ", ".join(str(r.uri) for r in roots)


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Asks for a confirmation; the bridge carries the parked call in its requestState."""
    answer = await ctx.elicit(message="Please confirm", schema=Confirm)
    ok = answer.action == "accept" and answer.data.ok
    return f"state-ok: confirmation received (ok={ok})"


@server.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Asks for a name, a sampled greeting and the roots at once (three concurrent requests)."""
    name, greeting, roots = await asyncio.gather(
        ask_name(ctx), sample(ctx, "Generate a greeting", 50), list_roots(ctx)
    )
    return f"All inputs received: name={name}, greeting={greeting}, roots={len(roots)}"


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two questions one after the other: a name, then a favorite color."""
    name = await ask_name(ctx, "Step 1: What is your name?")
    answer = await ctx.elicit(message="Step 2: What is your favorite color?", schema=Color)
    color = answer.data.color if answer.action == "accept" else f"({answer.action})"
    return f"{name} likes {color}."


@server.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Asks for a confirmation; a retry with a tampered requestState must be refused by the bridge."""
    answer = await ctx.elicit(message="Please confirm", schema=Confirm)
    return f"state-ok: {answer.action}"


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only for what the client declared: sampling if it can sample, elicitation if it can elicit."""
    asks: list[Any] = []
    if declared(ctx, types.ClientCapabilities(sampling=types.SamplingCapability())):
        asks.append(sample(ctx, "Say hello", 50))
    if declared(ctx, types.ClientCapabilities(elicitation=types.ElicitationCapability())):
        asks.append(ask_name(ctx))
    if not asks:
        return "The client declared neither sampling nor elicitation: nothing to ask."
    answers = await asyncio.gather(*asks)
    return "Answers: " + "; ".join(answers)


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> list[UserMessage]:
    """A prompt that first asks the user which context to use (elicitation/create)."""
    answer = await ctx.elicit(message="What context should the prompt use?", schema=PromptContext)
    text = answer.data.context if answer.action == "accept" else f"({answer.action})"
    return [UserMessage(f"Use the following context: {text}")]


def main() -> None:
    global PLAIN_LIST_ROOTS
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, default=3011)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--stdio", action="store_true", help="serve on stdin/stdout instead of HTTP")
    parser.add_argument("--plain-list-roots", action="store_true",
                        help="send roots/list with session.list_roots() (GET stream on HTTP)")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    PLAIN_LIST_ROOTS = args.plain_list_roots
    server.settings.log_level = args.log_level.upper()
    if args.stdio:
        server.run(transport="stdio")
    else:
        server.settings.host = args.host
        server.settings.port = args.port
        server.run(transport="streamable-http")


if __name__ == "__main__":
    main()
