"""The warm cost of a front's own Python on one relayed ``tools/call``, without any I/O: a POST's parsed body and
header fields through the 2025 front (``LegacyHttpFront.handle_post_headers``, a session open) or the 2026 front
(``HttpFront.answer_post``), over an upstream that answers at once, down to the bytes of the answer.

    .venv/bin/python bench/front_path.py [--calls 5000] [--repeats 7]

Process CPU per call, the lowest of ``--repeats`` runs (the least disturbed by the rest of the machine): on a shared
machine the end-to-end benchmark's per-call CPU drifts by 10-30%, this by a few percent, so two trees compare
here (``PYTHONPATH=<other tree> .venv/bin/python bench/front_path.py``). What it leaves out is what
``bench/bridge_bench.py`` adds: the HTTP parser, sockets, the upstream's client and the wake-ups between them.
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Any

from mcp_eras.bridge import _perf
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.front.http import HttpFront
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.translate.jsonrpc import Message

DISCOVER = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench", "version": "1"}}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}
ACCEPT = "application/json, text/event-stream"


class Instant(Upstream):
    """A 2026 server answering every ``tools/call`` of ``add`` in the same call."""

    era = "2026-07-28"

    async def start(self) -> None:
        return None

    async def discover(self, ctx: CallContext) -> Message:
        return dict(DISCOVER)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        if request["method"] == "subscriptions/listen":
            return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no listen"}}
        args = request["params"]["arguments"]
        return {"jsonrpc": "2.0", "id": request["id"],
                "result": {"content": [{"type": "text", "text": str(args["a"] + args["b"])}], "resultType": "complete"}}

    async def aclose(self) -> None:
        return None


async def body_of(response: Any) -> bytes:
    """The answer's bytes: a JSON body, or an SSE body read to its last chunk (as the HTTP shortcut reads it)."""
    iterator = getattr(response, "body_iterator", None)
    if iterator is None:
        return bytes(response.body)
    chunks = []
    try:
        async for chunk in iterator:
            chunks.append(chunk)
            if getattr(response, "final", False):
                break
    finally:
        await iterator.aclose()
    return b"".join(chunks)


async def legacy_caller(settings: Settings) -> tuple[Any, Any]:
    front = LegacyHttpFront(Instant(), settings)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    opened = await front.handle_post_headers({"accept": ACCEPT, "content-type": "application/json"}, init)
    headers = {"host": "127.0.0.1", "accept": ACCEPT, "content-type": "application/json", "content-length": "80",
               "mcp-protocol-version": "2025-11-25", "mcp-session-id": opened.headers["mcp-session-id"]}
    await front.handle_post_headers(headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})

    ids = itertools.count(1)  # 2025: never the same id twice in a session

    async def call(i: int) -> bytes:
        msg = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}}}
        return await body_of(await front.handle_post_headers(headers, msg))

    return call, front.aclose


async def modern_caller(settings: Settings) -> tuple[Any, Any]:
    front = HttpFront(settings, Instant(), None)
    headers = {"host": "127.0.0.1", "accept": ACCEPT, "content-type": "application/json", "content-length": "80",
               "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add"}

    async def call(i: int) -> bytes:
        msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
               "params": {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": MODERN_META}}
        return await body_of(await front.answer_post(headers, msg, lambda _callback: lambda: None, None))

    return call, front.upstream.aclose


async def measure(make: Any, calls: int, repeats: int) -> float:
    call, close = await make(Settings())
    for i in range(300):
        await call(i)
    best = float("inf")
    answer = b""
    for _ in range(repeats):
        started = time.process_time()
        for i in range(calls):
            answer = await call(i)
        best = min(best, (time.process_time() - started) / calls)
    assert b'"text":"%d"' % calls in answer, answer  # the last call's sum: a + 1 with a = calls - 1
    await close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"event loop: {_perf.loop_name()}")
    for name, make in (("2025 front (B)", legacy_caller), ("2026 front (A)", modern_caller)):
        print(f"{name:16s} {_perf.run(measure(make, args.calls, args.repeats)) * 1e6:6.1f} us per call")


if __name__ == "__main__":
    main()
