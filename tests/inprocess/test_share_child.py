"""Issue #30: ``share_child`` -- every caller of a 2025 upstream shares one session (one stdio child), whatever its
identity; a server request reaches the caller whose call it belongs to, among concurrent callers; one that cannot be
attributed is declined, never carried to another caller."""

from __future__ import annotations

import asyncio

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

pytestmark = pytest.mark.anyio
ASKABLE = {"elicitation": {}}


def as_client(rid: int, name: str, tool: str = "echo", caps: dict | None = None, principal: str = "") -> tuple[dict, CallContext]:
    request = tools_call(rid, tool, ASKABLE if caps is None else caps, text=name)
    request["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = {"name": name, "version": "1"}
    return request, CallContext(principal=principal or None)


async def answer(up: LegacyUpstream, request: dict, ctx: CallContext, first: dict, action: str) -> dict:
    (key,) = first["result"]["inputRequests"]
    retry = {**request, "id": request["id"] + 100, "params": {**request["params"], "requestState": first["result"]["requestState"],
                                                              "inputResponses": {key: {"action": action}}}}
    return await up.call(retry, ctx, discard)


async def test_every_identity_shares_one_child() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(share_child=True), name="fake")
    for rid, (name, principal) in enumerate((("a", "alice"), ("b", "bob"), ("c", "")), 1):
        request, ctx = as_client(rid, name, principal=principal)
        assert "result" in await up.call(request, ctx, discard)
    assert len(bank.made) == 1 and bank.peak == 1
    await up.aclose()


async def test_an_elicitation_reaches_the_caller_whose_call_asked() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(share_child=True), name="fake")
    (ra, ca), (rb, cb) = as_client(1, "a", "ask", principal="alice"), as_client(2, "b", "ask", principal="bob")
    first_a, first_b = await asyncio.gather(up.call(ra, ca, discard), up.call(rb, cb, discard))
    for first in (first_a, first_b):
        assert first["result"]["resultType"] == "input_required", first
    done_b = await answer(up, rb, cb, first_b, "decline")
    done_a = await answer(up, ra, ca, first_a, "accept")
    assert done_a["result"]["content"][0]["text"] == "accept" and done_b["result"]["content"][0]["text"] == "decline"
    assert len(bank.made) == 1
    await up.aclose()


async def test_a_request_no_call_can_be_named_for_is_declined() -> None:
    bank = TransportBank()
    up = LegacyUpstream(bank, Settings(share_child=True), name="fake")
    blocking = [asyncio.ensure_future(up.call(*as_client(i, n, "block", caps={}), discard)) for i, n in ((1, "a"), (2, "b"))]
    for _ in range(2):
        await asyncio.wait_for(bank.blocked.get(), 10)
    server = bank.made[0].server
    await server._say(jsonrpc.request(777, "elicitation/create", {"mode": "form", "message": "whose?",
                                                                    "requestedSchema": {"type": "object"}}), None)
    refusal = await asyncio.wait_for(server.answers.get(), 10)
    assert refusal == {"jsonrpc": "2.0", "id": 777, "result": {"action": "cancel"}}
    assert up.pool.refused["unattributed"] == 1
    server.release.set()
    for call in blocking:
        assert "result" in await call
    await up.aclose()
