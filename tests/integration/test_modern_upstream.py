"""ModernHttpUpstream / ModernStdioUpstream against a real mcp 2.3.0 server on the 2026-07-28 wire.

The canonical interface (mcp_eras.bridge.core.Upstream): answers carry the caller's id, request-scoped notifications
reach ``emit`` before ``call`` returns, listen notifications carry the caller's listen id, cancelling the
awaiting task cancels upstream, and a dead stdio child fails in-flight calls and is respawned.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from direction_b_peers import MODERN_SERVER
from starlette.requests import Request
from starlette.responses import Response

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, UpstreamError
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
)
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream

import peers

pytestmark = pytest.mark.anyio

META = {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"elicitation": {}},
        META_CLIENT_INFO: {"name": "test", "version": "0"}}
CTX = CallContext()


def req(id: Any, method: str, **params: Any) -> Message:
    meta = {**META, **params.pop("_meta", {})}
    return jsonrpc.request(id, method, {**params, "_meta": meta})


@contextlib.asynccontextmanager
async def upstream(kind: str, tmp_path: Path) -> AsyncIterator[Upstream]:
    server = tmp_path / "server.py"
    server.write_text(MODERN_SERVER)
    settings = Settings()
    if kind == "stdio":
        up: Upstream = ModernStdioUpstream([peers.MODERN_PYTHON, str(server), "stdio"], settings)
        try:
            yield up
        finally:
            await up.aclose()
        return
    port = peers.free_port()
    with peers.running([peers.MODERN_PYTHON, str(server), "http", str(port)], port):
        up = ModernHttpUpstream(f"http://127.0.0.1:{port}/mcp", settings)
        try:
            yield up
        finally:
            await up.aclose()


@contextlib.asynccontextmanager
async def scripted_server(endpoint: Any) -> AsyncIterator[str]:
    """A tiny 2026 HTTP server whose POST handler is ``endpoint`` (for asserting exactly what the upstream sends)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Route

    port = peers.free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])]), host="127.0.0.1",
                                           port=port, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve())
    try:
        await anyio.to_thread.run_sync(peers.wait_port, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await task


@pytest.mark.parametrize("kind", ["http", "stdio"])
async def test_calls_notifications_and_ids(kind: str, tmp_path: Path) -> None:
    async with upstream(kind, tmp_path) as up:
        await up.start()
        discover = await up.discover(CTX)
        assert discover["supportedVersions"] == ["2026-07-28"]
        assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "direction-b-modern"
        # concurrent calls with colliding caller ids of different types: each answer keeps its caller's id
        calls = [req(i if i % 2 else str(i), "tools/call", name="add", arguments={"a": i, "b": 1}) for i in range(8)]
        answers = await asyncio.gather(*(up.call(c, CTX, jsonrpc_discard) for c in calls))
        for c, a in zip(calls, answers, strict=True):
            assert a["id"] == c["id"]
            assert a["result"]["content"][0]["text"] == str(c["params"]["arguments"]["a"] + 1)
        # progress keeps the caller's token; logs arrive when logLevel is set; all before the answer
        seen: list[Message] = []

        async def emit(msg: Message) -> None:
            seen.append(msg)

        call = req("p", "tools/call", name="slow_count", arguments={"n": 2},
                   _meta={"progressToken": "tok", META_LOG_LEVEL: "debug"})
        answer = await up.call(call, CTX, emit)
        assert answer["result"]["content"][0]["text"] == "counted 2"
        assert [(m["params"]["progressToken"], m["params"]["progress"]) for m in seen] == [("tok", 1), ("tok", 2)]
        seen.clear()
        answer = await up.call(req("l", "tools/call", name="log_levels", arguments={}, _meta={META_LOG_LEVEL: "warning"}),
                               CTX, emit)
        assert [m["params"]["level"] for m in seen] == ["warning", "error"]
        # errors pass through as JSON-RPC errors (HTTP 404/400 bodies included)
        missing = await up.call(req(9, "resources/read", uri="memo://missing"), CTX, jsonrpc_discard)
        assert missing["id"] == 9 and missing["error"]["code"] == -32602
        unknown = await up.call(req(10, "nope/x"), CTX, jsonrpc_discard)
        assert unknown["id"] == 10 and unknown["error"]["code"] == -32601


async def jsonrpc_discard(_msg: Message) -> None:
    return None


@pytest.mark.parametrize("kind", ["http", "stdio"])
async def test_listen_and_cancel(kind: str, tmp_path: Path) -> None:
    async with upstream(kind, tmp_path) as up:
        await up.start()
        notes: list[Message] = []
        acked = asyncio.Event()
        changed = asyncio.Event()

        async def emit(msg: Message) -> None:
            notes.append(msg)
            if msg["method"] == "notifications/subscriptions/acknowledged":
                acked.set()
            else:
                changed.set()

        listen = req("my-listen", "subscriptions/listen", notifications={"toolsListChanged": True})
        task = asyncio.create_task(up.call(listen, CTX, emit))
        await acked.wait()
        await up.call(req(1, "tools/call", name="add_tool", arguments={"name": "x1"}), CTX, jsonrpc_discard)
        await changed.wait()
        assert notes[0]["params"]["_meta"][META_SUBSCRIPTION_ID] == "my-listen"  # caller's id, not the wire id
        assert notes[1]["method"] == "notifications/tools/list_changed"
        assert notes[1]["params"]["_meta"][META_SUBSCRIPTION_ID] == "my-listen"
        task.cancel()  # the client's cancel: close the stream / notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await task
        # the upstream is still usable afterwards
        ok = await up.call(req(2, "tools/call", name="add", arguments={"a": 1, "b": 1}), CTX, jsonrpc_discard)
        assert ok["result"]["content"][0]["text"] == "2"


async def test_stdio_child_death_fails_inflight_and_respawns(tmp_path: Path) -> None:
    async with upstream("stdio", tmp_path) as up:
        assert isinstance(up, ModernStdioUpstream)
        await up.start()
        pid = up.process.pid
        with pytest.raises(UpstreamError):
            await up.call(req(1, "tools/call", name="crash", arguments={}), CTX, jsonrpc_discard)
        ok = await up.call(req(2, "tools/call", name="add", arguments={"a": 2, "b": 2}), CTX, jsonrpc_discard)
        assert ok["result"]["content"][0]["text"] == "4"
        assert up.process.pid != pid and up.process.restarts == 1


async def test_http_unreachable_is_an_upstream_error() -> None:
    up = ModernHttpUpstream(f"http://127.0.0.1:{peers.free_port()}/mcp", Settings(connect_timeout=5))
    try:
        with pytest.raises(UpstreamError):
            await up.call(req(1, "tools/list"), CTX, jsonrpc_discard)
    finally:
        await up.aclose()


async def test_http_request_headers() -> None:
    """The headers a 2026 server sees: version, method, name (base64 when unsafe), mirrored params, auth, trace."""
    seen: list[tuple[dict[str, str], Message]] = []
    tool = {"name": "regional", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "count": {"type": "integer", "x-mcp-header": "Count"}}}}
    bad_tool = {"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}}

    async def endpoint(request: Request) -> Response:
        body = jsonrpc.loads(await request.body())
        seen.append((dict(request.headers), body))
        if body["method"] == "tools/list":
            result: Message = {"resultType": "complete", "tools": [tool, bad_tool], "ttlMs": 0, "cacheScope": "private"}
        else:
            result = {"resultType": "complete", "content": []}
        return Response(jsonrpc.dumps(jsonrpc.result_response(body["id"], result)), media_type="application/json")

    async with scripted_server(endpoint) as url:
        up = ModernHttpUpstream(url, Settings(), headers={"X-Static": "yes"})
        try:
            ctx = CallContext(authorization="Bearer t0k", trace={"traceparent": "00-abc-def-01"})
            listed = await up.call(req(1, "tools/list"), ctx, jsonrpc_discard)
            assert [t["name"] for t in listed["result"]["tools"]] == ["regional"]  # invalid annotation: dropped (MUST)
            await up.call(req(2, "tools/call", name="regional", arguments={"region": "Zürich", "count": 7}), ctx,
                          jsonrpc_discard)
            await up.call(req(3, "resources/read", uri="file:///a b/ü"), ctx, jsonrpc_discard)
        finally:
            await up.aclose()
    headers = {body["method"]: h for h, body in seen}
    for h in headers.values():
        assert h["mcp-protocol-version"] == "2026-07-28"
        assert h["accept"] == "application/json, text/event-stream"
        assert h["authorization"] == "Bearer t0k" and h["traceparent"] == "00-abc-def-01" and h["x-static"] == "yes"
        assert "mcp-session-id" not in h
    call = headers["tools/call"]
    assert call["mcp-method"] == "tools/call" and call["mcp-name"] == "regional"
    assert call["mcp-param-region"] == "=?base64?WsO8cmljaA==?=" and call["mcp-param-count"] == "7"
    read = headers["resources/read"]
    assert read["mcp-name"] == "=?base64?ZmlsZTovLy9hIGIvw7w=?="
    assert "mcp-name" not in headers["tools/list"]
    # the caller's own tools/list filled the schema cache: no extra listing before the call
    assert [body["method"] for _h, body in seen] == ["tools/list", "tools/call", "resources/read"]


async def test_http_header_mismatch_refreshes_schemas_and_retries_once() -> None:
    """A server that starts annotating an argument answers -32020 to a call without the header: the upstream
    re-lists the tools, rebuilds the headers from the body and retries once."""
    calls: list[dict[str, str]] = []
    plain = {"name": "regional", "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}}
    annotated = {"name": "regional", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}
    listings = [plain, annotated]

    async def endpoint(request: Request) -> Response:
        body = jsonrpc.loads(await request.body())
        if body["method"] == "tools/list":
            tool = listings.pop(0) if len(listings) > 1 else listings[0]
            result: Message = {"resultType": "complete", "tools": [tool], "ttlMs": 0, "cacheScope": "private"}
            return Response(jsonrpc.dumps(jsonrpc.result_response(body["id"], result)), media_type="application/json")
        calls.append(dict(request.headers))
        if request.headers.get("mcp-param-region") != body["params"]["arguments"]["region"]:
            err = jsonrpc.error_response(body["id"], -32020, "Header mismatch: Mcp-Param-Region")
            return Response(jsonrpc.dumps(err), status_code=400, media_type="application/json")
        ok = jsonrpc.result_response(body["id"], {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})
        return Response(jsonrpc.dumps(ok), media_type="application/json")

    async with scripted_server(endpoint) as url:
        up = ModernHttpUpstream(url, Settings())
        try:
            await up.call(req(1, "tools/list"), CTX, jsonrpc_discard)  # the stale listing (no annotation)
            answer = await up.call(req(2, "tools/call", name="regional", arguments={"region": "eu"}), CTX, jsonrpc_discard)
        finally:
            await up.aclose()
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}}
    assert len(calls) == 2 and "mcp-param-region" not in calls[0] and calls[1]["mcp-param-region"] == "eu"


async def test_discover_cached_for_its_ttl() -> None:
    """server/discover is asked again only when its ttlMs ran out; private results are cached per principal."""
    discovers: list[str | None] = []
    ttl = {"value": 600_000, "scope": "private"}

    async def endpoint(request: Request) -> Response:
        body = jsonrpc.loads(await request.body())
        discovers.append(request.headers.get("authorization"))
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
                  "ttlMs": ttl["value"], "cacheScope": ttl["scope"]}
        return Response(jsonrpc.dumps(jsonrpc.result_response(body["id"], result)), media_type="application/json")

    alice = CallContext(principal="a", authorization="Bearer a")
    bob = CallContext(principal="b", authorization="Bearer b")
    async with scripted_server(endpoint) as url:
        up = ModernHttpUpstream(url, Settings())
        try:
            for ctx in (alice, alice, bob, bob):
                assert (await up.discover(ctx))["supportedVersions"] == ["2026-07-28"]
            assert discovers == ["Bearer a", "Bearer b"]
            ttl["value"] = 0  # a zero ttl is never cached
            up2 = ModernHttpUpstream(url, Settings())
            try:
                await up2.discover(alice)
                await up2.discover(alice)
            finally:
                await up2.aclose()
            assert discovers == ["Bearer a", "Bearer b", "Bearer a", "Bearer a"]
        finally:
            await up.aclose()
