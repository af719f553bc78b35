"""The endpoints that are not MCP's own read their bodies with a cap: an instance's ``/internal/forward`` (HMAC-checked
only after the body is read) held any body whole, so one unauthenticated POST could take the process's memory; and a
client hanging up mid-body was a traceback (issue #33)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

import httpx
import pytest
from inprocess.fakes import FakeUpstream
from starlette.applications import Starlette
from starlette.requests import Request

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.bounded_body import bounded_body
from mcp_eras.bridge.layers.cluster import FORWARD_PATH, ClusterUpstream
from mcp_eras.bridge.store.memory import MemoryStore

pytestmark = pytest.mark.anyio


def scope() -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": "/x", "headers": [], "query_string": b""}


def receiving(*messages: dict[str, Any]):  # type: ignore[no-untyped-def]
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    return receive


async def test_a_body_over_the_cap_is_refused_as_it_streams_and_by_its_declared_length() -> None:
    over = Request(scope(), receiving({"type": "http.request", "body": b"x" * 600, "more_body": True},
                                      {"type": "http.request", "body": b"x" * 600, "more_body": False}))
    assert await bounded_body(over, 1000) == HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    declared = Request({**scope(), "headers": [(b"content-length", b"5000")]}, receiving())
    assert await bounded_body(declared, 1000) == HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    fits = Request(scope(), receiving({"type": "http.request", "body": b"ab", "more_body": True},
                                      {"type": "http.request", "body": b"c", "more_body": False}))
    assert await bounded_body(fits, 1000) == b"abc"


async def test_a_client_gone_mid_body_is_a_400_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    gone = Request(scope(), receiving({"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.disconnect"}))
    assert await bounded_body(gone, 1000) == HTTPStatus.BAD_REQUEST
    assert not any(r.exc_info for r in caplog.records)


async def test_an_instances_forward_endpoint_refuses_a_body_over_the_cap_before_reading_it_whole() -> None:
    settings = Settings(state_key=bytes(32), instance_id="a", state_store="redis://unused", max_body_bytes=10_000)
    cluster = ClusterUpstream(FakeUpstream(), settings, MemoryStore(), "http://a")
    app = Starlette(routes=cluster.routes())
    pulled = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal pulled
        for _ in range(1000):  # 1 MB offered, 1 KB at a time, no declared length
            pulled += 1
            yield b" " * 1000

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a") as client:
        big = await client.post(FORWARD_PATH, content=endless())
        small = await client.post(FORWARD_PATH, content=b"{}")
    assert big.status_code == HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    assert pulled <= 12, f"{pulled} KB read of a body capped at 10 KB"
    assert small.status_code == HTTPStatus.FORBIDDEN  # read, then refused for its missing signature
