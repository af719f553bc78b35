"""Two requests of one 2025 session that reach an instance at once, while it adopts the session from an instance
that is gone, are served by one adoption (issue #33 review): the second used to adopt the session again, because
the record already named this instance and its claim succeeded, and its slot replaced the first (a started session
left running, never closed)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from inprocess.fakes import FakeUpstream
from starlette.requests import Request
from starlette.responses import Response

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.scaleout.sessions import ClusterLegacyFront
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import session as ls

pytestmark = pytest.mark.anyio


class SlowInner:
    """The 2025 front as the cluster layer sees it: adopting a session takes a while (its upstream start)."""

    def __init__(self) -> None:
        self.sessions: dict[str, Any] = {}
        self.adopted = 0

    async def adopt(self, sid: str, state: ls.SessionState, ctx: object, first_event: int) -> None:
        self.adopted += 1
        await asyncio.sleep(0.2)
        self.sessions[sid] = SimpleNamespace(get_stream=SimpleNamespace(on_push=None), session=None)


def request(sid: str) -> Request:
    return Request({"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"mcp-session-id", sid.encode())],
                    "query_string": b"", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2)})


async def test_concurrent_requests_adopt_a_session_once() -> None:
    store = MemoryStore()
    settings = Settings(state_key=bytes(range(32)), instance_id="a", state_store="redis://unused", request_timeout=10.0)
    cluster = ClusterUpstream(FakeUpstream(), settings, store, "http://a")
    identity = lf.SessionIdentity("2025-11-25", {}, {"name": "c", "version": "1"})
    state = ls.SessionState(identity=identity, idle_timeout=60.0, deadline=0.0, session_id="s1")
    await store.create_session("s1", {"machine": state.to_json()}, 60_000, owner="gone")
    inner = SlowInner()
    front = ClusterLegacyFront(inner, cluster, settings)  # type: ignore[arg-type]
    served: list[str] = []

    async def local() -> Response:
        served.append("here" if "s1" in inner.sessions else "unknown")
        return Response(status_code=200)

    try:
        await asyncio.gather(*(front._route(request("s1"), b"", 1, local) for _ in range(3)))
        assert inner.adopted == 1, f"adopted {inner.adopted} times"
        assert served == ["here"] * 3
        assert (await store.session("s1"))["owner"] == "a"
        assert not front._adopting
    finally:
        front._forget("s1")
