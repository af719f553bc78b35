"""mcp_eras.bridge.layers.tasks wiring: which upstreams get task sessions (in-process fakes, no peers)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, discard
from mcp_eras.bridge.layers.tasks import legacy_transports, with_tasks


class FakeUpstream(Upstream):
    def __init__(self, era: str, factory: Any = None) -> None:
        self.era = era  # type: ignore[assignment]
        if factory is not None:
            self.transport_factory = factory
        self.calls: list[dict] = []

    async def start(self) -> None: ...

    async def discover(self, ctx: CallContext) -> dict:
        return {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}

    async def call(self, request: dict, ctx: CallContext, emit: Any) -> dict:
        self.calls.append(request)
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"resultType": "complete", "echo": request["method"]}}

    async def aclose(self) -> None: ...


class Auto(FakeUpstream):
    """Stands for factory.AutoUpstream: a layer whose ``inner`` is the resolved upstream (None before)."""

    wraps = True

    def __init__(self, inner: Upstream | None) -> None:
        super().__init__("2025-11-25")
        self.inner = inner


def factory(ctx: CallContext) -> Any:
    raise AssertionError("not called in these tests")


def test_legacy_transports_resolution():
    assert legacy_transports(FakeUpstream("2025-11-25", factory))() is factory
    assert legacy_transports(FakeUpstream("2026-07-28"))() is None
    auto = Auto(None)
    assert legacy_transports(auto)() is None, "an unresolved auto upstream has no transports yet"
    auto.inner = FakeUpstream("2025-11-25", factory)
    assert legacy_transports(auto)() is factory
    assert legacy_transports(Auto(FakeUpstream("2026-07-28")))() is None


@pytest.mark.anyio
@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel", "tools/call", "resources/list"])
async def test_a_2026_upstream_serves_the_extension_itself(method: str):
    inner = FakeUpstream("2026-07-28")
    up = with_tasks(inner, Settings())
    request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"taskId": "t", "name": "x", "_meta": {}}}
    resp = await up.call(request, CallContext(), discard)
    assert resp["result"]["echo"] == method and inner.calls == [request]
    assert up.era == "2026-07-28"


class Rec:
    def __init__(self, sid: str, principal: str | None) -> None:
        self.sid, self.principal = sid, principal


class Session:
    def __init__(self, sid: str, principal: str | None, caps: dict) -> None:
        self.rec, self.state, self.server_caps = Rec(sid, principal), "ready", caps


class Live(dict):
    """A legacy pool's live sessions, counting the scans of all of them."""

    scans = 0

    def values(self) -> Any:
        Live.scans += 1
        return super().values()


class LegacyPool(FakeUpstream):
    """Stands for upstream.legacy.LegacyUpstream: its ready sessions in ``live``."""

    def __init__(self, sessions: list[Session]) -> None:
        super().__init__("2025-11-25", factory)
        self.live = Live((s.rec.sid, s) for s in sessions)


@pytest.mark.anyio
async def test_a_caller_whose_2025_server_has_no_tasks_is_served_without_a_scan_per_call():
    others = [Session(f"s{n}", f"tenant-{n}", {"tools": {}}) for n in range(100)]
    mine = Session("mine", "alice", {"tools": {}})
    inner = LegacyPool([*others, mine])
    up = with_tasks(inner, Settings())
    ctx = CallContext(principal="alice")
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "_meta": {}}}
    Live.scans = 0
    for _ in range(5):
        assert (await up.call(request, ctx, discard))["result"]["echo"] == "tools/call"
    assert len(inner.calls) == 5 and Live.scans == 1  # found once, then the caller's hint
    mine.state = "closed"  # the hinted session goes: looked for again, none of alice's is left
    assert up._ready_caps(ctx) is None and Live.scans == 2
    again = Session("again", "alice", {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}})
    inner.live["again"] = again
    assert up._ready_caps(ctx) is again.server_caps
    assert not up._plain_calls(ctx), "a server with tasks is not passed through unasked"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
