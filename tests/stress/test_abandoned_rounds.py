"""#10 acceptance 1 at full volume, in process: 2,000 abandoned ``input_required`` rounds from one
identity (arriving a few at a time, as clients that close the dialog do), then a normal input-capable
call from the same identity and one from another identity are both answered, within the request
timeout; parked calls stay at their cap and the released ones were answered upstream."""

from __future__ import annotations

import asyncio
import resource

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.translate.legacy_server.pool import Limits
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

pytestmark = pytest.mark.anyio
ASK = {"elicitation": {}}
ALICE = CallContext(principal="alice")


async def test_two_thousand_abandoned_rounds_lock_nobody_out() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(request_timeout=5.0), name="fake",
                        limits=Limits(per_identity_sessions=8, parked_per_identity=8, parked_total=16))
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for batch in range(250):
        firsts = await asyncio.gather(*[up.call(tools_call(batch * 8 + i, "ask", ASK), ALICE, discard) for i in range(8)])
        assert {f["result"]["resultType"] for f in firsts} == {"input_required"}
    status = up.status()
    assert status["parked"] == 8 and status["refused"].get("parked_per_identity", 0) == 1992
    assert len(bank.made) <= 8
    async with asyncio.timeout(5):  # both within the request timeout: nobody waits on the abandoned rounds
        same = await up.call(tools_call(9000, "echo", ASK, text="same"), ALICE, discard)
        other = await up.call(tools_call(9001, "echo", ASK, text="other"), CallContext(principal="bob"), discard)
    assert same["result"]["content"][0]["text"] == "same" and other["result"]["content"][0]["text"] == "other"
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert grown_mb < 64, f"peak RSS grew {grown_mb:.0f} MB over 2,000 abandoned rounds"
    await up.aclose()
