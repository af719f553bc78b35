"""HTTP/1.1 framing on the bridge's HTTP front, over raw sockets against a real uvicorn (issue #33, acceptance 4), on
each protocol the front runs: uvicorn's h11, httptools (mcp-eras[fast]) and httptools with the MCP endpoint's
shortcut (bridge.front.fast_post). Every front is built by ``h11_guard.header_timeout_protocol`` (the fleet's too:
``clikit.server_config``), so each case holds on all of them.

* A request framed ambiguously (RFC 9112 §6.1, §6.3, §5.1, §5.2) is refused with one answer and the connection
  closed: the bytes after it (a smuggled second request) are never served, and no call reaches the upstream. On
  httptools a head with a plain Content-Length field is left to llhttp, which refuses the same heads (uvicorn's
  text answer); every other head is refused by the bridge's own check (a JSON-RPC error), as on h11.
* A chunk declared past the body cap is refused at its size line, not waited for.
* A body over ``--max-body-bytes`` gets its 413 (the connection lingers while the client sends the rest, no reset).
* A client hanging up mid-body leaves no traceback in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import live_uvicorn
import orjson
import pytest
from fakes import FakeUpstream
from http_raw import BODY, CL, SMUGGLED, chunked, exchange, over_cap, post, responses
from uvicorn.protocols.http.h11_impl import H11Protocol

from mcp_eras.bridge import clikit
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import h11_guard
from mcp_eras.bridge.front.fast_post import FastPost
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.strict_http import StrictFraming

try:  # mcp-eras[fast]
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    HttpToolsProtocol = None  # type: ignore[assignment, misc]

pytestmark = pytest.mark.anyio
CAP = 4096
REFUSED: list[tuple[str, bytes, int]] = [  # (case, request bytes, status)
    ("Content-Length and chunked", post(CL % len(chunked(BODY)) + b"Transfer-Encoding: chunked\r\n", chunked(BODY)), 400),
    ("chunked and Content-Length", post(b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", chunked(BODY)), 400),
    ("obs-folded Transfer-Encoding", post(b"Transfer-Encoding:\r\n chunked\r\n", chunked(BODY)), 400),
    ("obs-folded field", post(b"X-Note: a\r\n\tb\r\n" + CL % len(BODY), BODY), 400),
    ("contradictory Content-Length", post(CL % len(BODY) + CL % (len(BODY) + 5), BODY), 400),
    ("repeated Content-Length", post(CL % len(BODY) + CL % len(BODY), BODY), 400),
    ("Content-Length list", post(b"Content-Length: %d, %d\r\n" % (len(BODY), len(BODY)), BODY), 400),
    ("signed Content-Length", post(b"Content-Length: +%d\r\n" % len(BODY), BODY), 400),
    ("gzip alone", post(b"Transfer-Encoding: gzip\r\n", BODY), 400),
    ("chunked not final", post(b"Transfer-Encoding: chunked, gzip\r\n", chunked(BODY)), 400),
    ("chunked twice", post(b"Transfer-Encoding: chunked, chunked\r\n", chunked(BODY)), 400),
    ("identity", post(b"Transfer-Encoding: identity\r\n" + CL % len(BODY), BODY), 400),
    ("an unknown coding before chunked", post(b"Transfer-Encoding: gzip, chunked\r\n", chunked(BODY)), 501),
    ("Transfer-Encoding in HTTP/1.0", post(b"Transfer-Encoding: chunked\r\n", chunked(BODY), b"HTTP/1.0"), 400),
    ("space before the colon", post(b"Content-Length : %d\r\n" % len(BODY), BODY), 400),
    ("space before the colon of Transfer-Encoding",
     post(b"Transfer-Encoding : chunked\r\n" + CL % len(chunked(BODY)), chunked(BODY)), 400),
    ("a bare LF", post(b"X-Note: a\nContent-Length: %d\r\n" % len(BODY), BODY), 400),
    ("a malformed chunk size", post(b"Transfer-Encoding: chunked\r\n", b"zz\r\n" + BODY), 400),
    ("chunk data without its CRLF", post(b"Transfer-Encoding: chunked\r\n", b"%x\r\n%sXX0\r\n\r\n" % (len(BODY), BODY)), 400),
    ("a chunked body over the cap", post(b"Transfer-Encoding: chunked\r\n", chunked(b"x" * (CAP + 1))), 413),
]
HUGE_CHUNKS = ["100000000000000000000", "10000000000000000000", "1000000000000000", "%x" % (CAP + 1)]
"""Declared chunk sizes past the cap: 2^80, 2^76, 2^60 and just over (each sent alone, then nothing more)."""


@pytest.fixture(params=["h11", "httptools", "httptools+shortcut"])
def front(request: pytest.FixtureRequest) -> str:
    if request.param != "h11" and HttpToolsProtocol is None:
        pytest.skip("httptools is not installed (mcp-eras[fast])")
    return str(request.param)


@contextlib.asynccontextmanager
async def serving(front: str, cap: int = CAP) -> AsyncIterator[tuple[int, FakeUpstream]]:
    upstream = FakeUpstream()
    app = build_app(Settings(max_body_bytes=cap), upstream, None)
    base = H11Protocol if front == "h11" else HttpToolsProtocol
    fast = FastPost(app.state.front, "/mcp") if front == "httptools+shortcut" else None
    protocol = h11_guard.header_timeout_protocol(10, base, fast=fast, max_body_bytes=app.state.max_body_bytes)
    async with live_uvicorn.serving(app, protocol) as port:
        yield port, upstream


@pytest.mark.parametrize(("case", "request_bytes", "status"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_ambiguous_framing_is_refused_and_the_connection_closed(front: str, case: str, request_bytes: bytes,
                                                                      status: int) -> None:
    async with serving(front) as (port, upstream):
        raw, closed = await exchange(port, request_bytes + SMUGGLED)
        answers = responses(raw)
        assert [a[0] for a in answers] == [status], (case, raw[:300])  # one answer: the smuggled GET is never served
        assert answers[0][1]["connection"] == "close"
        if answers[0][1]["content-type"] == "application/json" or front == "h11":  # (else llhttp's own refusal: see top)
            assert orjson.loads(answers[0][2])["error"]["code"] == -32600
        assert closed
        assert upstream.calls == []


async def test_requests_pipelined_before_a_refused_one(front: str) -> None:
    """On h11 they are answered first, then the refusal; llhttp refuses the bytes it was given at once (uvicorn then
    answers none of the requests among them): the refused request's bytes never reach either parser as a request."""
    good = post(CL % len(BODY), BODY)
    refused = REFUSED[0][1]
    async with serving(front) as (port, upstream):
        raw, closed = await exchange(port, good + SMUGGLED + refused + SMUGGLED)
        answers = responses(raw)
        assert [a[0] for a in answers] == ([200, 200, 400] if front == "h11" else [400]) and closed
        assert len(upstream.calls) == 1 or front != "h11"  # (on httptools the first may have run, unanswered)


@pytest.mark.parametrize("size", HUGE_CHUNKS)
async def test_a_chunk_declared_past_the_cap_is_refused_at_once(front: str, size: str) -> None:
    async with serving(front) as (port, upstream):
        # The size line and a few bytes, then nothing: the answer comes without the client sending (or closing) more.
        raw, closed = await exchange(port, post(b"Transfer-Encoding: chunked\r\n", size.encode() + b"\r\nabc"))
        assert [a[0] for a in responses(raw)] == [413] and closed
        assert upstream.calls == []


async def test_well_framed_requests_keep_the_connection(front: str) -> None:
    async with serving(front) as (port, upstream):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for request_bytes in (post(CL % len(BODY), BODY), post(b"Transfer-Encoding: chunked\r\n", chunked(BODY)),
                              post(b"Transfer-Encoding: chunked\r\n", b"4;ext=1\r\n" + BODY[:4] + b"\r\n"
                                   + chunked(BODY[4:])[:-2] + b"Trailer-Field: x\r\n\r\n"),
                              post(b"Content-Length:%d \r\n" % len(BODY), BODY)):
            writer.write(request_bytes)
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
                size = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                body = await reader.readexactly(size)
            assert head.startswith(b"HTTP/1.1 200") and orjson.loads(body)["result"]["content"][0]["text"] == "hi"
        writer.close()
        assert len(upstream.calls) == 4


@pytest.mark.parametrize("at_once", [True, False], ids=["whole", "body-after-head"])
async def test_a_body_over_the_cap_gets_its_413_not_a_reset(front: str, at_once: bool) -> None:
    cap = 1024 * 1024
    async with serving(front, cap) as (port, upstream):
        for _ in range(3):
            got = await asyncio.to_thread(over_cap, port, cap, at_once)
            assert isinstance(got, bytes), got
            answer = responses(got)
            assert [a[0] for a in answer] == [413] and answer[0][1]["connection"] == "close"
        assert upstream.calls == []


class _Noticed(logging.Handler):
    """Sets ``event`` when a record's message contains ``text``."""

    def __init__(self, text: str, event: asyncio.Event) -> None:
        super().__init__(logging.DEBUG)
        self.text, self.event = text, event

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.event.set()


async def test_a_client_hanging_up_mid_body_logs_no_traceback(front: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    ended = asyncio.Event()
    noticed = _Noticed("went away", ended)
    logging.getLogger("mcp_bridge.http").addHandler(noticed)
    async with serving(front) as (port, upstream):
        for request_bytes in (post(CL % len(BODY), BODY[:10]), post(b"Transfer-Encoding: chunked\r\n", b"5\r\nab")):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request_bytes)
            await writer.drain()
            await asyncio.sleep(0.2)  # the request is being read
            writer.close()
        try:
            async with asyncio.timeout(10):  # the ASGI path tells the chunked request's end (the shortcut takes no chunked)
                await ended.wait()
        finally:
            logging.getLogger("mcp_bridge.http").removeHandler(noticed)
        assert upstream.calls == []
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert noisy == []


def test_every_served_app_gets_the_strict_protocol() -> None:
    """``clikit.server_config`` builds the protocol of the single-server and fleet fronts alike."""
    from starlette.applications import Starlette

    for app in (Starlette(), build_app(Settings(max_body_bytes=123), FakeUpstream(), None)):
        protocol: Any = clikit.server_config(app).http
        assert issubclass(protocol, StrictFraming)
    assert protocol.max_body_bytes == 123
