"""The null relay: the least work any MCP proxy must do, as the floor for the bridge's per-call cost.

It parses each frame, rewrites the id, forwards it, and maps the answer back — no validation, no
translation beyond the envelope, no pooling by identity, no MRTR, no notifications. The benchmark
(``bench/bridge_bench.py``) runs it beside the bridge in the same interleaved run.

    null_relay.py --port P --mode a -- CMD [ARGS]     2026 client -> relay -> 2025 server on stdio
    null_relay.py --port P --mode a --upstream URL    2026 client -> relay -> 2025 server on HTTP
    null_relay.py --port P --mode b --upstream URL    2025 client -> relay -> 2026 server on HTTP

Mode a strips the request's ``_meta`` envelope and keeps one initialized upstream session; mode b
answers ``initialize`` locally and stamps the 2026 envelope and routing headers on each request.
Only asyncio streams and orjson (the bridge's own JSON library, so both pay the same parse cost).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
from urllib.parse import urlsplit

import orjson

LEGACY = "2025-11-25"
IDLE_EXPIRY = 2.0
"""Seconds an idle upstream connection is reused (below the server's keep-alive timeout)."""
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "null-relay", "version": "1"},
}


async def read_http_message(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    """One HTTP/1.1 message (request or response): start line, lower-cased headers, body."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        return lines[0], headers, b"".join(parts)
    return lines[0], headers, await reader.readexactly(int(headers.get("content-length", "0")))


def sse_frames(body: bytes) -> list[dict]:
    return [orjson.loads(line[5:]) for line in body.split(b"\n") if line.startswith(b"data:") and line[5:].strip()]


class StdioUpstream:
    """One child, one initialized 2025 session, requests multiplexed by id."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict]] = {}

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            limit=64 * 1024 * 1024)
        asyncio.get_running_loop().create_task(self._read())
        await self.request({"method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "null-relay", "version": "1"}}})
        self._write({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _write(self, frame: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(orjson.dumps(frame) + b"\n")

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            frame = orjson.loads(line)
            fut = self.pending.pop(frame.get("id"), None) if "method" not in frame else None
            if fut is not None and not fut.done():
                fut.set_result(frame)

    async def request(self, frame: dict) -> dict:
        uid = next(self.ids)
        fut = asyncio.get_running_loop().create_future()
        self.pending[uid] = fut
        self._write({**frame, "jsonrpc": "2.0", "id": uid})
        return await fut


class HttpUpstream:
    """Keep-alive HTTP/1.1 connections to one Streamable HTTP endpoint, JSON or SSE answers."""

    def __init__(self, url: str, mode: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/"
        self.mode = mode
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []
        self.ids = itertools.count(1)
        self.headers = {"MCP-Protocol-Version": MODERN if mode == "b" else LEGACY}

    async def start(self) -> None:
        if self.mode == "a":
            init = {"method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "null-relay", "version": "1"}}}
            _, headers = await self._exchange({**init, "jsonrpc": "2.0", "id": 0}, {})
            if "mcp-session-id" in headers:
                self.headers["Mcp-Session-Id"] = headers["mcp-session-id"]
            await self._exchange({"jsonrpc": "2.0", "method": "notifications/initialized"}, {})

    async def _exchange(self, frame: dict, extra: dict[str, str]) -> tuple[dict | None, dict[str, str]]:
        body = orjson.dumps(frame)
        head = [f"POST {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Content-Type: application/json",
                "Accept: application/json, text/event-stream", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in {**self.headers, **extra}.items()]
        request = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        now = asyncio.get_running_loop().time()
        while self.idle and self.idle[-1][2] < now - IDLE_EXPIRY:
            self.idle.pop()[1].close()  # the server may be closing it (uvicorn: after 5 s idle)
        conn = self.idle.pop()[:2] if self.idle else await asyncio.open_connection(self.host, self.port)
        try:
            conn[1].write(request)
            _, headers, payload = await read_http_message(conn[0])
        except (asyncio.IncompleteReadError, ConnectionError):
            conn[1].close()  # a keep-alive connection closed under us: once more on a new one (as any client does)
            conn = await asyncio.open_connection(self.host, self.port)
            conn[1].write(request)
            _, headers, payload = await read_http_message(conn[0])
        if headers.get("connection", "").lower() == "close":
            conn[1].close()
        else:
            self.idle.append((*conn, asyncio.get_running_loop().time()))
        if not payload:
            return None, headers
        if headers.get("content-type", "").startswith("text/event-stream"):
            frames = [f for f in sse_frames(payload) if "method" not in f]
            return (frames[-1] if frames else None), headers
        return orjson.loads(payload), headers

    async def request(self, frame: dict) -> dict:
        uid = next(self.ids)
        extra = {}
        if self.mode == "b":
            extra["Mcp-Method"] = frame["method"]
            name = frame.get("params", {}).get("name")
            if isinstance(name, str):
                extra["Mcp-Name"] = name
        answer, _ = await self._exchange({**frame, "jsonrpc": "2.0", "id": uid}, extra)
        return answer or {"error": {"code": -32603, "message": "no answer"}}


class Relay:
    def __init__(self, upstream: StdioUpstream | HttpUpstream, mode: str) -> None:
        self.upstream = upstream
        self.mode = mode

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                start, headers, body = await read_http_message(reader)
                status, extra, payload = await self.answer(start, body)
                head = [f"HTTP/1.1 {status}", f"Content-Length: {len(payload)}", *extra]
                if payload:
                    head.append("Content-Type: application/json")
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def answer(self, start: str, body: bytes) -> tuple[str, list[str], bytes]:
        if not start.startswith("POST "):
            return "405 Method Not Allowed", [], b""
        frame = orjson.loads(body)
        if "id" not in frame:
            return "202 Accepted", [], b""
        params = frame.get("params") or {}
        if self.mode == "b" and frame["method"] == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", LEGACY), "capabilities": {"tools": {}},
                      "serverInfo": {"name": "null-relay", "version": "1"}}
            return "200 OK", ["Mcp-Session-Id: null-relay"], orjson.dumps({"jsonrpc": "2.0", "id": frame["id"], "result": result})
        if self.mode == "a":
            params = {k: v for k, v in params.items() if k != "_meta"}
        else:
            params = {**params, "_meta": META}
        answer = await self.upstream.request({"method": frame["method"], "params": params})
        answer["id"] = frame["id"]
        return "200 OK", [], orjson.dumps(answer)


async def serve(args: argparse.Namespace) -> None:
    upstream: StdioUpstream | HttpUpstream = HttpUpstream(args.upstream, args.mode) if args.upstream else StdioUpstream(args.command)
    await upstream.start()
    server = await asyncio.start_server(Relay(upstream, args.mode).handle, "127.0.0.1", args.port)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["a", "b"], default="a")
    parser.add_argument("--upstream")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if bool(args.upstream) == bool(args.command):
        parser.error("give exactly one of --upstream URL or -- COMMAND")
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        print("null-relay: stopped", file=sys.stderr)


if __name__ == "__main__":
    main()
