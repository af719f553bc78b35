"""A 2026-07-28-only server (mcp 2.3.0) whose tools ask for input the 2026 way: ``input_required``.

It exposes the tools of the 2025-11-25 conformance scenarios that make server->client requests
(``tools-call-sampling``, ``tools-call-elicitation``, ``elicitation-sep1034-defaults``,
``elicitation-sep1330-enums``), each written as a two-round MRTR tool: the first call returns an
``InputRequiredResult`` carrying the sampling / elicitation request, the retry with
``inputResponses`` returns the text the 2025 scenario describes. No tool ever sends a
server->client request, so a 2025-11-25 client can only reach these tools through a bridge whose
legacy front turns ``input_required`` into real requests on the client's session.

The HTTP endpoint is forced onto the 2026 wire: anything that is not a POST carrying
``MCP-Protocol-Version: 2026-07-28`` (an ``initialize``, a session GET stream, a DELETE) gets HTTP
400 with the 2026 ``UnsupportedProtocolVersion`` error (-32022) naming the one version served, the
answer a modern-only server gives a legacy client.

Run: ``python samples/conformance/modern_elicitation_server.py --port 3010`` (endpoint ``/mcp``).
"""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("modern_elicitation_server")

MODERN = "2026-07-28"
UNSUPPORTED_PROTOCOL_VERSION = -32022

server = MCPServer(name="mcp-eras-modern-elicitation-fixture", version="0.1.0")


# --- helpers ---------------------------------------------------------------------------------------


def _answer(ctx: Context, key: str) -> Any:
    return (ctx.input_responses or {}).get(key)


def _require(ctx: Context, capability: str) -> None:
    """Fail the tool (an ``isError`` result) when the request's client capabilities lack ``capability``."""
    caps = ctx.client_capabilities
    if caps is not None and getattr(caps, capability, None) is None:
        raise ToolError(f"client did not declare the {capability} capability")


def _elicit(ctx: Context, key: str, message: str, schema: dict[str, Any], prefix: str) -> str | InputRequiredResult:
    """Round one: ask ``message`` under ``key``; round two: report the answer as ``<prefix>: action=..``."""
    _require(ctx, "elicitation")
    answer = _answer(ctx, key)
    if answer is None:
        request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))
        return InputRequiredResult(input_requests={key: request})
    if isinstance(answer, ElicitResult):
        content = json.dumps(answer.content if answer.action == "accept" and answer.content else {})
        return f"{prefix}: action={answer.action}, content={content}"
    return f"{prefix}: unexpected answer {type(answer).__name__}"


# --- tools-call-sampling ---------------------------------------------------------------------------


@server.tool()
async def test_sampling(prompt: str, ctx: Context) -> str | InputRequiredResult:
    """Asks the client's model to complete ``prompt`` (sampling/createMessage through input_required)."""
    _require(ctx, "sampling")
    answer = _answer(ctx, "sampling")
    if answer is None:
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        request = CreateMessageRequest(params=CreateMessageRequestParams(messages=[message], max_tokens=100))
        return InputRequiredResult(input_requests={"sampling": request})
    if isinstance(answer, CreateMessageResult) and isinstance(answer.content, TextContent):
        return f"LLM response: {answer.content.text}"
    return "LLM response: (no text)"


# --- tools-call-elicitation ------------------------------------------------------------------------

USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str | InputRequiredResult:
    """Asks the user for a username and an email (elicitation/create through input_required)."""
    return _elicit(ctx, "user", message, USER_SCHEMA, "User response")


# --- elicitation-sep1034-defaults ------------------------------------------------------------------

DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"],
                   "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str | InputRequiredResult:
    """Elicitation whose schema gives a default for every primitive type (SEP-1034)."""
    return _elicit(ctx, "profile", "Please provide user information", DEFAULTS_SCHEMA, "Elicitation completed")


# --- elicitation-sep1330-enums ---------------------------------------------------------------------


def _titled(values: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"const": const, "title": title} for const, title in values]


ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Untitled single-select",
                           "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Titled single-select",
                         "oneOf": _titled([("value1", "First Option"), ("value2", "Second Option"),
                                           ("value3", "Third Option")])},
        "legacyEnum": {"type": "string", "description": "Legacy titled enum (enumNames)",
                       "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Titled multi-select",
                        "items": {"anyOf": _titled([("value1", "First Choice"), ("value2", "Second Choice"),
                                                    ("value3", "Third Choice")])}},
    },
    "required": ["untitledSingle", "titledSingle", "legacyEnum", "untitledMulti", "titledMulti"],
}


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str | InputRequiredResult:
    """Elicitation whose schema uses the five enum shapes of SEP-1330."""
    message = "Please select values using different enum schema types"
    return _elicit(ctx, "choices", message, ENUMS_SCHEMA, "Elicitation completed")


# --- the 2026-only HTTP endpoint -------------------------------------------------------------------


class ModernOnly:
    """ASGI wrapper: only POSTs on the 2026-07-28 wire reach the server; the rest get -32022."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        version = headers.get("mcp-protocol-version")
        if scope["method"] == "POST" and version == MODERN:
            await self.app(scope, receive, send)
            return
        requested = version
        if scope["method"] == "POST":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            try:
                frame = json.loads(body)
                requested = requested or frame.get("params", {}).get("protocolVersion")
                rpc_id = frame.get("id")
            except (ValueError, AttributeError):
                rpc_id = None
        else:
            rpc_id = None
        log.info("refusing %s %s (MCP-Protocol-Version %r): this fixture serves only %s",
                 scope["method"], scope["path"], version, MODERN)
        payload = json.dumps({
            "jsonrpc": "2.0",
            "id": rpc_id,
            "error": {"code": UNSUPPORTED_PROTOCOL_VERSION, "message": "Unsupported protocol version",
                      "data": {"supported": [MODERN], "requested": requested or "(none)"}},
        }).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, default=3010)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = ModernOnly(server.streamable_http_app(host=args.host))
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level.lower())


if __name__ == "__main__":
    main()
