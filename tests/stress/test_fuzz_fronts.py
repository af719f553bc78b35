"""Generated hostile input against every front, in process: 10,000 frames each (``MCP_ERAS_FUZZ_FRAMES``).

A seeded generator (reproducible: the seed is in the test id) mixes garbage bytes, truncated and
invalid UTF-8 JSON, top-level non-objects and batches, nesting from 10 to 100,000 levels, and valid
requests with one to three mutations (keys dropped, values replaced by random JSON of any type, method,
id and ``jsonrpc`` swapped, headers that disagree with the body). Every answer must be no 5xx, and
every JSON-RPC error in it must validate against the receiving era's schema (2026-07-28
``JSONRPCErrorResponse`` on the modern fronts, 2025-11-25 on the legacy front); afterwards the front
still serves a normal call. The stdio front gets the same frames as lines.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
from typing import Any

import legacy_front_fakes as fakes
import pytest
from fakes import FakeUpstream
from legacy_front_asgi import LegacyClient
from starlette.testclient import TestClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.front.stdio import serve_stdio
from mcp_eras.bridge.translate import eras

import spec

FRAMES = int(os.environ.get("MCP_ERAS_FUZZ_FRAMES", "10000"))
SEED = 20261202
METHODS = sorted(eras.MODERN_CLIENT_METHODS | eras.LEGACY_CLIENT_METHODS) + [
    "initialize", "ping", "notifications/initialized", "notifications/cancelled", "", "tools/call ", "x" * 300]
DEPTHS = [10, 64, 128, 129, 500, 1024, 1025, 5000, 100_000]


def rand_json(r: random.Random, depth: int = 0) -> Any:
    kind = r.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return r.random() < 0.5
    if kind == 2:
        return r.choice([0, -1, 1, 2**31, 2**63, -(2**64), 10**30])
    if kind == 3:
        return r.choice([0.5, -1e308, 1e-300, 3.0])
    if kind in (4, 5):
        alphabet = "ab_/.:{}[]\"\\\u00e9\u4e2d\U0001f600\x00\n"
        return "".join(r.choice(alphabet) for _ in range(r.randrange(12)))
    if kind in (6, 7):
        return [rand_json(r, depth + 1) for _ in range(r.randrange(4))]
    return {rand_json(r, 4) if r.random() < 0.8 else "_meta": rand_json(r, depth + 1) for _ in range(r.randrange(4))}


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*prefix, i))
    return out


def mutate(r: random.Random, frame: dict[str, Any]) -> Any:
    for _ in range(r.randrange(1, 4)):
        choice = r.randrange(6)
        if choice == 0:
            frame["method"] = r.choice(METHODS)
        elif choice == 1:
            frame["id"] = r.choice([None, "", "x", 1.5, [1], {"a": 1}, True, -1, 2**70])
        elif choice == 2:
            frame.pop(r.choice(["id", "method", "params", "jsonrpc"]), None)
        elif choice == 3:
            frame["jsonrpc"] = r.choice(["1.0", 2, None, "2.0 "])
        else:
            where = r.choice(paths(frame)[1:] or [("params",)])
            parent: Any = frame
            for key in where[:-1]:
                parent = parent[key]
            if r.random() < 0.3 and isinstance(parent, dict):
                parent.pop(where[-1], None)
            else:
                parent[where[-1]] = rand_json(r)
    return frame


def nested(depth: int, r: random.Random) -> bytes:
    open_, close = ("[", "]") if r.random() < 0.5 else ('{"a":', "}")
    return (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":'
            + (open_ * depth).encode() + b"1" + (close * depth).encode() + b"}}")


def generate(r: random.Random, template: dict[str, Any]) -> bytes:
    """One frame's bytes."""
    roll = r.random()
    if roll < 0.08:
        return bytes(r.randrange(256) for _ in range(r.randrange(1, 40)))
    if roll < 0.14:
        whole = json.dumps(mutate(r, copy.deepcopy(template))).encode()
        return whole[: r.randrange(1, max(2, len(whole)))]
    if roll < 0.18:
        return json.dumps(template).encode().replace(b"echo", b"\xff\xfe")
    if roll < 0.26:
        return json.dumps(rand_json(r)).encode()
    if roll < 0.30:
        return json.dumps([copy.deepcopy(template) for _ in range(r.randrange(0, 3))]).encode()
    if roll < 0.35:
        return nested(r.choice(DEPTHS), r)
    frame = mutate(r, copy.deepcopy(template))
    if isinstance(frame.get("params"), dict) and frame["params"].get("name") == "hang":
        frame["params"]["name"] = "echo"  # the fake's never-answering tool would only test the timeout
    return json.dumps(frame).encode()


def modern_call(rid: Any = 1) -> dict[str, Any]:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["id"] = rid
    request["params"].update({"name": "echo", "arguments": {"text": "hi"}})
    return request


def check_frames(frames: list[Any], era: str) -> int:
    errors = 0
    for frame in frames:
        if isinstance(frame, dict) and "error" in frame:
            spec.valid(era, "JSONRPCErrorResponse", frame)
            errors += 1
        else:
            assert isinstance(frame, dict) and frame.get("jsonrpc") == "2.0", frame
    return errors


def sse_frames(text: str) -> list[Any]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]


def test_modern_http_front() -> None:
    r = random.Random(SEED)
    template = modern_call()
    statuses: dict[int, int] = {}
    errors = 0
    with TestClient(build_app(Settings(front_era="2026-07-28", request_timeout=10.0), FakeUpstream()),
                    base_url="http://127.0.0.1:8000") as client:
        for _ in range(FRAMES):
            body = generate(r, template)
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": r.choice([eras.MODERN, eras.MODERN, "2025-11-25", "bogus"]),
                       "Mcp-Method": r.choice(["tools/call", "tools/call", "tools/list", ""]), "Mcp-Name": "echo"}
            response = client.post("/mcp", content=body, headers=headers)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            assert response.status_code < 500, (body[:200], response.text[:500])
            if not response.content:
                continue
            ctype = response.headers.get("content-type", "")
            frames = sse_frames(response.text) if ctype.startswith("text/event-stream") else [response.json()]
            errors += check_frames(frames, spec.MODERN)
        after = client.post("/mcp", content=json.dumps(modern_call(7)), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": eras.MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo"})
    assert after.status_code == 200
    spec.modern("CallToolResultResponse", after.json())
    assert errors > FRAMES // 2, statuses  # the generator is hostile enough to be refused mostly


@pytest.mark.anyio
async def test_legacy_http_front() -> None:
    r = random.Random(SEED + 1)
    settings = Settings(request_timeout=10.0, connect_timeout=5.0, session_idle_timeout=600.0)
    upstream = fakes.ListeningUpstream()
    front = LegacyHttpFront(upstream, settings)
    app = build_app(settings, upstream, front)
    client = LegacyClient(app)
    template = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}
    errors = 0
    try:
        await client.initialize({"sampling": {}})
        for i in range(FRAMES):
            template["id"] = i + 10  # fresh ids: a reused id is refused before anything else (worth a share only)
            response = await client.send("POST", generate(r, template))
            assert response.status < 500, response.status
            body = await response.body()
            if body:
                frames = sse_frames(body.decode()) if response.is_sse else [json.loads(body)]
                errors += check_frames(frames, spec.LEGACY)
            if len(client.open) > 64:
                for done in client.open:
                    await done.close()
                client.open.clear()
        answer = await client.rpc({"jsonrpc": "2.0", "id": "after", "method": "tools/call",
                                   "params": {"name": "echo", "arguments": {"text": "hi"}}})
        spec.legacy("JSONRPCResultResponse", answer)
        fresh = LegacyClient(app)
        await fresh.initialize({})
        await fresh.aclose()
    finally:
        await client.aclose()
        await front.aclose()
    assert errors > FRAMES // 2


class Out:
    def __init__(self) -> None:
        self.frames: list[Any] = []
        self.arrived = asyncio.Event()

    def write(self, data: bytes) -> None:
        for line in data.splitlines():
            frame = json.loads(line)
            self.frames.append(frame)
            if isinstance(frame, dict) and frame.get("id") == "last":
                self.arrived.set()

    def flush(self) -> None:
        return None


@pytest.mark.anyio
async def test_stdio_front() -> None:
    r = random.Random(SEED + 2)
    upstream, reader, out = FakeUpstream(), asyncio.StreamReader(limit=1 << 24), Out()
    task = asyncio.ensure_future(serve_stdio(upstream, Settings(request_timeout=10.0), None, reader, out))
    template = modern_call()
    for _ in range(FRAMES):
        reader.feed_data(generate(r, template).replace(b"\n", b" ") + b"\n")
        await asyncio.sleep(0)
    reader.feed_data(json.dumps(modern_call("last")).encode() + b"\n")
    async with asyncio.timeout(60):
        await out.arrived.wait()
    reader.feed_eof()
    async with asyncio.timeout(30):
        await task
    last = [f for f in out.frames if isinstance(f, dict) and f.get("id") == "last"]
    spec.modern("CallToolResultResponse", last[0])
    assert check_frames(out.frames, spec.MODERN) > FRAMES // 3
