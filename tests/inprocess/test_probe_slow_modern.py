"""A 2026 HTTP upstream too loaded to answer ``server/discover`` within the probe timeout, which then refuses
``initialize`` naming its versions (-32022): the bridge switches to 2026 and serves the pending request (2026-07-28
basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions), and the stdio front answers its
client instead of exiting.

The upstream is a small ASGI app on a real uvicorn (loopback): its first ``server/discover`` is answered only after
the probe gave up; ``initialize`` is refused as a 2026-only server refuses it; ``tools/call`` is answered.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from handoffs import tools_call
from live_uvicorn import serving
from starlette.requests import Request

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.front.stdio import serve_stdio
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.upstream.factory import AutoUpstream, Target

import spec

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
PROBE_TIMEOUT = 0.2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SlowModernServer:
    """A 2026-07-28-only Streamable HTTP server whose first ``server/discover`` waits for ``release``."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.methods: list[str] = []
        self.deletes = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        if scope["method"] == "DELETE":
            self.deletes += 1
            await self._reply(send, 405, None)
            return
        msg = json.loads(await Request(scope, receive).body())
        method = msg.get("method", "")
        self.methods.append(method)
        if method == "server/discover":
            if self.methods.count("server/discover") == 1:
                await self.release.wait()  # loaded: the answer comes after the probe timeout
            await self._reply(send, 200, {"jsonrpc": "2.0", "id": msg["id"], "result": spec.example("DiscoverResult")})
        elif method == "initialize":
            self.release.set()
            await self._reply(send, 400, {"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32022, "message": "this server speaks 2026-07-28 only",
                "data": {"supported": [eras.MODERN], "requested": msg["params"]["protocolVersion"]}}})
        elif method == "tools/call":
            await self._reply(send, 200, {"jsonrpc": "2.0", "id": msg["id"], "result": {
                "resultType": "complete", "content": [{"type": "text", "text": "served by 2026"}]}})
        else:
            await self._reply(send, 202, None)

    @staticmethod
    async def _reply(send: Any, status: int, body: Any) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        headers = [(b"content-type", b"application/json")] if body is not None else []
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})


def settings() -> Settings:
    return Settings(probe_timeout=PROBE_TIMEOUT, connect_timeout=10.0)


async def test_a_refused_initialize_after_a_silent_probe_switches_the_upstream_to_2026() -> None:
    app = SlowModernServer()
    async with serving(app, "h11") as port:
        up = AutoUpstream(Target(url=f"http://127.0.0.1:{port}/mcp"), settings())
        try:
            response = await asyncio.wait_for(up.call(tools_call(1, name="t"), CallContext(), discard), 30)
        finally:
            await up.aclose()
    assert up.era == eras.MODERN
    assert response["result"]["content"] == [{"type": "text", "text": "served by 2026"}]
    assert app.methods[:2] == ["server/discover", "initialize"]
    assert "tools/call" in app.methods


class Pipe:
    """The stdio front's stdout: frames collected."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.frames.extend(json.loads(line) for line in data.splitlines() if line.strip())


async def test_the_stdio_front_answers_its_client_when_the_silent_probe_is_overturned() -> None:
    app = SlowModernServer()
    async with serving(app, "h11") as port:
        up = AutoUpstream(Target(url=f"http://127.0.0.1:{port}/mcp"), settings())
        reader = asyncio.StreamReader()
        reader.feed_data(json.dumps(tools_call(5, name="t")).encode() + b"\n")
        out = Pipe()

        async def hang_up_when_answered() -> None:
            while not out.frames:  # noqa: ASYNC110 - the front writes to a plain object
                await asyncio.sleep(0.01)
            reader.feed_eof()

        watcher = asyncio.create_task(hang_up_when_answered())
        try:
            await asyncio.wait_for(serve_stdio(up, settings(), reader=reader, writer=out), 30)
        finally:
            watcher.cancel()
    assert [f.get("id") for f in out.frames] == [5]
    assert out.frames[0]["result"]["content"] == [{"type": "text", "text": "served by 2026"}]
