"""Modern (2026-07-28) server that needs client input, written for mcp 2.3.0 (``MCPServer``).

Usage (run it with the project interpreter)::

    mrtr_server.py [stdio] | http --port N [--host 127.0.0.1]

Server name ``modern-mrtr``: the same tool names as ``samples/legacy/mrtr_server.py``, written
with the 2026 multi-round-trip pattern. A handler that needs input returns an
``InputRequiredResult`` (``resultType: "input_required"``) whose ``inputRequests`` map keys to
``elicitation/create`` / ``sampling/createMessage`` / ``roots/list`` requests; the client
retries the same request with ``inputResponses`` under the same keys and the echoed
``requestState`` (sealed by the SDK's ``RequestStateBoundary``: handlers only see plaintext
they minted, here a small JSON object).

- single input: ``ask_name`` (key ``name``), ``ask_url`` (``url``, URL mode), ``summarize``
  (``summary``, sampling), ``list_my_roots`` (``roots``), ``wait_then_ask(n)`` (progress first).
- multiple inputs in one round: ``ask_all`` (``name`` + ``summary`` + ``roots``).
- multi-round: ``two_questions``: round 1 asks ``name``; round 2 asks ``color`` carrying the
  name in ``requestState``; round 3 completes.
- prompt ``mrtr_prompt`` (``name``) and resource template ``mrtr://secret/{label}`` (``color``).

A request whose ``clientCapabilities`` lack what an input needs (``elicitation``, its ``url``
mode, ``sampling``, ``roots``) fails with -32021 and ``data.requiredCapabilities``.

This server serves the 2026 wire only: its handlers answer ``input_required``, which a 2025
session cannot carry, so the 2025 handshake is refused (-32602, like ``--modern-only`` of the
everything server; mcp 2.3.0 itself has no such switch).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequest,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import surface  # noqa: E402
from everything_server import modern_only, parse_cli, serve  # noqa: E402
from mcp.server.elicitation import render_elicitation_schema  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


class NameForm(BaseModel):
    name: str


class ColorForm(BaseModel):
    color: str


class Missing:
    """No answer under that key yet: the input still has to be requested."""


MISSING = Missing()


# --- input requests -------------------------------------------------------------------------


def name_request() -> ElicitRequest:
    return ElicitRequest(
        params=ElicitRequestFormParams(
            message=surface.ASK_NAME_MESSAGE, requested_schema=render_elicitation_schema(NameForm)
        )
    )


def color_request(message: str = surface.ASK_COLOR_MESSAGE) -> ElicitRequest:
    return ElicitRequest(
        params=ElicitRequestFormParams(message=message, requested_schema=render_elicitation_schema(ColorForm))
    )


def url_request() -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestURLParams(message=surface.ASK_URL_MESSAGE, url=surface.ASK_URL))


def sampling_request(text: str) -> CreateMessageRequest:
    prompt = TextContent(type="text", text=surface.SUMMARIZE_PROMPT.format(text=text))
    return CreateMessageRequest(
        params=CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=prompt)], max_tokens=surface.SAMPLING_MAX_TOKENS
        )
    )


def _required(request: InputRequest) -> dict[str, Any] | None:
    """The client capability ``request`` needs, as a ClientCapabilities wire dict."""
    if isinstance(request, ElicitRequest):
        return {"elicitation": {"url": {}}} if isinstance(request.params, ElicitRequestURLParams) else {"elicitation": {}}
    if isinstance(request, CreateMessageRequest):
        return {"sampling": {}}
    return {"roots": {}}


def _declared(ctx: Context, request: InputRequest) -> bool:
    caps = ctx.client_capabilities
    if caps is None:
        return False
    if isinstance(request, ElicitRequest):
        if caps.elicitation is None:
            return False
        return caps.elicitation.url is not None if isinstance(request.params, ElicitRequestURLParams) else True
    if isinstance(request, CreateMessageRequest):
        return caps.sampling is not None
    return caps.roots is not None


def ask(ctx: Context, requests: dict[str, InputRequest], state: dict[str, Any] | None = None) -> InputRequiredResult:
    """Build the ``input_required`` answer, refusing inputs the client did not declare (-32021)."""
    for request in requests.values():
        if not _declared(ctx, request):
            raise MCPError(
                MISSING_REQUIRED_CLIENT_CAPABILITY,
                f"Server requires the client capability for {request.method}",
                {"requiredCapabilities": _required(request)},
            )
    return InputRequiredResult(
        input_requests=requests, request_state=json.dumps(state, sort_keys=True) if state is not None else None
    )


# --- answers --------------------------------------------------------------------------------


def _response(ctx: Context, key: str) -> Any:
    return (ctx.input_responses or {}).get(key, MISSING)


def elicited(ctx: Context, key: str, field: str) -> str | None | Missing:
    """The accepted value of ``field``; ``None`` when declined or cancelled; MISSING if not answered."""
    answer = _response(ctx, key)
    if not isinstance(answer, ElicitResult):
        return MISSING
    if answer.action != "accept":
        return None
    value = (answer.content or {}).get(field)
    return str(value) if value is not None else None


def sampled(ctx: Context, key: str) -> str | Missing:
    answer = _response(ctx, key)
    if not isinstance(answer, CreateMessageResult):
        return MISSING
    reply = answer.content.text if isinstance(answer.content, TextContent) else ""
    return surface.sampled_text(reply, answer.model)


def roots_answer(ctx: Context, key: str) -> str | Missing:
    answer = _response(ctx, key)
    if not isinstance(answer, ListRootsResult):
        return MISSING
    return surface.roots_text([(root.name or "", str(root.uri)) for root in answer.roots])


def state_of(ctx: Context) -> dict[str, Any]:
    return json.loads(ctx.request_state) if ctx.request_state else {}


# --- server ---------------------------------------------------------------------------------


def build_server() -> MCPServer:
    mcp = MCPServer(
        "modern-mrtr",
        instructions=surface.MRTR_INSTRUCTIONS,
        version=surface.SERVER_VERSION,
        log_level="WARNING",
        middleware=[modern_only],
    )

    @mcp.tool(description="Ask the user's name (form elicitation).", structured_output=False)
    async def ask_name(ctx: Context) -> str | InputRequiredResult:
        name = elicited(ctx, "name", "name")
        if isinstance(name, Missing):
            return ask(ctx, {"name": name_request()})
        return surface.greeting(name) if name is not None else surface.DECLINED

    @mcp.tool(description="Send the user to a URL (URL-mode elicitation).", structured_output=False)
    async def ask_url(ctx: Context) -> str | InputRequiredResult:
        answer = _response(ctx, "url")
        if not isinstance(answer, ElicitResult):
            return ask(ctx, {"url": url_request()})
        return surface.URL_ACCEPTED if answer.action == "accept" else surface.DECLINED

    @mcp.tool(description="Summarize text with the client's model (sampling).", structured_output=False)
    async def summarize(text: str, ctx: Context) -> str | InputRequiredResult:
        summary = sampled(ctx, "summary")
        if isinstance(summary, Missing):
            return ask(ctx, {"summary": sampling_request(text)})
        return summary

    @mcp.tool(description="List the client's roots.", structured_output=False)
    async def list_my_roots(ctx: Context) -> str | InputRequiredResult:
        roots = roots_answer(ctx, "roots")
        if isinstance(roots, Missing):
            return ask(ctx, {"roots": ListRootsRequest()})
        return roots

    @mcp.tool(description="Ask two questions, one after the other.", structured_output=False)
    async def two_questions(ctx: Context) -> str | InputRequiredResult:
        state = state_of(ctx)
        if "name" not in state:
            name = elicited(ctx, "name", "name")
            if isinstance(name, Missing):
                return ask(ctx, {"name": name_request()})
            if name is None:
                return surface.DECLINED
            return ask(ctx, {"color": color_request()}, {"name": name})
        color = elicited(ctx, "color", "color")
        if isinstance(color, Missing):
            return ask(ctx, {"color": color_request()}, state)
        return surface.likes(state["name"], color) if color is not None else surface.DECLINED

    @mcp.tool(description="Ask for a name, a sample and the roots at once.", structured_output=False)
    async def ask_all(ctx: Context) -> str | InputRequiredResult:
        name = elicited(ctx, "name", "name")
        summary = sampled(ctx, "summary")
        roots = roots_answer(ctx, "roots")
        if isinstance(name, Missing) or isinstance(summary, Missing) or isinstance(roots, Missing):
            requests: dict[str, InputRequest] = {
                "name": name_request(),
                "summary": sampling_request(surface.ASK_ALL_TEXT),
                "roots": ListRootsRequest(),
            }
            return ask(ctx, requests)
        return surface.all_text(name, summary, roots)

    @mcp.tool(description="Report n progress steps, then ask the user's name.", structured_output=False)
    async def wait_then_ask(n: int, ctx: Context) -> str | InputRequiredResult:
        name = elicited(ctx, "name", "name")
        if isinstance(name, Missing):
            for step in range(1, n + 1):
                await ctx.report_progress(step, n, f"waiting {step}/{n}")
            return ask(ctx, {"name": name_request()})
        return surface.greeting(name) if name is not None else surface.DECLINED

    @mcp.prompt(description="A prompt that asks whom it is for.")
    async def mrtr_prompt(ctx: Context) -> str | InputRequiredResult:
        name = elicited(ctx, "name", "name")
        if isinstance(name, Missing):
            return ask(ctx, {"name": name_request()})
        return surface.poem_request(name)

    @mcp.resource(surface.SECRET_TEMPLATE, name="secret", description="Unlocked by a colour.", mime_type="text/plain")
    async def secret(label: str, ctx: Context) -> str | InputRequiredResult:
        color = elicited(ctx, "color", "color")
        if isinstance(color, Missing):
            return ask(ctx, {"color": color_request(surface.SECRET_MESSAGE.format(label=label))})
        return surface.secret_text(label, color)

    return mcp


def main(argv: list[str] | None = None) -> None:
    serve(build_server(), parse_cli(__doc__.splitlines()[0], argv, modern_only_flag=False))


if __name__ == "__main__":
    main()
