"""A 2025 server that closes a POST's SSE stream before answering: the Streamable HTTP transport waits the
stream's ``retry`` and resumes with a GET carrying ``Last-Event-ID`` (2025-11-25 basic/transports.mdx,
"Resumability and Redelivery"), a bounded number of times, instead of failing the call at once.

The server is a real uvicorn on a loopback port serving a small ASGI app that behaves as the conformance
harness's ``sse-retry`` mock does.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from live_uvicorn import serving
from starlette.requests import Request

from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, Message
from mcp_eras.bridge.upstream import legacy_transport
from mcp_eras.bridge.upstream.legacy_transport import RESUME_ATTEMPTS, StreamableHttpTransport

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
CALL: Message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
RETRY_MS = 40


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Upstream:
    """POST: an SSE stream with a priming event (``id``, ``retry``) closed unanswered. GET: the answer after the
    priming event when ``answer_on_get`` (else a priming event and an end), or 405 when ``get_status`` says so."""

    def __init__(self, *, answer_on_get: bool = True, get_status: int = 200, retry_ms: int = RETRY_MS) -> None:
        self.retry_ms = retry_ms
        self.answer_on_get = answer_on_get
        self.get_status = get_status
        self.gets: list[str | None] = []  # the Last-Event-ID of each GET
        self.pending: Any = None
        self.events = 0

    def _priming(self) -> bytes:
        self.events += 1
        return f"id: ev-{self.events}\nretry: {self.retry_ms}\ndata: \n\n".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "POST":
            self.pending = json.loads(await Request(scope, receive).body())["id"]
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            await send({"type": "http.response.body", "body": self._priming(), "more_body": True})
            await send({"type": "http.response.body", "body": b""})  # closed before the answer
            return
        self.gets.append(headers.get("last-event-id"))
        if self.get_status != 200:
            await send({"type": "http.response.start", "status": self.get_status, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        chunk = self._priming()
        if self.answer_on_get:
            self.events += 1
            answer = {"jsonrpc": "2.0", "id": self.pending, "result": {"content": [{"type": "text", "text": "resumed"}]}}
            chunk += f"event: message\nid: ev-{self.events}\ndata: {json.dumps(answer)}\n\n".encode()
        await send({"type": "http.response.body", "body": chunk, "more_body": self.answer_on_get})
        if self.answer_on_get:  # the stream stays open, as the harness's does: the client closes it
            while (await receive())["type"] != "http.disconnect":
                pass


async def one_call(app: Upstream, monkeypatch: pytest.MonkeyPatch, timeout: float = 20.0) -> tuple[Message, list[float]]:
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def pause(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(seconds)

    monkeypatch.setattr(legacy_transport, "_pause", pause)
    got: asyncio.Queue[Message] = asyncio.Queue()

    async def deliver(msg: Message, related: Any) -> None:
        await got.put(msg)

    async def lost(why: str) -> None:
        raise AssertionError(why)

    async with serving(app, "h11") as port, httpx.AsyncClient() as client:
        transport = StreamableHttpTransport(f"http://127.0.0.1:{port}/mcp", client, timeout=timeout)
        transport.bind(deliver, lost)
        await transport.open()
        await transport.send(CALL)
        answer = await asyncio.wait_for(got.get(), 30)
        await transport.close()
    return answer, waits


async def test_a_stream_closed_before_the_answer_is_resumed_with_last_event_id(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Upstream()
    answer, waits = await one_call(app, monkeypatch)
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "resumed"}]}}
    assert app.gets == ["ev-1"]  # one GET, naming the POST stream's last event
    assert waits == [RETRY_MS / 1000]  # the stream's retry, before reconnecting


async def test_resumption_is_bounded_and_then_the_call_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Upstream(answer_on_get=False)
    answer, waits = await one_call(app, monkeypatch)
    assert answer["error"]["code"] == INTERNAL_ERROR
    assert "without answering" in answer["error"]["message"]
    assert len(app.gets) == RESUME_ATTEMPTS
    assert app.gets[0] == "ev-1"
    assert app.gets[1:] == [f"ev-{n}" for n in range(2, RESUME_ATTEMPTS + 1)]  # each from the stream before it
    assert waits == [RETRY_MS / 1000] * RESUME_ATTEMPTS


async def test_a_server_without_a_get_stream_fails_the_call_after_one_try(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Upstream(get_status=405)
    answer, _waits = await one_call(app, monkeypatch)
    assert answer["error"]["code"] == INTERNAL_ERROR
    assert app.gets == ["ev-1"]


async def test_resumption_never_outlasts_the_request_s_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Upstream(retry_ms=60_000)  # a retry longer than the request may last
    answer, waits = await one_call(app, monkeypatch, timeout=0.5)
    assert answer["error"]["code"] == INTERNAL_ERROR
    assert waits == [60.0] and app.gets == []  # the wait began and was cut at the deadline: no GET
