"""``GatewayUpstream`` in process, over a recording upstream: a call outside policy is answered by the layer and
never reaches the upstream; ``tools/list`` differs between two callers exactly by policy, for clients of both eras;
the upstream sees a principal derived from the validated subject; every call writes one audit line (no arguments
unless asked, never a token); the caller is known to the upstream credentials while the call runs."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.gateway.audit import AuditLog
from mcp_eras.bridge.gateway.upstream_auth import CALLER
from mcp_eras.bridge.layers.policy import GatewayUpstream, subject_context
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.gateway import policy as gp
from mcp_eras.bridge.translate.jsonrpc import Message

pytestmark = pytest.mark.anyio

TOOLS = ("search", "write", "admin_logs", "delete")
POLICY = gp.ToolPolicy.of(deny=["delete"], scopes={"write": "files:write", "admin_*": "admin"})
TOKEN = "eyJ-the-callers-validated-token"


class Recording(Upstream):
    era = eras.LEGACY

    def __init__(self) -> None:
        self.calls: list[tuple[Message, CallContext, CallContext | None]] = []

    async def start(self) -> None:
        return None

    async def discover(self, ctx: CallContext) -> Message:
        return {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        self.calls.append((request, ctx, CALLER.get()))
        if request["method"] == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in TOOLS]
            return jsonrpc.result_response(request["id"], {"resultType": "complete", "tools": tools, "ttlMs": 0,
                                                           "cacheScope": "public"})
        return jsonrpc.result_response(request["id"], {"resultType": "complete", "content": []})

    async def aclose(self) -> None:
        return None


def caller(name: str, scopes: set[str], era: str = eras.MODERN) -> CallContext:
    return CallContext(principal="digest-of-a-token", subject=f"https://as.test/|{name}", scopes=frozenset(scopes),
                       subject_token=TOKEN, client_era=era)


async def _discard(_msg: Message) -> None:
    return None


def call(method: str, rid: int = 1, **params: Any) -> Message:
    return jsonrpc.request(rid, method, params)


@pytest.mark.parametrize("era", [eras.MODERN, eras.LEGACY])
async def test_listing_differs_exactly_by_policy_and_denied_calls_never_reach_the_upstream(era: str) -> None:
    inner = Recording()
    up = GatewayUpstream(inner, "files", POLICY)
    reader, admin = caller("reader", set(), era), caller("admin", {"files:write", "admin"}, era)
    listed = {}
    for who in (reader, admin):
        answer = await up.call(call("tools/list"), who, _discard)
        listed[who.subject] = [t["name"] for t in answer["result"]["tools"]]
        assert answer["result"]["cacheScope"] == "private"
    assert listed[reader.subject] == ["search"]
    assert listed[admin.subject] == ["search", "write", "admin_logs"]
    reached = len(inner.calls)
    refused = await up.call(call("tools/call", 5, name="write", arguments={}), reader, _discard)
    assert refused["id"] == 5 and refused["error"]["data"]["scope"] == "files:write"
    blocked = await up.call(call("tools/call", 6, name="delete", arguments={}), admin, _discard)
    assert blocked["error"]["data"]["error"] == "tool_not_allowed"
    assert len(inner.calls) == reached  # neither refusal reached the upstream
    done = await up.call(call("tools/call", 7, name="write", arguments={}), admin, _discard)
    assert "result" in done and inner.calls[-1][0]["params"]["name"] == "write"


async def test_the_upstream_sees_the_subject_as_principal_and_as_the_caller() -> None:
    inner = Recording()
    up = GatewayUpstream(inner, "files")
    alice, alice_again = caller("alice", set()), CallContext(principal="digest-of-another-token", subject="https://as.test/|alice")
    await up.call(call("tools/call", name="search"), alice, _discard)
    await up.call(call("tools/call", name="search"), alice_again, _discard)
    (_, first, during), (_, second, _) = inner.calls
    assert first.principal == second.principal == CallContext.principal_of("https://as.test/|alice")  # one key per subject
    assert during is not None and during.subject == alice.subject
    assert CALLER.get() is None  # only while the call runs
    transparent = CallContext(principal="p", authorization="Bearer x")
    assert subject_context(transparent) is transparent


async def test_one_audit_line_per_call_without_arguments_or_tokens(caplog: pytest.LogCaptureFixture) -> None:
    inner = Recording()
    up = GatewayUpstream(inner, "files", POLICY, AuditLog())
    who = caller("reader", set(), eras.LEGACY)
    with caplog.at_level(logging.INFO, logger="mcp_eras.audit"):
        await up.call(call("tools/call", 1, name="search", arguments={"q": "secret-query"}), who, _discard)
        await up.call(call("tools/call", 2, name="write", arguments={"q": "secret-query"}), who, _discard)
        await up.call(call("tools/list", 3), who, _discard)
    lines = [r for r in caplog.records if r.name == "mcp_eras.audit"]
    assert [(r.method, r.tool, r.outcome) for r in lines] == [  # type: ignore[attr-defined]
        ("tools/call", "search", "ok"), ("tools/call", "write", "denied"), ("tools/list", None, "ok")]
    first = lines[0]
    assert first.principal == who.subject and first.server == "files"  # type: ignore[attr-defined]
    assert first.client_era == eras.LEGACY and first.upstream_era == eras.LEGACY  # type: ignore[attr-defined]
    assert first.duration_ms >= 0  # type: ignore[attr-defined]
    text = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in lines)
    assert "secret-query" not in text and TOKEN not in text and not hasattr(first, "arguments")


async def test_audit_arguments_when_asked_and_cancelled_calls(caplog: pytest.LogCaptureFixture) -> None:
    class Hanging(Recording):
        async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    up = GatewayUpstream(Recording(), "files", audit=AuditLog(with_arguments=True))
    hung = GatewayUpstream(Hanging(), "files", audit=AuditLog())
    with caplog.at_level(logging.INFO, logger="mcp_eras.audit"):
        await up.call(call("tools/call", 1, name="search", arguments={"q": "x"}), caller("a", set()), _discard)
        task = asyncio.create_task(hung.call(call("tools/call", 2, name="search"), caller("a", set()), _discard))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    lines = [r for r in caplog.records if r.name == "mcp_eras.audit"]
    assert lines[0].arguments == {"q": "x"}  # type: ignore[attr-defined]
    assert lines[1].outcome == "cancelled"  # type: ignore[attr-defined]


async def test_list_changed_notifications_pass_and_the_next_listing_is_filtered_again() -> None:
    class Changing(Recording):
        tools = ["search"]

        async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
            if request["method"] == "subscriptions/listen":
                self.tools = ["search", "write", "wipe"]
                await emit(jsonrpc.notification("notifications/tools/list_changed", {}))
                return jsonrpc.result_response(request["id"], {"resultType": "complete"})
            listed = [{"name": n, "inputSchema": {"type": "object"}} for n in self.tools]
            return jsonrpc.result_response(request["id"], {"resultType": "complete", "tools": listed})

    up = GatewayUpstream(Changing(), "files", gp.ToolPolicy.of(deny=["wipe"], scopes={"write": "files:write"}))
    who = caller("reader", set(), eras.LEGACY)
    seen: list[Message] = []

    async def emit(msg: Message) -> None:
        seen.append(msg)

    await up.call(call("subscriptions/listen", 1, notifications={"toolsListChanged": True}), who, emit)
    assert [m["method"] for m in seen] == ["notifications/tools/list_changed"]
    after = await up.call(call("tools/list", 2), who, _discard)
    assert [t["name"] for t in after["result"]["tools"]] == ["search"]
    writer = await up.call(call("tools/list", 3), caller("writer", {"files:write"}, eras.LEGACY), _discard)
    assert [t["name"] for t in writer["result"]["tools"]] == ["search", "write"]
