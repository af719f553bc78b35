"""mcp_eras.bridge.upstream.tasks wiring: which upstreams get task sessions (in-process fakes, no peers)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, discard
from mcp_eras.bridge.upstream.tasks import legacy_transports, with_tasks


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
    """Stands for factory.AutoUpstream: the resolved upstream is ``delegate``."""

    def __init__(self, delegate: Upstream | None) -> None:
        super().__init__("2025-11-25")
        self.delegate = delegate


def factory(ctx: CallContext) -> Any:
    raise AssertionError("not called in these tests")


def test_legacy_transports_resolution():
    assert legacy_transports(FakeUpstream("2025-11-25", factory))() is factory
    assert legacy_transports(FakeUpstream("2026-07-28"))() is None
    auto = Auto(None)
    assert legacy_transports(auto)() is None, "an unresolved auto upstream has no transports yet"
    auto.delegate = FakeUpstream("2025-11-25", factory)
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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
