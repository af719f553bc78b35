"""Legacy (2025-11-25) server that asks the client mid-call, written for mcp 1.29.0 (``FastMCP``).

Usage (run it with the mcp 1.x interpreter)::

    mrtr_server.py [stdio] | http --port N [--host 127.0.0.1] | sse --port N [--host 127.0.0.1]

Server name ``legacy-mrtr``. Every tool blocks on real server->client requests of the 2025 wire
(what the bridge must park and turn into ``input_required`` for 2026 clients):

- ``ask_name()``: form elicitation (``ctx.elicit`` with a pydantic schema: ``name``);
  ``Hello, <name>!`` or ``declined``.
- ``ask_url()``: URL-mode elicitation (``ctx.elicit_url``, new in 2025-11-25 and supported by
  1.29); ``url accepted`` or ``declined``.
- ``summarize(text)``: sampling (``ctx.session.create_message``); ``<reply> (model <model>)``.
- ``list_my_roots()``: ``ctx.session.list_roots()``; one ``name: uri`` line per root.
- ``two_questions()``: two sequential elicitations (``name``, then ``color``): two rounds.
- ``ask_all()``: elicitation + sampling + roots at once (anyio task group): one round, three inputs.
- ``wait_then_ask(n)``: n progress notifications, then a form elicitation.
- prompt ``mrtr_prompt``: elicits ``name`` (1.29 passes a Context to prompt functions).
- resource template ``mrtr://secret/{label}``: elicits ``color`` (1.29 passes a Context to
  template functions only; a static resource cannot ask anything).

Deterministic texts are in ``samples/surface.py``; the 2026 twin is ``samples/modern/mrtr_server.py``.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

import anyio
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import surface  # noqa: E402
from mcp import types  # noqa: E402
from mcp.server.fastmcp import Context, FastMCP  # noqa: E402


class NameForm(BaseModel):
    name: str


class ColorForm(BaseModel):
    color: str


async def ask_for_name(ctx: Context) -> str | None:
    answer = await ctx.elicit(surface.ASK_NAME_MESSAGE, NameForm)
    return answer.data.name if answer.action == "accept" else None


async def ask_for_color(ctx: Context, message: str = surface.ASK_COLOR_MESSAGE) -> str | None:
    answer = await ctx.elicit(message, ColorForm)
    return answer.data.color if answer.action == "accept" else None


async def sample(ctx: Context, text: str) -> str:
    result = await ctx.session.create_message(
        messages=[
            types.SamplingMessage(
                role="user", content=types.TextContent(type="text", text=surface.SUMMARIZE_PROMPT.format(text=text))
            )
        ],
        max_tokens=surface.SAMPLING_MAX_TOKENS,
    )
    reply = result.content.text if isinstance(result.content, types.TextContent) else ""
    return surface.sampled_text(reply, result.model)


async def roots_text(ctx: Context) -> str:
    result = await ctx.session.list_roots()
    return surface.roots_text([(root.name or "", str(root.uri)) for root in result.roots])


def build_server(host: str = "127.0.0.1", port: int = 8000) -> FastMCP:
    mcp = FastMCP("legacy-mrtr", instructions=surface.MRTR_INSTRUCTIONS, host=host, port=port, log_level="WARNING")
    mcp._mcp_server.version = surface.SERVER_VERSION

    @mcp.tool(description="Ask the user's name (form elicitation).", structured_output=False)
    async def ask_name(ctx: Context) -> str:
        name = await ask_for_name(ctx)
        return surface.greeting(name) if name is not None else surface.DECLINED

    @mcp.tool(description="Send the user to a URL (URL-mode elicitation).", structured_output=False)
    async def ask_url(ctx: Context) -> str:
        answer = await ctx.elicit_url(surface.ASK_URL_MESSAGE, surface.ASK_URL, elicitation_id=str(uuid.uuid4()))
        return surface.URL_ACCEPTED if answer.action == "accept" else surface.DECLINED

    @mcp.tool(description="Summarize text with the client's model (sampling).", structured_output=False)
    async def summarize(text: str, ctx: Context) -> str:
        return await sample(ctx, text)

    @mcp.tool(description="List the client's roots.", structured_output=False)
    async def list_my_roots(ctx: Context) -> str:
        return await roots_text(ctx)

    @mcp.tool(description="Ask two questions, one after the other.", structured_output=False)
    async def two_questions(ctx: Context) -> str:
        name = await ask_for_name(ctx)
        if name is None:
            return surface.DECLINED
        color = await ask_for_color(ctx)
        return surface.likes(name, color) if color is not None else surface.DECLINED

    @mcp.tool(description="Ask for a name, a sample and the roots at once.", structured_output=False)
    async def ask_all(ctx: Context) -> str:
        answers: dict[str, str | None] = {}

        async def put(key: str, coro: object) -> None:
            answers[key] = await coro  # type: ignore[misc]

        async with anyio.create_task_group() as tg:
            tg.start_soon(put, "name", ask_for_name(ctx))
            tg.start_soon(put, "sample", sample(ctx, surface.ASK_ALL_TEXT))
            tg.start_soon(put, "roots", roots_text(ctx))
        return surface.all_text(answers["name"], answers["sample"] or "", answers["roots"] or "")

    @mcp.tool(description="Report n progress steps, then ask the user's name.", structured_output=False)
    async def wait_then_ask(n: int, ctx: Context) -> str:
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"waiting {step}/{n}")
        name = await ask_for_name(ctx)
        return surface.greeting(name) if name is not None else surface.DECLINED

    @mcp.prompt(description="A prompt that asks whom it is for.")
    async def mrtr_prompt(ctx: Context) -> str:
        name = await ask_for_name(ctx)
        return surface.poem_request(name)

    @mcp.resource(surface.SECRET_TEMPLATE, name="secret", description="Unlocked by a colour.", mime_type="text/plain")
    async def secret(label: str, ctx: Context) -> str:
        color = await ask_for_color(ctx, surface.SECRET_MESSAGE.format(label=label))
        return surface.secret_text(label, color)

    return mcp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http", "sse"])
    parser.add_argument("--port", type=int, help="TCP port (http, sse)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    args = parser.parse_args(argv)
    if args.transport != "stdio" and args.port is None:
        parser.error(f"{args.transport} needs --port")
    surface.stderr_logging()
    mcp = build_server(args.host, args.port or 8000)
    mcp.run({"stdio": "stdio", "http": "streamable-http", "sse": "sse"}[args.transport])  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
