"""A light HTTP/1.1 client for the load generator (``bridge_bench.py --client lean``): keep-alive connections on asyncio
streams, a prebuilt request head, a response read by Content-Length or chunked framing. Nothing else.

httpx is the realistic client (it is what the SDKs use), but with 64 callers in one process its pool bookkeeping is
the bottleneck: direct, null relay and bridge then all reach the same req/s, and the ratios say nothing about the proxy.
This client spends a fraction of that per call, so at c=64 the proxy (or the server) is what saturates.

It answers what ``bridge_bench.py``'s callers use of an httpx response: ``headers``, ``text``, ``json()``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import urlsplit

import orjson
from null_relay import read_http_message  # (bench/ is a folder of scripts: its own modules import by name)

IDLE_EXPIRY = 2.0
"""Seconds an idle connection is reused (below uvicorn's 5 s keep-alive: never write into a closing connection)."""


class LeanResponse:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status_code = status
        self.headers = headers
        self.content = body

    @property
    def text(self) -> str:
        return self.content.decode()

    def json(self) -> Any:
        return orjson.loads(self.content)


class LeanClient:
    """``async with LeanClient() as client``; ``await client.post(url, json=..., headers=...)``."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]]] = {}

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for conns in self._idle.values():
            for _reader, writer, _at in conns:
                writer.close()
        self._idle.clear()

    async def post(self, url: str, json: Any, headers: dict[str, str]) -> LeanResponse:
        parts = urlsplit(url)
        key = (parts.hostname or "127.0.0.1", parts.port or 80)
        body = orjson.dumps(json)
        fields = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n{fields}"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode("latin-1") + body
        idle = self._idle.setdefault(key, [])
        now = time.monotonic()
        while idle:
            reader, writer, at = idle.pop()
            if now - at > IDLE_EXPIRY or writer.is_closing():
                writer.close()
                continue
            try:
                return await self._exchange(key, reader, writer, request)
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()  # closed by the server meanwhile: once more on a new connection
        reader, writer = await asyncio.open_connection(*key)
        return await self._exchange(key, reader, writer, request)

    async def _exchange(self, key: tuple[str, int], reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        request: bytes) -> LeanResponse:
        writer.write(request)
        start, headers, body = await read_http_message(reader)
        if headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self._idle[key].append((reader, writer, time.monotonic()))
        return LeanResponse(int(start.split(" ", 2)[1]), headers, body)
