"""Direction B end to end: mcp 1.x ClientSession (2025-11-25) -> legacy front -> 2026-07-28 mcp 2.3.0 server.

Both sides over Streamable HTTP and stdio. The bridge's HTTP front runs in the test's event loop
(uvicorn serving a minimal Starlette route to ``LegacyHttpFront``); its stdio front runs as a
subprocess (``STDIO_BRIDGE``) spawned by the legacy client. Peers are real processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from direction_b_peers import LEGACY_CLIENT, MODERN_SERVER, STDIO_BRIDGE
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import Upstream
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream

import peers

pytestmark = [pytest.mark.anyio, pytest.mark.legacy_peer]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scripts(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("server.py", MODERN_SERVER), ("client.py", LEGACY_CLIENT), ("stdio_bridge.py", STDIO_BRIDGE)):
        path = tmp_path / name
        path.write_text(text)
        out[name] = path
    return out


def front_app(front: LegacyHttpFront) -> Starlette:
    """The smallest app that routes /mcp to the legacy front (parsing and size checks are the caller's job)."""

    async def endpoint(request: Request) -> Response:
        if request.method == "GET":
            return await front.handle_get(request)
        if request.method == "DELETE":
            return await front.handle_delete(request)
        body = await request.body()
        try:
            msg = jsonrpc.parse_frame(body)
        except jsonrpc.FrameError as exc:
            return Response(jsonrpc.dumps(exc.to_response()), status_code=400, media_type="application/json")
        return await front.handle_post(request, msg)

    return Starlette(routes=[Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"])])


@contextlib.asynccontextmanager
async def serve_front(upstream: Upstream, settings: Settings) -> AsyncIterator[tuple[str, LegacyHttpFront]]:
    front = LegacyHttpFront(upstream, settings)
    port = peers.free_port()
    server = uvicorn.Server(uvicorn.Config(front_app(front), host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp", front
    finally:
        await front.aclose()
        server.should_exit = True
        await task
        await upstream.aclose()


@contextlib.asynccontextmanager
async def modern_upstream(kind: str, server: Path, settings: Settings) -> AsyncIterator[tuple[Upstream, list[str]]]:
    """(upstream object for the in-process front, target argv for the stdio bridge subprocess)."""
    if kind == "stdio":
        argv = [peers.MODERN_PYTHON, str(server), "stdio"]
        yield ModernStdioUpstream(argv, settings), ["--", *argv]
        return
    port = peers.free_port()
    with peers.running([peers.MODERN_PYTHON, str(server), "http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        yield ModernHttpUpstream(url, settings), [url]


async def run_client(scripts: dict[str, Path], scenarios: str, target: list[str], marker: Path | None = None) -> dict[str, Any]:
    cmd = [peers.legacy_python(), str(scripts["client.py"]), scenarios, *target]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DIRECTION_B_MARKER": str(marker or "")}
    proc = await anyio.run_process(cmd, check=False, env=env, stderr=sys.stderr)
    assert proc.returncode == 0, proc.stdout.decode()[-2000:]
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


@contextlib.asynccontextmanager
async def bridged(front_kind: str, upstream_kind: str, scripts: dict[str, Path],
                  settings: Settings | None = None) -> AsyncIterator[list[str]]:
    """Yields the legacy client's target (URL, or ``-- cmd``) reaching the modern server through the bridge."""
    settings = settings or Settings(front_era="2025-11-25", upstream_era="2026-07-28")
    async with modern_upstream(upstream_kind, scripts["server.py"], settings) as (upstream, target):
        if front_kind == "http":
            async with serve_front(upstream, settings) as (url, _front):
                yield [url]
        else:
            await upstream.aclose()
            yield ["--", peers.MODERN_PYTHON, str(scripts["stdio_bridge.py"]), str(settings.mrtr_max_rounds), *target]


COMBOS = [("http", "http"), ("http", "stdio"), ("stdio", "http"), ("stdio", "stdio")]


@pytest.mark.parametrize("front_kind,upstream_kind", COMBOS)
async def test_basic_progress_logging(front_kind: str, upstream_kind: str, scripts: dict[str, Path]) -> None:
    async with bridged(front_kind, upstream_kind, scripts) as target:
        out = await run_client(scripts, "basic,progress,logging", target)
    init = out["init"]
    assert init["protocolVersion"] == "2025-11-25"
    assert init["serverInfo"] == {"name": "direction-b-modern", "version": "2.0.0"}
    assert init["instructions"] == "Modern fixture for direction B."
    assert init["capabilities"]["tools"]["listChanged"] is True
    assert init["capabilities"]["resources"]["subscribe"] is True
    assert "extensions" not in init["capabilities"]
    assert out["ping"] == {}
    assert {"add", "echo", "slow_count", "log_levels", "ask_name", "ask_many", "ask_rounds"} <= set(out["tools"])
    assert out["add"]["content"] == [{"type": "text", "text": "5"}]
    assert out["add"]["structuredContent"] == {"result": 5}
    assert out["add"]["isError"] is False
    assert "resultType" not in out["add"] and "_meta" not in out["add"]
    assert out["echo"]["content"][0]["text"] == "héllo\nworld"
    assert out["resources"] == ["memo://readme"]
    assert out["templates"] == ["greeting://{name}"]
    assert out["readme"]["contents"][0]["text"] == "Read me first."
    assert "ttlMs" not in out["readme"] and "cacheScope" not in out["readme"]
    assert out["greeting"]["contents"][0]["text"] == "Greetings, bob."
    assert out["prompts"] == ["confirm_prompt", "hello"]
    assert out["hello"]["messages"][0]["content"]["text"] == "Say hello to Ada."
    assert out["complete"]["completion"]["values"] == ["alice", "albert"]
    assert out["missing"]["code"] == -32002  # 2026 -32602 not-found, renumbered for the 2025 client
    assert out["fail"]["isError"] is True
    assert "always fails" in out["fail"]["content"][0]["text"]
    assert out["unknown_tool"].get("isError") is True or "error" in out["unknown_tool"]
    # progress: three strictly increasing notifications, then the result
    assert out["slow_count"]["content"][0]["text"] == "counted 3"
    assert out["progress"] == [[1.0, 3.0, "step 1"], [2.0, 3.0, "step 2"], [3.0, 3.0, "step 3"]]
    # logging: nothing before setLevel (2026 per-request opt-in), all four at debug, two at warning
    logs = out["logs"]
    assert logs["before"] == []
    assert [entry["level"] for entry in logs["debug"]] == ["debug", "info", "warning", "error"]
    assert [entry["level"] for entry in logs["warning"]] == ["warning", "error"]
    assert out["bad_level"]["code"] == -32602


@pytest.mark.parametrize("front_kind,upstream_kind", COMBOS)
async def test_subscriptions_and_list_changed(front_kind: str, upstream_kind: str, scripts: dict[str, Path]) -> None:
    async with bridged(front_kind, upstream_kind, scripts) as target:
        out = await run_client(scripts, "subscriptions", target)
    assert out["updated"] == {"method": "notifications/resources/updated", "params": {"uri": "memo://readme"}}
    assert out["tools_changed"]["method"] == "notifications/tools/list_changed"
    assert "_meta" not in (out["tools_changed"]["params"] or {})
    assert "fresh_tool" in out["tools_after"]
    assert out["unsubscribed"] is True


@pytest.mark.parametrize("front_kind,upstream_kind", COMBOS)
async def test_mrtr(front_kind: str, upstream_kind: str, scripts: dict[str, Path]) -> None:
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28", mrtr_max_rounds=4)
    async with bridged(front_kind, upstream_kind, scripts, settings) as target:
        out = await run_client(scripts, "mrtr", target)
    assert out["ask_name"]["content"][0]["text"] == "Hello, Ada!"
    assert out["ask_many"]["content"][0]["text"] == "color=green capital=Paris roots=file:///work/project state=many-1"
    assert out["ask_rounds"]["content"][0]["text"] == "Ada -> Hi Ada"
    assert out["ask_url"]["content"][0]["text"] == "url accept"
    assert out["shed"]["content"][0]["text"] == "after 2 retries"
    assert out["confirm_prompt"]["messages"][0]["content"]["text"] == "Talk about Ada"
    # the endless tool hits the round cap and gets a clear error
    assert out["endless"]["error"]["code"] == -32603
    assert "4 rounds" in out["endless"]["error"]["message"]
    kinds = [i["kind"] for i in out["inputs"]]
    assert kinds[:1] == ["form"]  # ask_name
    assert sorted(kinds[1:4]) == ["form", "roots", "sampling"]  # ask_many: one round, three requests
    assert kinds[4:6] == ["form", "sampling"]  # ask_rounds: two rounds
    assert kinds[6] == "url"
    url_input = out["inputs"][6]
    assert url_input["url"] == "https://example.com/login" and url_input["elicitationId"]
    assert out["elicitation_complete"] == [
        {"method": "notifications/elicitation/complete", "params": {"elicitationId": url_input["elicitationId"]}}
    ]
    assert kinds.count("form") == 1 + 1 + 1 + 4 + 1  # ask_name, ask_many, ask_rounds, endless x4, confirm_prompt


@pytest.mark.parametrize("front_kind,upstream_kind", COMBOS)
async def test_headers_and_input_failures(front_kind: str, upstream_kind: str, scripts: dict[str, Path]) -> None:
    async with bridged(front_kind, upstream_kind, scripts) as target:
        out = await run_client(scripts, "extras", target)
    # x-mcp-header arguments mirrored as Mcp-Param-* (non-ASCII value: base64 sentinel); the server checks them
    assert out["regional"]["content"][0]["text"] == "Zürich /7"
    # Mcp-Name of a non-ASCII URI travels base64-encoded
    assert out["greeting_unicode"]["contents"][0]["text"] == "Greetings, Zoë."
    # a sampling error from the client aborts the call with -32603 naming the input
    assert out["sample_refused"]["error"]["code"] == -32603
    assert "'s'" in out["sample_refused"]["error"]["message"]
    assert out["declined"]["content"][0]["text"] == "action=decline"


@pytest.mark.parametrize("front_kind", ["http", "stdio"])
async def test_undeclared_capability(front_kind: str, scripts: dict[str, Path]) -> None:
    """The bridge never sends a 2025 client a request for a capability it did not declare."""
    async with bridged(front_kind, "http", scripts) as target:
        out = await run_client(scripts, "nocaps", target)
    assert out["nocaps_ask_name"]["error"]["code"] == -32603
    assert "did not declare" in out["nocaps_ask_name"]["error"]["message"]
    assert out["nocaps_inputs"] == []


@pytest.mark.parametrize("front_kind,upstream_kind", COMBOS)
async def test_cancellation(front_kind: str, upstream_kind: str, scripts: dict[str, Path], tmp_path: Path) -> None:
    """notifications/cancelled from the 2025 client reaches the 2026 server (stream close / cancelled), and
    cancelling a call waiting for input withdraws the bridge's question (notifications/cancelled to the client)."""
    marker = tmp_path / "gate"
    async with bridged(front_kind, upstream_kind, scripts) as target:
        out = await run_client(scripts, "cancel", target, marker)
    assert out["gate_cancelled"] is True
    assert (tmp_path / "gate.cancelled").read_text() == "cancelled"
    assert "gate_answered" not in out  # a cancelled request gets no response
    assert out["question_withdrawn"] is True
    assert "ask_cancel_answered" not in out
    assert out["ping_after_cancel"] == {}


@pytest.mark.parametrize("front_kind", ["http", "stdio"])
async def test_stdio_upstream_crash(front_kind: str, scripts: dict[str, Path]) -> None:
    """A dying stdio upstream fails the in-flight call with an error; the child is respawned for the next one."""
    async with bridged(front_kind, "stdio", scripts) as target:
        out = await run_client(scripts, "crash", target)
    assert out["crash"]["error"]["code"] == -32603
    assert out["after_crash"]["content"][0]["text"] == "2"


# ---------------------------------------------------------------------------------------------
# Bad input on the HTTP front (raw HTTP; what the app in front of us does not already answer)
# ---------------------------------------------------------------------------------------------

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_http_front_bad_input(scripts: dict[str, Path]) -> None:
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28")
    async with modern_upstream("http", scripts["server.py"], settings) as (upstream, _t), \
            serve_front(upstream, settings) as (url, front):
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            # a request before initialize: no session header -> 400
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert r.status_code == 400 and r.json()["error"]["code"] == -32600
            # unknown session -> 404
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                headers={"Mcp-Session-Id": "nope"})
            assert r.status_code == 404
            # initialize: unknown future version is answered with ours; session id is visible ASCII
            r = await http.post(url, json={**INIT, "params": {**INIT["params"], "protocolVersion": "2099-01-01"}})
            assert r.status_code == 200
            assert r.json()["result"]["protocolVersion"] == "2025-11-25"
            sid = r.headers["mcp-session-id"]
            assert sid and all(0x21 <= ord(c) <= 0x7E for c in sid)
            h = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
            assert (await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h)).status_code == 202
            # a 2025-06-18 client keeps its version
            r2 = await http.post(url, json={**INIT, "params": {**INIT["params"], "protocolVersion": "2025-06-18"}})
            assert r2.json()["result"]["protocolVersion"] == "2025-06-18"
            # wrong protocol version header -> 400; absent header -> assumed 2025-03-26 and served
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                headers={**h, "MCP-Protocol-Version": "2026-07-28"})
            assert r.status_code == 400
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers={"Mcp-Session-Id": sid})
            assert r.status_code == 200 and r.json() == {"jsonrpc": "2.0", "id": 3, "result": {}}
            # reused request id within the session -> error, not a second execution
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, headers=h)
            assert r.json()["error"]["code"] == -32600
            # unknown / 2026-only / removed methods -> -32601 with HTTP 200 (never a session-killing 404)
            for i, method in enumerate(["server/discover", "subscriptions/listen", "tasks/list", "nope/x"], start=10):
                r = await http.post(url, json={"jsonrpc": "2.0", "id": i, "method": method, "params": {}}, headers=h)
                assert r.status_code == 200, method
                assert r.json()["error"]["code"] == -32601, method
            # invalid params for a local method
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 20, "method": "logging/setLevel",
                                           "params": {"level": "loud"}}, headers=h)
            assert r.json()["error"]["code"] == -32602
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 21, "method": "resources/subscribe", "params": {}}, headers=h)
            assert r.json()["error"]["code"] == -32602
            # a POSTed response nobody asked for is accepted with 202 and ignored
            r = await http.post(url, json={"jsonrpc": "2.0", "id": "bridge-999", "result": {}}, headers=h)
            assert r.status_code == 202
            # tools/list passes through with 2026 fields removed
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 22, "method": "tools/list"}, headers=h)
            result = r.json()["result"]
            assert "resultType" not in result and "ttlMs" not in result and "cacheScope" not in result
            # GET without Accept: text/event-stream -> 406; GET without a session -> 400
            r = await http.get(url, headers={"Accept": "application/json", "Mcp-Session-Id": sid})
            assert r.status_code == 406
            r = await http.get(url, headers={"Accept": "text/event-stream"})
            assert r.status_code == 400
            # DELETE ends the session; afterwards it is unknown
            r = await http.delete(url, headers=h)
            assert r.status_code == 200
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 30, "method": "tools/list"}, headers=h)
            assert r.status_code == 404
            assert sid not in front.sessions
            # sessions are bound to the credentials that opened them
            r = await http.post(url, json=INIT, headers={"Authorization": "Bearer alice"})
            bound = {"Mcp-Session-Id": r.headers["mcp-session-id"]}
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                headers={**bound, "Authorization": "Bearer mallory"})
            assert r.status_code == 404
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=bound)
            assert r.status_code == 404  # no credentials at all is another principal too
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 4, "method": "ping"},
                                headers={**bound, "Authorization": "Bearer alice"})
            assert r.status_code == 200 and r.json()["result"] == {}


async def test_session_idle_expiry(scripts: dict[str, Path]) -> None:
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28", session_idle_timeout=0.0)
    async with modern_upstream("http", scripts["server.py"], settings) as (upstream, _t), \
            serve_front(upstream, settings) as (url, _front):
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            r = await http.post(url, json=INIT)
            sid = r.headers["mcp-session-id"]
            await asyncio.sleep(0.01)
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers={"Mcp-Session-Id": sid})
            assert r.status_code == 404  # expired: the 2025 client must re-initialize


async def test_upstream_not_modern_fails_initialize(tmp_path: Path) -> None:
    """An upstream whose discover lacks 2026-07-28 makes initialize fail with -32602 naming versions."""

    class OldUpstream(Upstream):
        era = "2026-07-28"

        async def start(self) -> None:
            return None

        async def discover(self, ctx: Any) -> dict[str, Any]:
            return {"resultType": "complete", "supportedVersions": ["2027-01-01"], "capabilities": {},
                    "ttlMs": 0, "cacheScope": "public"}

        async def call(self, request: Any, ctx: Any, emit: Any) -> dict[str, Any]:
            raise AssertionError("not reached")

        async def aclose(self) -> None:
            return None

    settings = Settings()
    async with serve_front(OldUpstream(), settings) as (url, _front):
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            r = await http.post(url, json=INIT)
            body = r.json()
            assert "mcp-session-id" not in r.headers
            assert body["error"]["code"] == -32602
            assert "2025-11-25" in body["error"]["data"]["supported"]


def _sse_events(text: str) -> list[tuple[str | None, dict[str, Any] | None]]:
    """(event id, JSON-RPC message or None for a priming event) per SSE event."""
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in block.splitlines()
                      if line and not line.startswith(":"))
        if "id" in fields or "data" in fields:
            data = fields.get("data") or ""
            events.append((fields.get("id"), json.loads(data) if data.strip() else None))
    return events


async def test_dropped_post_stream_is_not_a_cancel_and_resumes(scripts: dict[str, Path], tmp_path: Path) -> None:
    """2025: a dropped POST SSE stream is not a cancellation; GET with Last-Event-ID replays the rest, the result included."""
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28")
    marker = tmp_path / "gate"
    async with modern_upstream("http", scripts["server.py"], settings) as (upstream, _t), \
            serve_front(upstream, settings) as (url, _front):
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            r = await http.post(url, json=INIT)
            h = {"Mcp-Session-Id": r.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h)
            call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                    "params": {"name": "gate", "arguments": {"marker": str(marker)}, "_meta": {"progressToken": "g"}}}
            last_id = None
            async with http.stream("POST", url, json=call, headers=h) as resp:
                assert resp.headers["content-type"].startswith("text/event-stream")
                buffer = ""
                async for chunk in resp.aiter_text():
                    buffer += chunk
                    events = _sse_events(buffer)
                    if any(m and m.get("method") == "notifications/progress" for _i, m in events):
                        assert events[0][1] is None and events[0][0]  # priming event first
                        last_id = [i for i, m in events if m and m.get("method") == "notifications/progress"][0]
                        break  # drop the connection mid-call
            assert last_id is not None
            marker.write_text("open")  # let the tool finish while nobody is listening
            async with http.stream("GET", url, headers={**h, "Accept": "text/event-stream", "Last-Event-ID": last_id}) as resp:
                assert resp.status_code == 200
                body = ""
                async for chunk in resp.aiter_text():
                    body += chunk
            replay = [m for _i, m in _sse_events(body) if m]
            assert replay[-1] == {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "gate passed"}],
                                                                        "structuredContent": {"result": "gate passed"},
                                                                        "isError": False}}
            assert [m["params"]["progress"] for m in replay if m.get("method") == "notifications/progress"] == [2]
            assert not (tmp_path / "gate.cancelled").exists()


async def test_get_stream_replay(scripts: dict[str, Path]) -> None:
    """Unsolicited notifications go to the session's GET stream; a reconnecting GET with Last-Event-ID gets what it
    missed while disconnected, and takes the stream over."""
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28")

    async def first_event(resp: httpx.Response) -> tuple[str | None, dict[str, Any] | None]:
        buffer = ""
        async for chunk in resp.aiter_text():
            buffer += chunk
            events = _sse_events(buffer)
            if events:
                return events[0]
        raise AssertionError("stream ended without an event")

    async with modern_upstream("http", scripts["server.py"], settings) as (upstream, _t), \
            serve_front(upstream, settings) as (url, _front):
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            r = await http.post(url, json=INIT)
            h = {"Mcp-Session-Id": r.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
            get = {**h, "Accept": "text/event-stream"}
            tool = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add_tool", "arguments": {"name": "t1"}}}
            r = await http.post(url, json={**tool, "id": 2}, headers=h)
            assert "added t1" in r.text
            async with http.stream("GET", url, headers=get) as resp:  # first GET: gets the queued notification
                first_id, first = await first_event(resp)
            assert first == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            assert first_id
            # while no GET is open, another change happens
            r = await http.post(url, json={**tool, "id": 3, "params": {**tool["params"], "arguments": {"name": "t2"}}},
                                headers=h)
            assert "added t2" in r.text
            async with http.stream("GET", url, headers={**get, "Last-Event-ID": first_id}) as resp:
                second_id, second = await first_event(resp)
            assert second == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            assert second_id and second_id != first_id


async def test_stdio_front_bad_input(scripts: dict[str, Path]) -> None:
    """Raw frames to the stdio front (via ``mcp-bridge serve --stdio``): order, ids, methods, garbage."""
    cmd = [*peers.bridge_cmd(), "serve", "--stdio", "--front-era", "2025-11-25", "--upstream-era", "2026-07-28",
           "--log-level", "warning", "--", peers.MODERN_PYTHON, str(scripts["server.py"]), "stdio"]
    proc = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdin is not None and proc.stdout is not None

    async def send(raw: bytes) -> None:
        assert proc.stdin is not None
        proc.stdin.write(raw + b"\n")
        await proc.stdin.drain()

    async def recv() -> dict[str, Any]:
        assert proc.stdout is not None
        with anyio.fail_after(60):
            return json.loads(await proc.stdout.readline())

    try:
        await send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
        assert (await recv())["error"]["code"] == -32600  # before initialize
        await send(b'{"jsonrpc":"2.0","id":2,"method":"ping"}')
        assert (await recv()) == {"jsonrpc": "2.0", "id": 2, "result": {}}  # ping is allowed before initialize
        await send(jsonrpc.dumps({**INIT, "id": 3}))
        init = await recv()
        assert init["id"] == 3 and init["result"]["serverInfo"]["name"] == "direction-b-modern"
        await send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        await send(b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
        assert (await recv())["error"]["code"] == -32600  # id reused within the session
        await send(jsonrpc.dumps({**INIT, "id": 4}))
        assert (await recv())["error"]["code"] == -32600  # second initialize
        await send(b'{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{}}')
        assert (await recv())["error"]["code"] == -32601
        await send(b'{not json')
        assert (await recv())["error"]["code"] == -32700
        await send(b'[{"jsonrpc":"2.0","id":6,"method":"ping"}]')
        assert (await recv())["error"]["code"] == -32600  # no batches
        await send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}')
        answer = await recv()
        assert answer["id"] == 7 and answer["result"]["content"] == [{"type": "text", "text": "3"}]
    finally:
        proc.stdin.close()
        with anyio.fail_after(60):
            await proc.wait()


async def test_relisten_after_upstream_restart(scripts: dict[str, Path]) -> None:
    """The stdio upstream dies: the session's listen is re-opened on the respawned child and, since changes may have
    been missed meanwhile, the 2025 client gets synthetic list_changed / updated notifications on its GET stream."""
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28")
    async with modern_upstream("stdio", scripts["server.py"], settings) as (upstream, _t), \
            serve_front(upstream, settings) as (url, _front):
        assert isinstance(upstream, ModernStdioUpstream)
        async with httpx.AsyncClient(headers=ACCEPT, timeout=60) as http:
            r = await http.post(url, json=INIT)
            h = {"Mcp-Session-Id": r.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                                           "params": {"uri": "memo://readme"}}, headers=h)
            assert r.json()["result"] == {}
            upstream.process.kill()
            methods: set[str] = set()
            async with http.stream("GET", url, headers={**h, "Accept": "text/event-stream"}) as resp:
                buffer = ""
                async for chunk in resp.aiter_text():
                    buffer += chunk
                    methods = {m["method"] for _i, m in _sse_events(buffer) if m}
                    if {"notifications/tools/list_changed", "notifications/resources/updated"} <= methods:
                        break
            assert {"notifications/tools/list_changed", "notifications/prompts/list_changed",
                    "notifications/resources/list_changed", "notifications/resources/updated"} <= methods
            assert upstream.process.restarts == 1
            # the session keeps working on the new child
            r = await http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                           "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}, headers=h)
            assert '"text":"3"' in r.text
