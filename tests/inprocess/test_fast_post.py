"""The 2026 front's shortcut (bridge.front.fast_post) on a real uvicorn with httptools: every request gets
the answer the ASGI path gives (status, content type, body, whether the connection stays open), the
shortcut is taken exactly for the requests it is meant for, and a client hanging up cancels the call."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import legacy_front_fakes as fakes
import live_uvicorn
import orjson
import pytest
from fakes import FakeUpstream

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import fast_post, h11_guard, legacy_http
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.legacy import LegacyHttpFront

pytestmark = pytest.mark.anyio
httptools_impl = pytest.importorskip("uvicorn.protocols.http.httptools_impl", reason="httptools (mcp-eras[fast])")
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


class Counting(fast_post.FastPost):
    def __init__(self, front: Any, path: str) -> None:
        super().__init__(front, path)
        self.served = 0
        self.writes: list[list[bytes]] = []
        self.tasks: set[Any] = set()
        """The server's set of request tasks."""
        """Per request served: each ``transport.write`` of its answer."""

    async def serve(self, cycle: Any, index: dict[str, str], watch: Any) -> None:
        self.served += 1
        self.tasks = cycle.protocol.tasks
        assert cycle.task in self.tasks  # tracked as uvicorn tracks a request's task (until the request ends)
        cycle.transport = WriteSpy(cycle.transport, [])
        self.writes.append(cycle.transport.writes)
        await super().serve(cycle, index, watch)


class WriteSpy:
    """A transport that records what is written through it."""

    def __init__(self, transport: Any, writes: list[bytes]) -> None:
        self._transport = transport
        self.writes = writes

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@contextlib.asynccontextmanager
async def serving(upstream: Any, fast: bool, legacy: bool = False) -> AsyncIterator[tuple[int, Counting | None]]:
    settings = Settings(max_body_bytes=4096)
    front = LegacyHttpFront(upstream, settings) if legacy else None
    app = build_app(settings, upstream, front)
    shortcut = Counting(app.state.front, "/mcp") if fast else None
    protocol = h11_guard.header_timeout_protocol(10, httptools_impl.HttpToolsProtocol, fast=shortcut)
    async with live_uvicorn.serving(app, protocol) as port:
        yield port, shortcut


def request(body: bytes | dict[str, Any], headers: dict[str, str] | None = None, method: str = "POST",
            target: str = "/mcp") -> bytes:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    fields = {"Host": "127.0.0.1", "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
              "MCP-Protocol-Version": MODERN, "Content-Length": str(len(raw)), **(headers or {})}
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items() if v is not None)
    return head.encode() + b"\r\n" + raw


def call(name: str, rid: int = 1, **extra_meta: Any) -> tuple[dict[str, Any], dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": {"text": f"hi {rid}"}, "_meta": {**META, **extra_meta}}}
    return body, {"Mcp-Method": "tools/call", "Mcp-Name": name}


async def answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """One response: status, headers (lower-case names, ``date`` dropped), body (chunked decoded)."""
    async with asyncio.timeout(30):
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
        headers.pop("date", None)
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                body += await reader.readexactly(size)
                await reader.readexactly(2)
            await reader.readexactly(2)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


CASES: list[tuple[str, bytes, bool]] = [  # (what, request bytes, takes the shortcut)
    ("a call", request(*call("echo")), True),
    ("a call with progress: SSE", request(*call("progress", progressToken="p")), True),
    ("a notification", request({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"_meta": META}}), True),
    ("malformed JSON", request(b'{"jsonrpc": "2.0", "id": 1,'), True),
    ("header/body disagreement", request(call("echo")[0], {"Mcp-Method": "tools/call", "Mcp-Name": "other"}), True),
    ("an answer that closes", request(*call("echo")), True),
    ("an SSE answer that closes", request(*call("progress", progressToken="p")), True),
    ("a foreign Origin", request(call("echo")[0], {**call("echo")[1], "Origin": "http://evil.example"}), False),
    ("a declared body over the cap", request(b"x" * 5000, call("echo")[1]), False),
    ("a query string", request(*call("echo"), target="/mcp?x=1"), False),
    ("a 2025 request", request({"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"MCP-Protocol-Version": "2025-11-25"}), False),
    ("a GET", request(b"", {"Content-Type": None, "Content-Length": None}, method="GET"), False),
]


async def run_cases(fast: bool) -> tuple[list[tuple[int, dict[str, str], bytes]], Counting | None]:
    out = []
    async with serving(FakeUpstream(), fast) as (port, shortcut):
        for what, raw, _ in CASES:
            if what.endswith("that closes"):
                raw = raw.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(raw)
            out.append(await answer(reader))
            if what.endswith("that closes"):
                # at once: well within the 10 s header deadline, which would close an idle connection anyway
                async with asyncio.timeout(5):
                    assert await reader.read() == b"", "the server closes the connection"
            writer.close()
    return out, shortcut


async def test_the_shortcut_answers_as_the_asgi_path() -> None:
    slow, _ = await run_cases(fast=False)
    quick, shortcut = await run_cases(fast=True)
    assert shortcut is not None and shortcut.served == sum(1 for *_, taken in CASES if taken)
    for (what, *_), a, b in zip(CASES, slow, quick, strict=True):
        assert a == b, what
    statuses = dict(zip([c[0] for c in CASES], [s for s, *_ in quick], strict=True))
    assert statuses["a call"] == 200 and statuses["a notification"] == 202 and statuses["a foreign Origin"] == 403
    assert statuses["a declared body over the cap"] == 413 and quick[1][1]["content-type"].startswith("text/event-stream")
    assert quick[5][1].get("connection") == "close"


async def test_expect_100_continue_goes_to_uvicorns_request() -> None:
    """The shortcut refuses ``Expect`` (uvicorn's request cycle answers 100 Continue); the field is found once the head is
    complete, whatever its case and trailing whitespace."""
    async with serving(FakeUpstream(), True) as (port, shortcut):
        assert shortcut is not None
        raw = request(*call("echo"))
        head, _, body = raw.partition(b"\r\n\r\n")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(head + b"\r\nEXPECT: 100-Continue \t\r\n\r\n")
        async with asyncio.timeout(30):
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 100")
        writer.write(body)
        status, _, answered = await answer(reader)
        assert status == 200 and orjson.loads(answered)["result"]["content"][0]["text"] == "hi 1"
        writer.write(request(*call("echo", 2)))  # the next request on the connection, without Expect: the shortcut's
        status, _, answered = await answer(reader)
        assert status == 200 and orjson.loads(answered)["id"] == 2 and shortcut.served == 1
        writer.close()


async def test_keep_alive_and_pipelined_requests() -> None:
    async with serving(FakeUpstream(), True) as (port, shortcut):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"".join(request(*call("echo", rid)) for rid in range(1, 4)))  # three at once
        for rid in range(1, 4):
            status, _, body = await answer(reader)
            assert status == 200 and orjson.loads(body)["id"] == rid
        for rid in range(4, 6):  # then one by one on the same connection
            writer.write(request(*call("echo", rid)))
            status, _, body = await answer(reader)
            assert status == 200 and orjson.loads(body)["result"]["content"][0]["text"] == f"hi {rid}"
        writer.close()
        assert shortcut is not None and not shortcut.tasks  # each answered request's task has left the server's set
    assert shortcut.served >= 3  # pipelined requests behind a running one take the ASGI path


async def test_hanging_up_cancels_the_call_on_the_shortcut() -> None:
    upstream = FakeUpstream()
    async with serving(upstream, True) as (port, shortcut):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request(*call("hang")))
        async with asyncio.timeout(30):
            await upstream.hanging.wait()
            writer.close()
            await upstream.cancelled.wait()
    assert shortcut is not None and shortcut.served == 1


async def test_a_2025_body_under_a_2026_header_reaches_the_2025_front() -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    results = []
    for fast in (False, True):
        async with serving(fakes.ListeningUpstream(), fast, legacy=True) as (port, shortcut):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request(init, {"Mcp-Method": "initialize"}))
            status, headers, body = await answer(reader)
            writer.close()
            results.append((status, "mcp-session-id" in headers, orjson.loads(body).get("error", {}).get("code")))
            if shortcut is not None:
                assert shortcut.served == 1  # taken, then handed to the app with its body
    assert results[0] == results[1] == (200, True, None), results


def legacy_post(body: dict[str, Any] | bytes, sid: str | None, version: str | None = "2025-11-25") -> bytes:
    return request(body, {"MCP-Protocol-Version": version, "Mcp-Session-Id": sid})


async def legacy_session(fast: bool) -> tuple[list[tuple[int, dict[str, str], bytes]], Counting | None]:
    """A 2025 session's POSTs: initialize, initialized, a JSON answer, an SSE answer, errors of the 2025 front."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    out = []
    async with serving(fakes.ListeningUpstream(), fast, legacy=True) as (port, shortcut):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(legacy_post(init, None, None))
        status, headers, body = await answer(reader)
        sid = headers.pop("mcp-session-id")
        out.append((status, headers, body))
        for frame, session in [({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid),
                               ({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "file:///a"}}, sid),
                               ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "log"}}, sid),
                               ({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                                 "params": {"name": "jumpy", "_meta": {"progressToken": "p"}}}, sid),
                               ({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "file:///a"}}, "nope"),
                               ({"jsonrpc": "2.0", "id": 5, "method": "ping"}, None)]:
            writer.write(legacy_post(frame, session))
            status, headers, body = await answer(reader)
            out.append((status, headers, body.replace(sid.encode(), b"SID")))
        writer.close()
    return out, shortcut


async def test_2025_sessions_on_the_shortcut_answer_as_on_the_asgi_path() -> None:
    slow, _ = await legacy_session(fast=False)
    quick, shortcut = await legacy_session(fast=True)
    assert shortcut is not None and shortcut.served == len(quick)
    assert [s for s, *_ in quick] == [200, 202, 200, 200, 200, 404, 400]
    assert quick[3][1]["content-type"] == "application/json"  # a tools/call answered at once, nothing before it
    assert quick[4][1]["content-type"].startswith("text/event-stream")  # progress before the answer: SSE
    for n, (a, b) in enumerate(zip(slow, quick, strict=True)):
        assert a == b, n


async def test_the_guard_verdict_is_remembered_per_header_triple_and_bounded() -> None:
    """``accepts`` screens each distinct (Host, Origin, Content-Type) once: a refused triple stays refused (the
    app answers it, as always), an allowed one keeps taking the shortcut, and the memory is bounded."""
    refused = [({"Origin": "http://evil.example"}, 403), ({"Host": "evil.example"}, 421),
               ({"Content-Type": "text/plain"}, 415)]
    async with serving(FakeUpstream(), True) as (port, shortcut):
        assert shortcut is not None
        for headers, status in [*refused, *refused]:  # twice each: the second answer comes from the memory
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request(call("echo")[0], {**call("echo")[1], **headers}))
            assert (await answer(reader))[0] == status, headers
            writer.close()
        assert shortcut.served == 0
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for rid in (1, 2):
            writer.write(request(*call("echo", rid)))
            assert (await answer(reader))[0] == 200
        writer.close()
        assert shortcut.served == 2
        for n in range(fast_post.SCREENED_MAX + 10):  # many distinct allowed Host values: memory stays bounded
            head = [(b"host", b"127.0.0.1:%d" % n), (b"content-type", b"application/json"), (b"content-length", b"2"),
                    (b"mcp-protocol-version", MODERN.encode())]
            assert shortcut.accepts(b"POST", b"/mcp", head) is not None
        assert len(shortcut._screened) <= fast_post.SCREENED_MAX  # noqa: SLF001


async def sse_events(reader: asyncio.StreamReader, until: str) -> list[str]:
    """A chunked SSE body's events (as text) up to and including the first that contains ``until``."""
    events, buffer = [], b""
    async with asyncio.timeout(30):
        while not events or until not in events[-1]:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            assert size, "the stream ended early"
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            *done, buffer = buffer.split(b"\n\n")
            events += [e.decode() for e in done]
    return events


async def open_2025_session(port: int, caps: dict[str, Any]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}}
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(legacy_post(init, None, None))
    _, headers, _ = await answer(reader)
    return reader, writer, headers["mcp-session-id"]


async def test_a_2025_call_answered_at_once_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(legacy_http, "PRIME_HOLD", 30.0)  # longer than the test could take: the count is exact
    async with serving(fakes.ListeningUpstream(), True, legacy=True) as (port, shortcut):
        reader, writer, sid = await open_2025_session(port, {})
        call_echo = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}
        writer.write(legacy_post(call_echo, sid))
        status, headers, body = await answer(reader)
        writer.close()
    assert shortcut is not None
    assert status == 200 and headers["content-type"] == "application/json"  # nothing before the answer: no stream
    assert orjson.loads(body)["result"]["content"] == [{"type": "text", "text": "x"}]
    [write] = shortcut.writes[-1]  # head and answer together
    assert write.startswith(b"HTTP/1.1 200 OK\r\n") and write.endswith(body)


async def test_a_2025_call_that_asks_the_client_streams_on_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(legacy_http, "PRIME_HOLD", 30.0)  # the question ends the hold, whatever the machine's speed
    async with serving(fakes.ListeningUpstream(), True, legacy=True) as (port, shortcut):
        reader, writer, sid = await open_2025_session(port, {"elicitation": {}})
        ask = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
        writer.write(legacy_post(ask, sid))
        async with asyncio.timeout(30):
            head = await reader.readuntil(b"\r\n\r\n")
        assert b"text/event-stream" in head and b"transfer-encoding: chunked" in head
        events = await sse_events(reader, "elicitation/create")  # the question comes while the call waits
        assert events[0].startswith("retry: ")
        question = orjson.loads(events[-1].split("data: ", 1)[1])
        other_reader, other_writer = await asyncio.open_connection("127.0.0.1", port)
        reply = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
        other_writer.write(legacy_post(reply, sid))
        assert (await answer(other_reader))[0] == 202
        final = await sse_events(reader, '"result"')
        assert orjson.loads(final[-1].split("data: ", 1)[1])["result"]["content"] == [{"type": "text", "text": "Ada"}]
        async with asyncio.timeout(30):
            assert await reader.readexactly(5) == b"0\r\n\r\n"  # then the stream ends
        writer.close()
        other_writer.close()
    assert shortcut is not None and len(shortcut.writes[1]) == 2  # question (with head and priming), then answer + end


async def test_a_slow_2025_call_is_primed_before_it_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(legacy_http, "PRIME_HOLD", 0.0)
    upstream = fakes.ListeningUpstream()
    async with serving(upstream, True, legacy=True) as (port, shortcut):
        reader, writer, sid = await open_2025_session(port, {})
        slow = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}
        writer.write(legacy_post(slow, sid))
        async with asyncio.timeout(30):
            await reader.readuntil(b"\r\n\r\n")
        [priming] = await sse_events(reader, "retry: ")  # while the upstream still holds the call
        assert priming.endswith("\ndata: ")
        upstream.release.set()
        final = await sse_events(reader, '"result"')
        assert orjson.loads(final[-1].split("data: ", 1)[1])["result"]["content"] == [{"type": "text", "text": "slow"}]
        writer.close()
    assert shortcut is not None


@pytest.mark.parametrize("kind", ["a bug", "a background task"])
async def test_answers_that_need_asgi_are_the_same_on_the_shortcut(kind: str) -> None:
    """The shortcut's request gets uvicorn's ASGI cycle only when its answer needs one (``FastCycle.asgi``): a 500
    for a bug in the endpoint, a response with a background task. Both answer as the ASGI path does."""
    from starlette.background import BackgroundTask
    from starlette.responses import Response

    results = []
    for fast in (False, True):
        settings = Settings(max_body_bytes=4096)
        app = build_app(settings, FakeUpstream())
        ran: list[str] = []

        async def answer_post(*_: Any, ran: list[str] = ran) -> Response:
            if kind == "a bug":
                raise RuntimeError("boom")
            return Response(b"done", media_type="text/plain", background=BackgroundTask(ran.append, "ran"))

        app.state.front.answer_post = answer_post
        shortcut = Counting(app.state.front, "/mcp") if fast else None
        protocol = h11_guard.header_timeout_protocol(10, httptools_impl.HttpToolsProtocol, fast=shortcut)
        async with live_uvicorn.serving(app, protocol) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request(*call("echo")))
            results.append((*await answer(reader), ran))
            if kind == "a bug":
                async with asyncio.timeout(30):
                    assert await reader.read() == b"", "a 500 closes the connection"
            writer.close()
        if shortcut is not None:
            assert shortcut.served == 1
    if kind == "a bug":  # Starlette's error page on the ASGI path, uvicorn's on the shortcut: the same status and body
        results = [(status, {}, body, ran) for status, _, body, ran in results]
    assert results[0] == results[1], results
    status, _, body, ran = results[1]
    assert (status, body, ran) == ((500, b"Internal Server Error", []) if kind == "a bug" else (200, b"done", ["ran"]))


def test_the_head_index_keeps_the_first_of_a_repeated_field_and_empty_values() -> None:
    """``FastPost.accepts`` indexes the head as Starlette's Headers reads it (first value wins), Latin-1 decoded."""
    shortcut = fast_post.FastPost(build_app(Settings(max_body_bytes=4096), FakeUpstream()).state.front, "/mcp")
    head = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"), (b"content-length", b"2"),
            (b"mcp-protocol-version", MODERN.encode()), (b"x-empty", b""), (b"mcp-name", b"first"),
            (b"mcp-name", b"second"), (b"x-latin", "caf\u00e9".encode("latin-1"))]
    index = shortcut.accepts(b"POST", b"/mcp", head)
    assert index == {"host": "127.0.0.1", "content-type": "application/json", "content-length": "2",
                     "mcp-protocol-version": MODERN, "x-empty": "", "mcp-name": "first", "x-latin": "caf\u00e9"}
    assert shortcut.accepts(b"GET", b"/mcp", head) is None and shortcut.accepts(b"POST", b"/other", head) is None


def test_a_json_answer_is_written_as_the_field_by_field_path_writes_it() -> None:
    """``write_whole`` keeps a JSON answer's head per status and per default header list: uvicorn makes a new list
    when its Date changes, so the next answer carries the new date; a default field that closes the connection
    is left to the field-by-field path."""
    from starlette.responses import Response

    from mcp_eras.bridge.front.json_body import JSONBody

    class Cycle:
        disconnected = False
        message_event = fast_post.NO_EVENT

        def __init__(self, defaults: list[tuple[bytes, bytes]], keep_alive: bool = True) -> None:
            self.default_headers, self.keep_alive = defaults, keep_alive
            self.written: list[bytes] = []
            self.transport = self
            self.completed = 0
            self.closed = False

        def write(self, data: bytes) -> None:
            self.written.append(data)

        def close(self) -> None:
            self.closed = True

        def on_response(self) -> None:
            self.completed += 1

    body = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    for date in (b"Wed, 02 Dec 2026 10:00:00 GMT", b"Wed, 02 Dec 2026 10:00:01 GMT"):
        defaults = [(b"date", date), (b"server", b"t")]
        for status in (200, 202, 404):
            quick, slow = Cycle(defaults), Cycle(defaults)
            fast_post.write_whole(quick, JSONBody(body, status))
            fast_post.write_whole(slow, Response(body, status, media_type="application/json"))
            assert quick.written == slow.written and len(quick.written) == 1 and quick.completed == 1
            assert b"date: " + date in quick.written[0] and quick.written[0].endswith(b"\r\n\r\n" + body)
    closing = Cycle([(b"connection", b"close")])
    fast_post.write_whole(closing, JSONBody(body))
    assert closing.closed and closing.completed == 1 and closing.written[0].count(b"connection: close") == 1
