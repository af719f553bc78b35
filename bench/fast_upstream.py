"""A 2026-07-28 server that is never the bottleneck of a bridge benchmark: plain asyncio, no SDK, no framework.

    python bench/fast_upstream.py --port N [--workers W]

Streamable HTTP, JSON answers only (2026-07-28 basic/transports/streamable-http.mdx: a server may answer a POST
with one JSON response), HTTP/1.1 keep-alive. It serves ``server/discover``, ``tools/list`` (one tool, ``add``),
``tools/call add`` and ``subscriptions/listen`` (acknowledged, then held open); anything else is -32601.
``--workers W`` runs W processes on the same port (SO_REUSEPORT: the kernel spreads connections over them), so
on a multi-core host the upstream's ceiling grows with its workers and the bridge instances in front of it are
what a benchmark measures. Bodies are capped at 1 MiB; a malformed request closes its connection.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import socket

MAX_BODY = 1 << 20
INFO = {"name": "fast-upstream", "version": "1"}
META = {"io.modelcontextprotocol/serverInfo": INFO}
ADD = {"name": "add", "description": "a + b", "inputSchema": {
    "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}
DISCOVER = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "_meta": META, "ttlMs": 3_600_000, "cacheScope": "public"}
TOOLS = {"resultType": "complete", "tools": [ADD], "ttlMs": 3_600_000, "cacheScope": "public", "_meta": META}
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def answer(msg: dict) -> dict | None:
    """The response to one request (None for a notification)."""
    rid, method, params = msg.get("id"), msg.get("method"), msg.get("params") or {}
    if rid is None:
        return None
    if method == "tools/call" and params.get("name") == "add":
        args = params.get("arguments") or {}
        try:
            text = str(args["a"] + args["b"])
        except (KeyError, TypeError):
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "add needs numbers a and b"}}
        result = {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": False, "_meta": META}
        return {"jsonrpc": "2.0", "id": rid, "result": result}
    if method == "server/discover":
        return {"jsonrpc": "2.0", "id": rid, "result": DISCOVER}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": rid, "result": TOOLS}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}


class Http(asyncio.Protocol):
    def __init__(self) -> None:
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > 65536:
                    self._close()
                return
            head = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
            length = 0
            for line in head[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        self._close()
                        return
                elif name.strip().lower() == "transfer-encoding":
                    self._close()  # (chunked bodies are not served here)
                    return
            if length > MAX_BODY:
                self._close()
                return
            if len(self.buf) < end + 4 + length:
                return
            body = bytes(self.buf[end + 4:end + 4 + length])
            del self.buf[:end + 4 + length]
            self._serve(head[0], body)

    def _serve(self, request_line: str, body: bytes) -> None:
        assert self.transport is not None
        if not request_line.startswith("POST "):
            self._send(405, b"", "text/plain")
            return
        try:
            msg = json.loads(body)
        except ValueError:
            self._send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
            return
        if isinstance(msg, dict) and msg.get("method") == "subscriptions/listen" and msg.get("id") is not None:
            self._listen(msg)
            return
        out = answer(msg) if isinstance(msg, dict) else None
        if out is None:
            self._send(202, b"", "text/plain")
            return
        self._send(200, json.dumps(out, separators=(",", ":")).encode())

    def _listen(self, msg: dict) -> None:
        """Acknowledge with everything asked for, then keep the stream open (nothing ever changes here)."""
        assert self.transport is not None
        wanted = (msg.get("params") or {}).get("notifications") or {}
        ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"_meta": {SUBSCRIPTION_ID: msg["id"]}, "notifications": wanted}}
        event = b"data: " + json.dumps(ack).encode() + b"\n\n"
        self.transport.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
                             b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n" % len(event) + event + b"\r\n")

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        assert self.transport is not None
        reason = {200: "OK", 202: "Accepted", 400: "Bad Request", 405: "Method Not Allowed"}[status]
        self.transport.write(f"HTTP/1.1 {status} {reason}\r\ncontent-type: {kind}\r\ncontent-length: {len(body)}\r\n\r\n"
                             .encode() + body)

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def serve(port: int) -> None:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Http, sock=sock)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.workers <= 1:
        serve(args.port)
        return
    procs = [multiprocessing.Process(target=serve, args=(args.port,), daemon=True) for _ in range(args.workers)]
    for p in procs:
        p.start()

    def stop(*_: object) -> None:
        for p in procs:
            p.terminate()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
