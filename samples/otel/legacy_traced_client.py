"""A 2025-11-25 client (mcp 1.29.0) that calls one tool with W3C trace context in the request's ``_meta``.

Usage (run it with the mcp 1.x interpreter)::

    legacy_traced_client.py URL TOOL TRACEPARENT [--text TEXT]

Connects over Streamable HTTP, calls TOOL (arguments ``{"text": TEXT}`` when given) with ``_meta.traceparent``, answers
sampling and elicitation requests with fixed replies, and prints one JSON object: the tool's text, and the trace keys
of the ``_meta`` of each server->client request it was sent, and its ``Mcp-Session-Id``.
"""

from __future__ import annotations

import argparse
import json
from datetime import timedelta
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.context import RequestContext
from trace_record import trace_keys


async def run(url: str, tool: str, traceparent: str, text: str | None) -> dict[str, Any]:
    asked: list[dict[str, Any]] = []

    def note(method: str, context: RequestContext[Any, Any]) -> None:
        asked.append({"method": method, **trace_keys(context.meta.model_dump(by_alias=True) if context.meta is not None else None)})

    async def sample(context: RequestContext[Any, Any], params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        note("sampling/createMessage", context)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="a short summary"),
                                         model="test-model")

    async def elicit(context: RequestContext[Any, Any], params: types.ElicitRequestParams) -> types.ElicitResult:
        note("elicitation/create", context)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with streamablehttp_client(url) as (read, write, session_id), ClientSession(
            read, write, read_timeout_seconds=timedelta(seconds=120), sampling_callback=sample, elicitation_callback=elicit) as session:
        await session.initialize()
        result = await session.call_tool(tool, {"text": text} if text is not None else {}, meta={"traceparent": traceparent})
        sid = session_id()
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    return {"text": texts, "is_error": result.isError, "asked": asked, "session_id": sid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("tool")
    parser.add_argument("traceparent")
    parser.add_argument("--text")
    args = parser.parse_args()
    print(json.dumps(anyio.run(run, args.url, args.tool, args.traceparent, args.text)))


if __name__ == "__main__":
    main()
