"""The 2025 front's POST path as the HTTP shortcut drives it (``LegacyHttpFront.handle_post_headers``): what
decides the answer runs first, and what only serves the answer's transport stays off the upstream's way.

At one request in flight the client waits for every step between reading its POST and writing the answer, so
these tests pin the order of those steps: no ``Request`` built for the 2025 front, a call answered at once as one
JSON body, the upstream call under way before the SSE answer is assembled, the answer on its stream before the
request task's bookkeeping, and the answer's event stream closed by the body itself (not by the loop's
async-generator finalizer)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import legacy_front_fakes as fakes
import orjson
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.front import legacy_http
from mcp_eras.bridge.front.http import HttpFront
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.front.sse_response import SSEResponse

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
async def front() -> AsyncIterator[tuple[LegacyHttpFront, fakes.ListeningUpstream, dict[str, str]]]:
    upstream = fakes.ListeningUpstream()
    legacy = LegacyHttpFront(upstream, Settings(request_timeout=10.0, session_idle_timeout=600.0))
    opened = await legacy.handle_post_headers({"accept": "application/json, text/event-stream"}, INIT)
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25",
               "mcp-session-id": opened.headers["mcp-session-id"]}
    await legacy.handle_post_headers(headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    try:
        yield legacy, upstream, headers
    finally:
        upstream.release.set()
        await legacy.aclose()


def call(rid: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": {}}}


async def test_the_2025_front_is_answered_from_the_header_fields(front: Any) -> None:
    legacy, _upstream, headers = front
    http = HttpFront(Settings(), _upstream, legacy)

    def no_request() -> Any:
        raise AssertionError("the 2025 front reads the header fields; no Request is built for it")

    response = await http.answer_post(headers, call(1, "echo"), lambda _callback: lambda: None, no_request)
    # Answered within the hold, with nothing before the answer: one JSON body, no stream.
    assert not isinstance(response, SSEResponse) and response.media_type == "application/json"
    assert orjson.loads(response.body)["result"]["content"] == [{"type": "text", "text": "echo"}]
    assert not next(iter(legacy.sessions.values())).streams.keys() - {"g"}  # nothing kept for a replay


async def test_a_call_that_sends_something_before_its_answer_streams_it(front: Any) -> None:
    legacy, _upstream, headers = front
    jumpy = call(1, "jumpy")
    jumpy["params"]["_meta"] = {"progressToken": "t"}
    response = await legacy.handle_post_headers(headers, jumpy)
    assert isinstance(response, SSEResponse)
    [chunk] = await drain(response)  # answered at once: priming, the progress and the answer in one chunk
    assert chunk.startswith(b"retry: 1000\nid: p1.0\n") and chunk.count(b"notifications/progress") == 3
    assert b'"done"' in chunk


async def test_the_upstream_call_is_under_way_before_the_answer_is_assembled(front: Any) -> None:
    legacy, upstream, headers = front
    response = await legacy.handle_post_headers(headers, call(1, "slow"))
    # The request's task ran first: its upstream call went out while this response was being built.
    assert [r["method"] for r in upstream.requests][-1] == "tools/call"
    upstream.release.set()
    text = b"".join(await drain(response))
    assert text.startswith(b"retry: 1000\nid: p1.0\n") and b'"slow"' in text  # primed, then the answer


async def test_the_answer_reaches_its_stream_before_the_task_ends(front: Any) -> None:
    legacy, _upstream, headers = front
    session = next(iter(legacy.sessions.values())).session
    order: list[str] = []

    async def send(_note: Any) -> None:
        order.append("note")

    task = session.begin(call(1, "echo"), send, CallContext(), lambda response: order.append(f"settled {response['id']}"))
    assert task is not None
    task.add_done_callback(lambda _t: order.append("done"))
    response = await task
    assert response["result"]["content"] == [{"type": "text", "text": "echo"}]
    assert order == ["settled 1", "done"]  # the answer first; the task's end (and its bookkeeping) after it
    assert not session.tasks and session.state.inflight == []


@pytest.mark.parametrize("name", ["jumpy", "slow"])
async def test_an_answered_call_leaves_no_stream_generator_to_the_loop(front: Any, name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    legacy, upstream, headers = front
    monkeypatch.setattr(legacy_http, "PRIME_HOLD", 0.0)  # "slow": primed first, answered on a later chunk
    request = call(1, name)
    request["params"]["_meta"] = {"progressToken": "t"}  # "jumpy": progress before its answer, so SSE
    finalized: list[Any] = []
    hooks = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(firstiter=hooks.firstiter, finalizer=finalized.append)
    try:
        response = await legacy.handle_post_headers(headers, request)
        chunks = await drain(response, upstream.release.set)
    finally:
        sys.set_asyncgen_hooks(*hooks)
    assert f'"{"done" if name == "jumpy" else name}"'.encode() in chunks[-1] and len(chunks) == (1 if name == "jumpy" else 2)
    # Unclosed, the stream's batches generator would be closed by the loop's finalizer hook: a wake-up from
    # another thread's way in (call_soon_threadsafe) and a task per answered call.
    assert finalized == []


async def drain(response: Any, after_first: Callable[[], object] = lambda: None) -> list[bytes]:
    """Read the SSE body as the HTTP shortcut does: up to the chunk marked final, then close it (a JSON answer: its
    body)."""
    if not isinstance(response, SSEResponse):
        return [response.body]
    body = response.body_iterator
    chunks: list[bytes] = []
    try:
        async with asyncio.timeout(10):
            async for chunk in body:
                chunks.append(chunk)
                if response.final:
                    break
                after_first()
    finally:
        await body.aclose()
    return chunks


async def test_a_session_reuses_its_call_context_only_for_the_same_credentials_without_trace(front: Any) -> None:
    legacy, upstream, headers = front
    for rid in (1, 2):
        await drain(await legacy.handle_post_headers(headers, call(rid, "echo")))
    first, second = (ctx for request, ctx in upstream.calls[-2:])
    assert second is first and first.trace == {} and first.principal is None  # one frozen context per session
    traced = {**headers, "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    await drain(await legacy.handle_post_headers(traced, call(3, "echo")))
    assert upstream.calls[-1][1].trace == {"traceparent": traced["traceparent"]}
    await drain(await legacy.handle_post_headers(headers, call(4, "echo")))
    assert upstream.calls[-1][1] is first and upstream.calls[-1][1].trace == {}
    # Other credentials never get the session's context: their requests are refused as before.
    calls = len(upstream.calls)
    refused = await legacy.handle_post_headers({**headers, "authorization": "Bearer other"}, call(5, "echo"))
    assert refused.status_code == 404 and len(upstream.calls) == calls
