"""#10 leftover, in process: 2,000 input-capable callers of one identity arrive at once and queue for
its upstream sessions' input leases (a few sessions, each running one input-capable call at a time).
Every caller is answered (its own text, not another's) or refused by name; the pool ends idle.
The wall time is printed (``-s``) for the closing note; nothing here asserts on it."""

from __future__ import annotations

import asyncio
import time

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.translate.legacy_server.pool import LIMIT_ERROR, Limits
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

pytestmark = pytest.mark.anyio
ASK = {"elicitation": {}}
ALICE = CallContext(principal="alice")
CALLERS = 2_000


async def test_two_thousand_waiters_on_one_identity_are_each_answered_once() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(request_timeout=120.0), name="fake", limits=Limits(per_identity_sessions=4))
    started = time.perf_counter()
    answers = await asyncio.gather(*[up.call(tools_call(i, "echo", ASK, text=f"c{i}"), ALICE, discard) for i in range(CALLERS)])
    elapsed = time.perf_counter() - started
    print(f"\n{CALLERS} concurrent input-capable callers on one identity: {elapsed:.2f} s")
    refused = 0
    for i, answer in enumerate(answers):
        assert answer["id"] == i
        if "error" in answer:
            assert answer["error"]["code"] == LIMIT_ERROR and answer["error"]["data"]["limit"], answer
            refused += 1
        else:
            assert answer["result"]["content"][0]["text"] == f"c{i}"
    assert refused == 0  # the deadline is generous: nobody should have to be turned away
    assert len(bank.made) <= 4
    assert all(rec.lease is None and not rec.calls for rec in up.pool.sessions.values())
    await up.aclose()
