"""Raw HTTP/1.1 over sockets for the framing tests (what an HTTP client library would never send): requests built
byte by byte, answers split by their Content-Length."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time

import orjson

BODY = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "echo", "arguments": {"text": "hi"},
    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
FIELDS = (b"Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
          b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n")
CL = b"Content-Length: %d\r\n"
SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
"""A request hidden after an ambiguous one: it must never be served."""


def post(fields: bytes, body: bytes = b"", version: bytes = b"HTTP/1.1", path: bytes = b"/mcp") -> bytes:
    return b"POST " + path + b" " + version + b"\r\n" + FIELDS + fields + b"\r\n" + body


def chunked(body: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


async def exchange(port: int, data: bytes) -> tuple[bytes, bool]:
    """Send ``data`` and read until the server closes (True) or 10 s pass without it (False)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    received = b""
    closed = False
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            while chunk := await reader.read(65536):
                received += chunk
            closed = True
    writer.close()
    return received, closed


def responses(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The responses in ``raw`` (each with a Content-Length, as every answer here has)."""
    found = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        size = int(fields.get("content-length", "0"))
        found.append((int(lines[0].split()[1]), fields, rest[:size]))
        raw = rest[size:]
    return found


def over_cap(port: int, cap: int, at_once: bool, path: bytes = b"/mcp") -> bytes | str:
    """A POST declaring one byte over ``cap``: sent whole, or its head first and its body a moment later (as a client
    that writes the body after the head). What the client reads, or the error it met."""
    head = post(CL % (cap + 1), path=path)
    received = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(30)
        try:
            if at_once:
                sock.sendall(head + b"x" * (cap + 1))
            else:
                sock.sendall(head)
                time.sleep(0.3)  # the 413 is decided on the head; the body comes after it
                sock.sendall(b"x" * (cap + 1))
            while chunk := sock.recv(65536):
                received += chunk
            return received
        except TimeoutError as exc:
            # What matters is the answer, not how soon a loaded machine closes the connection after it.
            return received if responses(received) else repr(exc)
        except OSError as exc:
            return repr(exc)
