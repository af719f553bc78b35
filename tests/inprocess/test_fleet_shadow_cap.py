"""The shadow mirror's cap, in process: copies past ``shadow_concurrency`` are skipped and counted as
``busy``; the callers' answers never wait for the twin; a twin slower than ``shadow_timeout`` is
counted as ``timeout``; every slot is given back. (The subprocess test in tests/fleet sets a cap no
real run reaches, so that its mirrored count does not depend on how loaded the machine is.)"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from mcp_eras.bridge.core import CallContext, Upstream, discard
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.layers import staged as st
from mcp_eras.bridge.translate.jsonrpc import Message


class Echo(Upstream):
    """Answers every request with its own params; the twin variant waits for ``gate`` first."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.gate = gate
        self.calls = 0

    async def start(self) -> None:
        return None

    async def discover(self, ctx: CallContext) -> Message:
        return {"jsonrpc": "2.0", "id": 0, "result": {}}

    async def call(self, request: Message, ctx: CallContext, emit: Any) -> Message:
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"contents": [{"uri": request["params"]["uri"]}]}}

    async def aclose(self) -> None:
        return None


def staged(cap: int, timeout: float, twin: Echo) -> tuple[st.StagedUpstream, Metrics, Echo]:
    metrics = Metrics()
    st.register_metrics(metrics)
    old = Echo()
    up = st.StagedUpstream("old", old, lambda name: twin if name == "twin" else None, metrics, deque())
    up.configure(st.StageConfig(shadow="twin", concurrency=cap, timeout=timeout))
    assert up.stage is not None
    up.stage.learned = True  # no background tools/list: this test counts calls
    return up, metrics, old


def read(i: int) -> Message:
    return {"jsonrpc": "2.0", "id": i, "method": "resources/read", "params": {"uri": f"memo://{i}"}}


async def settle(up: st.StagedUpstream) -> None:
    while up._tasks:  # noqa: SLF001 - the copies still running
        await asyncio.gather(*list(up._tasks), return_exceptions=True)  # noqa: SLF001


def test_copies_past_the_cap_are_skipped_as_busy_and_callers_never_wait() -> None:
    async def main() -> None:
        gate = asyncio.Event()
        twin = Echo(gate)
        up, metrics, old = staged(cap=2, timeout=30, twin=twin)
        answers = [await up.call(read(i), CallContext(), discard) for i in range(5)]  # the twin is stuck meanwhile
        assert [a["id"] for a in answers] == list(range(5)) and old.calls == 5
        shadow = up.stage_status()["shadow"]  # type: ignore[index]
        assert (shadow["pending"], shadow["skipped"], shadow["mirrored"]) == (2, {"busy": 3}, 0)
        gate.set()
        await settle(up)
        shadow = up.stage_status()["shadow"]  # type: ignore[index]
        assert (shadow["pending"], shadow["mirrored"], shadow["matched"], twin.calls) == (0, 2, 2, 2)
        assert shadow["skipped"] == {"busy": 3}
        # slots given back: the next copy is taken again
        await up.call(read(9), CallContext(), discard)
        await settle(up)
        assert up.stage_status()["shadow"]["mirrored"] == 3  # type: ignore[index]
        assert "shadow_skipped_total" in metrics.render()

    asyncio.run(main())


def test_a_twin_slower_than_the_timeout_is_skipped_and_frees_its_slot() -> None:
    async def main() -> None:
        twin = Echo(asyncio.Event())  # never answers
        up, _, _ = staged(cap=1, timeout=0.05, twin=twin)
        await up.call(read(1), CallContext(), discard)
        await settle(up)
        shadow = up.stage_status()["shadow"]  # type: ignore[index]
        assert (shadow["pending"], shadow["mirrored"], shadow["skipped"]) == (0, 0, {"timeout": 1})
        await up.call(read(2), CallContext(), discard)  # the slot came back: a second copy is tried, not "busy"
        await settle(up)
        assert up.stage_status()["shadow"]["skipped"] == {"timeout": 2}  # type: ignore[index]

    asyncio.run(main())
