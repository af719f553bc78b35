"""The 2025-11-25 stdio front in process: ``LegacyStdioSession`` over a ``ListeningUpstream`` (tests/inprocess/legacy_front_fakes.py).

2025-11-25 basic/lifecycle.mdx §Initialization (only ping before initialize, initialize once), basic/index.mdx
§Requests (ids not reused), basic/utilities/cancellation.mdx (no response to a cancelled request). Every frame
written to the client is validated against the 2025-11-25 schema.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import legacy_front_fakes as fakes
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.legacy import LegacyStdioSession
from mcp_eras.bridge.translate import jsonrpc

import spec

pytestmark = pytest.mark.anyio

INIT = jsonrpc.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                                         "clientInfo": {"name": "stdio-client", "version": "1.0"}})


class Wire:
    """What the front wrote to the client's stdin, one frame at a time."""

    def __init__(self) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def write(self, msg: dict[str, Any]) -> None:
        spec.legacy("JSONRPCMessage", msg)
        await self.frames.put(msg)

    async def next(self) -> dict[str, Any]:
        async with asyncio.timeout(10):
            return await self.frames.get()

    async def response(self, rid: Any) -> dict[str, Any]:
        while True:
            frame = await self.next()
            if frame.get("id") == rid and "method" not in frame:
                return frame


@pytest.fixture
async def stdio() -> AsyncIterator[tuple[LegacyStdioSession, Wire, fakes.ListeningUpstream]]:
    upstream = fakes.ListeningUpstream()
    wire = Wire()
    session = LegacyStdioSession(upstream, Settings(request_timeout=10.0, connect_timeout=5.0), wire.write)
    try:
        yield session, wire, upstream
    finally:
        await session.aclose()


async def test_before_initialize_only_ping(stdio: tuple[LegacyStdioSession, Wire, fakes.ListeningUpstream]) -> None:
    session, wire, upstream = stdio
    await session.on_frame(jsonrpc.request("p", "ping"))
    assert await wire.next() == {"jsonrpc": "2.0", "id": "p", "result": {}}
    await session.on_frame(jsonrpc.request("t", "tools/list"))
    assert (await wire.next())["error"]["code"] == -32600
    assert upstream.requests == []


async def test_initialize_once_then_requests(stdio: tuple[LegacyStdioSession, Wire, fakes.ListeningUpstream]) -> None:
    session, wire, upstream = stdio
    await session.on_frame(INIT)
    await session.on_frame(jsonrpc.request(2, "tools/list"))  # pipelined: waits for initialize
    init = await wire.response(1)
    assert init["result"]["protocolVersion"] == "2025-06-18"
    spec.legacy("InitializeResult", init["result"])
    listed = await wire.response(2)
    assert [t["name"] for t in listed["result"]["tools"]] == [t["name"] for t in fakes.TOOLS]
    await session.on_frame(jsonrpc.notification("notifications/initialized"))
    await session.on_frame(jsonrpc.request(3, "initialize", INIT["params"]))
    assert (await wire.response(3))["error"]["code"] == -32600
    await session.on_frame(jsonrpc.request(2, "ping"))
    assert (await wire.response(2))["error"]["code"] == -32600  # id 2 was used
    await session.on_frame(jsonrpc.request(1, "ping"))
    assert (await wire.response(1))["error"]["code"] == -32600  # so was initialize's


async def test_mrtr_and_cancel_on_stdio(stdio: tuple[LegacyStdioSession, Wire, fakes.ListeningUpstream]) -> None:
    session, wire, upstream = stdio
    await session.on_frame(INIT)
    await wire.response(1)
    await session.on_frame(jsonrpc.request(5, "tools/call", {"name": "ask", "arguments": {}}))
    question = await wire.next()
    spec.legacy("ElicitRequest", question)
    await session.on_frame(jsonrpc.result_response(question["id"], {"action": "accept", "content": {"name": "Bo"}}))
    assert (await wire.response(5))["result"]["content"][0]["text"] == "Bo"
    await session.on_frame(jsonrpc.request(6, "tools/call", {"name": "slow", "arguments": {}}))
    await session.on_frame(jsonrpc.request(7, "ping"))
    assert "result" in await wire.response(7)
    await upstream.wait_request(6)
    await session.on_frame(jsonrpc.notification("notifications/cancelled", {"requestId": 6}))
    await session.on_frame(jsonrpc.request(8, "ping"))
    assert await wire.response(8) == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert wire.frames.empty()  # and no response for 6
    assert 6 in upstream.cancelled_ids
