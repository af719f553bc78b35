"""The MCP endpoint's hot path without the ASGI layers: a POST to it served straight from
uvicorn's httptools protocol (``mcp-eras[fast]``), on the same ``HttpFront`` logic.

Per request, ASGI costs a request cycle's task wrapper, a scope walk through the app's middleware, a
``Request``/``Response`` pair, and two validated ``send`` messages. For the common request (a 2026 POST
with a declared body, nothing the transport guard refuses; 2025 sessions' POSTs too when the 2025 front is
served) the protocol instead:

* decides at the end of the request head (``FastPost.accepts``: the same ``middleware.screen`` checks, on
  the header list uvicorn already built, plus the ones that make the shortcut safe: a declared
  ``Content-Length`` within ``max_body_bytes``, no ``Transfer-Encoding``, no ``Expect``, no query, no
  pipelined request ahead of it);
* lets uvicorn buffer the body as usual (it is at most the declared length), then runs
  ``HttpFront.answer_post`` (the endpoint's own choice between the 2025 and 2026 fronts) in one task and
  writes a complete answer as one ``transport.write``; an SSE answer goes through the cycle's own ASGI
  ``send``.

Nothing here decides protocol meaning: every answer is the one the ASGI path gives (the in-process
tests run both paths on the same requests). ``h11_guard.header_timeout_protocol(fast=...)`` wires it in;
without httptools, or with ``MCP_BRIDGE_FAST=0``, every request takes the ASGI path; so it does, after one
warning, on a uvicorn or Starlette outside the versions it was tested on or without a private attribute it
uses (``unsupported``, checked when the protocol class is made).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from http import HTTPStatus
from itertools import chain
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response, StreamingResponse

from mcp_eras.bridge import _perf
from mcp_eras.bridge.front import middleware as guard
from mcp_eras.bridge.front.json_body import JSONBody
from mcp_eras.bridge.front.sse_response import SSEResponse
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import FrameError

log = logging.getLogger("mcp_bridge.http")

_REFUSED_NAMES = frozenset({"transfer-encoding", "expect", "upgrade"})
SCREENED_MAX = 256
"""Distinct (Host, Origin, Content-Type) verdicts remembered per endpoint (forgotten all at once past this)."""

UVICORN_TESTED = ((0, 55), (0, 56))
STARLETTE_TESTED = ((1, 10), (1, 11))
"""The versions the shortcut was tested on (pyproject.toml pins the same ranges)."""

PROTOCOL_NEEDS = ("_start_asgi_task", "on_message_begin", "on_headers_complete", "on_body", "on_message_complete",
                  "url", "headers", "expect_100_continue", "parser", "limit_concurrency", "tasks", "server_state", "flow",
                  "pipeline", "asgi_version", "server", "client", "scheme", "root_path", "app_state", "logger",
                  "access_logger", "access_log")
"""What the shortcut uses of uvicorn's httptools protocol (set by its ``__init__``, ``connection_made`` or
``on_message_begin``, or defined by the class)."""

CYCLE_NEEDS = ("body", "more_body", "response_started", "response_complete", "disconnected", "on_response",
               "send_500_response", "receive", "send")
"""What it uses of uvicorn's ``RequestResponseCycle`` (a ``FastCycle`` becomes one when an answer needs ASGI)."""


def unsupported(parent: type[Any]) -> tuple[str, str] | None:
    """(distribution, reason) when the shortcut cannot run on uvicorn's httptools protocol ``parent``; None if it can."""
    for dist, (lowest, below) in (("uvicorn", UVICORN_TESTED), ("starlette", STARLETTE_TESTED)):
        if (why := _perf.untested(dist, lowest, below)) is not None:
            return dist, why
    import uvicorn.server
    from uvicorn.protocols.http.flow_control import FlowControl
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    lacking = [*_perf.missing(parent, PROTOCOL_NEEDS, set_by=("__init__", "connection_made", "on_message_begin")),
               *_perf.missing(RequestResponseCycle, CYCLE_NEEDS),
               *_perf.missing(uvicorn.server.ServerState, ("total_requests", "default_headers")),
               *_perf.missing(FlowControl, ("write_paused", "drain"))]
    taken = set(inspect.signature(RequestResponseCycle).parameters)
    lacking += [f"RequestResponseCycle({name}=)" for name in _CYCLE_ARGS if name not in taken]
    # the request's header and body caches, filled by ``_request``
    lacking += [f"{owner}.{name}" for owner, name, code in (
        ("HTTPConnection.headers", "_headers", HTTPConnection.headers.fget.__code__),
        ("Request.body", "_body", Request.body.__code__)) if name not in code.co_names]
    return ("uvicorn" if not lacking[0].startswith(("HTTPConnection", "Request.")) else "starlette",
            f"it lacks {', '.join(lacking)}") if lacking else None


_CYCLE_ARGS = ("scope", "transport", "flow", "logger", "access_logger", "access_log", "default_headers", "message_event",
               "expect_100_continue", "keep_alive", "on_response")


class FastPost:
    """The shortcut for one app: its ``HttpFront`` (``front``), MCP path and guard policy."""

    unsupported = staticmethod(unsupported)

    def __init__(self, front: Any, path: str) -> None:
        self.cycle_type = FastCycle
        """The request object of a request the shortcut takes (``h11_guard.Shortcut``)."""
        self.front = front
        self.path = path
        self.raw_path = path.encode("ascii")
        self.policy = guard.GuardPolicy.from_settings(front.settings, lambda p: p == path)
        self._screened: dict[tuple[str | None, str | None, str | None], bool] = {}
        """(Host, Origin, Content-Type) -> whether the guard lets such a POST through (``accepts``)."""

    def accepts(self, method: bytes, url: bytes, headers: list[tuple[bytes, bytes]]) -> dict[str, str] | None:
        """The request head's header index when this request takes the shortcut, else None."""
        if method != b"POST" or url != self.raw_path:
            return None
        # The first value of a repeated field wins, as in Starlette's Headers. One decode for the whole head: llhttp
        # refuses NUL in field names and values, so it separates them.
        fields = b"\0".join(chain.from_iterable(reversed(headers))).decode("latin-1").split("\0")
        index = dict(zip(fields[0::2], fields[1::2], strict=False))
        if not _REFUSED_NAMES.isdisjoint(index):
            return None
        if ("mcp-session-id" in index or index.get("mcp-protocol-version") not in eras.MODERN_VERSIONS) \
                and not self.front.legacy_ok:
            return None  # 2025 requests without a 2025 front: the full front answers them
        declared = index.get("content-length", "")
        if not declared.isdigit() or int(declared) > self.policy.max_body_bytes:
            return None
        # The guard's verdict on a POST to this path with a body within the cap depends on these three fields
        # alone; clients repeat them on every request, so each distinct triple is screened once.
        fields = (index.get("host"), index.get("origin"), index.get("content-type"))
        passed = self._screened.get(fields)
        if passed is None:
            passed = guard.screen("POST", self.path, index, self.policy) is None
            if len(self._screened) >= SCREENED_MAX:
                self._screened.clear()
            self._screened[fields] = passed
        return index if passed else None  # a refusal is answered by the app, as always

    async def serve(self, cycle: FastCycle, index: dict[str, str], watch: Any) -> None:
        """Answer the request whose body ``cycle`` holds (``index``: its headers), as the endpoint would."""
        try:
            try:
                msg = jsonrpc.parse_frame(bytes(cycle.body))
            except FrameError as exc:
                response: Response = self.front.error_response(exc)
            else:
                response = await self.front.answer_post(index, msg, watch, lambda: _request(cycle.asgi(), index))
            if type(response) is JSONBody:  # the usual answer (never with a background task)
                write_whole(cycle, response)
            elif isinstance(response, SSEResponse) and response.background is None:
                await write_stream(cycle, response, watch)
            elif isinstance(response, StreamingResponse) or response.background is not None:
                asgi = cycle.asgi()
                await response(asgi.scope, asgi.receive, asgi.send)
            else:
                write_whole(cycle, response)
        except BaseException as exc:
            # As uvicorn's run_asgi: log, then a 500 when nothing was sent yet, else close the connection.
            if not isinstance(exc, Exception):
                raise
            log.error("Exception in the MCP endpoint", exc_info=exc)
            if not cycle.response_started:
                await cycle.asgi().send_500_response()
            else:
                cycle.transport.close()
        finally:
            cycle.finish()


class _NoEvent:
    """The request cycle's ``message_event`` where nothing waits on it (no ASGI ``receive``)."""

    @staticmethod
    def set() -> None:
        return None


NO_EVENT = _NoEvent()


class FastCycle:
    """A request the shortcut serves, as uvicorn's protocol (``connection_lost``, ``shutdown``, the pipelining check)
    and ``write_whole``/``write_stream`` see a request cycle; the ASGI scope, ``receive``/``send`` and event are made
    only for an answer that needs them (``asgi``: a streaming response, a 500, a 2025 front without header access)."""

    __slots__ = ("protocol", "transport", "flow", "default_headers", "keep_alive", "on_response", "body", "more_body",
                 "response_started", "response_complete", "disconnected", "method", "url", "headers", "index", "http_version",
                 "task", "_asgi")
    message_event = NO_EVENT

    def __init__(self, protocol: Any, method: bytes, index: dict[str, str], keep_alive: bool) -> None:
        self.protocol = protocol
        self.transport = protocol.transport
        self.flow = protocol.flow
        self.default_headers = protocol.server_state.default_headers
        self.keep_alive = keep_alive
        self.on_response = protocol.on_response_complete
        self.body = bytearray()
        self.more_body = True
        self.response_started = self.response_complete = self.disconnected = False
        self.method = method
        self.url = protocol.url
        self.headers = protocol.headers
        self.index = index
        """The head's fields by name (``FastPost.accepts``)."""
        self.http_version = protocol.parser.get_http_version()
        self.task: asyncio.Task[None] | None = None
        """The task serving it (in the server's task set until ``finish``)."""
        self._asgi: Any = None

    def asgi(self) -> Any:
        """uvicorn's request cycle for this request (made once, then the protocol's current cycle): body read,
        connection state carried over."""
        if self._asgi is None:
            from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

            p = self.protocol
            path = self.url.decode("ascii")  # the shortcut takes only its exact path: no query, no escapes
            scope = {"type": "http", "asgi": {"version": p.asgi_version, "spec_version": "2.3"},
                     "http_version": self.http_version, "server": p.server, "client": p.client, "scheme": p.scheme,
                     "root_path": p.root_path, "headers": self.headers, "state": p.app_state.copy(),
                     "method": self.method.decode("ascii"), "path": p.root_path + path,
                     "raw_path": p.root_path.encode("ascii") + self.url, "query_string": b""}
            real = RequestResponseCycle(scope=scope, transport=self.transport, flow=self.flow, logger=p.logger,  # type: ignore[arg-type]
                                        access_logger=p.access_logger, access_log=p.access_log,
                                        default_headers=self.default_headers, message_event=asyncio.Event(),
                                        expect_100_continue=False, keep_alive=self.keep_alive, on_response=self.on_response)
            real.body, real.more_body = self.body, self.more_body
            real.response_started, real.response_complete = self.response_started, self.response_complete
            real.disconnected = self.disconnected
            if p.cycle is self:
                p.cycle = real
            self._asgi = real
        return self._asgi

    def finish(self) -> None:
        """The request is over: no later callback reports its response complete (as uvicorn's ``run_asgi`` ends), and
        its task leaves the server's task set."""
        self.on_response = _nothing
        if self._asgi is not None:
            self._asgi.on_response = _nothing
        if self.task is not None:
            self.protocol.tasks.discard(self.task)


def _request(cycle: Any, index: dict[str, str]) -> Request:
    """The request as the 2025 front takes it: headers indexed once, body already read."""
    request = Request(cycle.scope, cycle.receive)
    request._headers = guard.IndexedHeaders(cycle.scope, index)  # noqa: SLF001 - Starlette's own cache slots
    request._body = bytes(cycle.body)  # noqa: SLF001
    return request


def write_whole(cycle: Any, response: Response) -> None:
    """A complete response as one write, with what uvicorn's ``send`` adds (default headers, keep-alive)."""
    if cycle.disconnected:
        return
    body = response.body
    if type(response) is JSONBody and cycle.keep_alive:
        head = _json_head(cycle.default_headers, response.status_code)
        if head is not None:
            cycle.response_started = True
            cycle.transport.write(b"%s%d%s%s" % (head, len(body), _JSON_TAIL, body))
            cycle.response_complete = True
            cycle.on_response()
            return
    content = [STATUS_LINE.get(response.status_code) or b"HTTP/1.1 %d \r\n" % response.status_code]
    for name, value in (*cycle.default_headers, *response.raw_headers):
        if name == b"connection" and b"close" in value.lower():
            cycle.keep_alive = False  # the answer closes the connection (written once, below)
            continue
        content += (name, b": ", value, b"\r\n")
    if not cycle.keep_alive:
        content.append(b"connection: close\r\n")
    content += (b"\r\n", body)
    cycle.response_started = True
    cycle.transport.write(b"".join(content))
    cycle.response_complete = True
    cycle.message_event.set()
    if not cycle.keep_alive:
        cycle.transport.close()
    cycle.on_response()


async def write_stream(cycle: Any, response: SSEResponse, watch: Any) -> None:
    """An SSE answer straight to the transport, chunked as uvicorn's ``send`` frames it: the head goes out with
    the first chunk (both fronts' bodies yield theirs at once), each later chunk in one write, and a chunk the
    body marks ``final`` together with the stream's end (a 2025 call's answer: two writes, not four ASGI sends).
    A lost client ends it as ``SSEResponse`` ends the ASGI path's (``watch``)."""
    await response.watched(watch, _stream_chunks(cycle, response))


async def _stream_chunks(cycle: Any, response: SSEResponse) -> None:
    transport = cycle.transport
    head = [STATUS_LINE.get(response.status_code) or b"HTTP/1.1 %d \r\n" % response.status_code]
    closes = False
    for name, value in (*cycle.default_headers, *response.raw_headers):
        if name == b"connection" and b"close" in value.lower():
            cycle.keep_alive, closes = False, True
        head += (name, b": ", value, b"\r\n")
    if not cycle.keep_alive and not closes:
        head.append(b"connection: close\r\n")
    head.append(b"transfer-encoding: chunked\r\n\r\n")
    pending = b"".join(head)
    async for chunk in response.body_iterator:
        if cycle.disconnected:
            return
        if cycle.flow.write_paused:
            await cycle.flow.drain()
        if not chunk:
            continue
        cycle.response_started = True
        if response.final:
            transport.write(b"%s%x\r\n%s\r\n0\r\n\r\n" % (pending, len(chunk), chunk))
            _complete(cycle)
            return
        transport.write(b"%s%x\r\n%s\r\n" % (pending, len(chunk), chunk))
        pending = b""
    if not cycle.disconnected:
        cycle.response_started = True
        transport.write(pending + b"0\r\n\r\n")
        _complete(cycle)


def _complete(cycle: Any) -> None:
    cycle.response_complete = True
    cycle.message_event.set()
    if not cycle.keep_alive:
        cycle.transport.close()
    cycle.on_response()


_JSON_TAIL = b"\r\ncontent-type: application/json\r\n\r\n"
_json_heads: dict[int, tuple[list[tuple[bytes, bytes]], bytes | None]] = {}
"""Per status: the server's default header list (uvicorn makes a new one when its Date changes) and the head of a
``JSONBody`` answer up to its length, as ``write_whole`` writes it field by field; None when a default field closes
the connection (then the field-by-field path decides)."""


def _json_head(defaults: list[tuple[bytes, bytes]], status: int) -> bytes | None:
    cached = _json_heads.get(status)
    if cached is not None and cached[0] is defaults:
        return cached[1]
    head: bytes | None = None
    if not any(name == b"connection" for name, _v in defaults):
        line = STATUS_LINE.get(status) or b"HTTP/1.1 %d \r\n" % status
        head = line + b"".join(b"%s: %s\r\n" % field for field in defaults) + b"content-length: "
    _json_heads[status] = (defaults, head)
    return head


def _phrase(code: int) -> bytes:
    try:
        return HTTPStatus(code).phrase.encode()
    except ValueError:
        return b""


STATUS_LINE = {code: b"HTTP/1.1 %d %s\r\n" % (code, _phrase(code)) for code in range(100, 600)}
"""Status lines as uvicorn writes them (the reason phrase of RFC 9110 §15, empty for a code without one)."""


def _nothing() -> None:
    return None
