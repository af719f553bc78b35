"""Issue #30: a 2025 stdio upstream's children of client identities whose callers have left are closed after
``pool_departed_timeout`` even when no caller comes (a timer, not the next acquire); one child stays warm."""

from __future__ import annotations

import asyncio

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

pytestmark = pytest.mark.anyio


def as_client(rid: int, name: str) -> dict:
    request = tools_call(rid, "echo", {"elicitation": {}}, text=name)
    request["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = {"name": name, "version": "1"}
    return request


async def test_three_clients_one_after_another_leave_one_child_after_the_grace() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(pool_departed_timeout=0.3, pool_idle_timeout=600), name="fake")
    for rid, name in enumerate(("a", "b", "c"), 1):
        answer = await up.call(as_client(rid, name), CallContext(), discard)
        assert "result" in answer, answer
    assert bank.live == 3 and bank.peak == 3
    for _ in range(100):
        if bank.live == 1:
            break
        await asyncio.sleep(0.05)
    assert bank.live == 1 and len(up.live) == 1  # the last client's child stays warm
    again = await up.call(as_client(9, "c"), CallContext(), discard)
    assert "result" in again and len(bank.made) == 3  # ... and serves its identity without a new spawn
    await up.aclose()
    assert bank.live == 0
