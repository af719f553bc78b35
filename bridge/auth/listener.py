"""The loopback redirect listener: receives the authorization response on ``http://127.0.0.1:PORT/callback``
(RFC 8252 §7.3, loopback interface redirection), one shot, with a deadline.

Only a request whose ``state`` is the one sent is accepted (MCP 2026-07-28 security considerations, "Open
Redirection": discard results with a missing or mismatched state); anything else gets a 400 and the
listener keeps waiting, so a stray or forged request can neither complete nor cancel the sign-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from urllib.parse import parse_qsl, urlsplit

log = logging.getLogger("mcp_eras.bridge.auth")

CALLBACK_PATH = "/callback"
_DONE_PAGE = b"<!doctype html><title>Signed in</title><p>Sign-in complete. You can close this window and return to the app.</p>"
_BAD_PAGE = b"<!doctype html><title>Not this sign-in</title><p>This response does not belong to the pending sign-in.</p>"


class ListenerTimeout(TimeoutError):
    """No valid authorization response before the deadline."""


class RedirectListener:
    """``async with RedirectListener(port) as listener: ... await listener.wait(state, timeout)``."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self.host, self.port = host, port
        self._server: asyncio.Server | None = None
        self._expected: str | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://{self.host}:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> RedirectListener:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    def expect(self, state: str) -> None:
        """Arm the listener for ``state`` (before the browser opens: the answer may come back at once)."""
        self._expected = state
        self._result = asyncio.get_running_loop().create_future()

    async def wait(self, state: str, timeout: float) -> dict[str, str]:
        """The query of the first request carrying ``state``; ``ListenerTimeout`` after ``timeout`` seconds."""
        if self._result is None or self._expected != state:
            self.expect(state)
        assert self._result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), max(timeout, 0.0))
        except TimeoutError:
            raise ListenerTimeout(f"no authorization response on {self.redirect_uri} within {timeout:.0f}s") from None
        finally:
            await self.close()  # one shot

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            parts = urlsplit(target)
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            ok = (
                method == "GET"
                and parts.path == CALLBACK_PATH
                and self._result is not None
                and not self._result.done()
                and hmac.compare_digest(query.get("state", ""), self._expected or "\0")
            )
            if ok:
                assert self._result is not None
                self._result.set_result(query)
            else:
                log.warning("oauth: ignored a request to the redirect listener that is not the pending sign-in's")
            await _respond(writer, 200 if ok else 400, _DONE_PAGE if ok else _BAD_PAGE)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _respond(writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    reason = "OK" if status == 200 else "Bad Request"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    await writer.drain()
