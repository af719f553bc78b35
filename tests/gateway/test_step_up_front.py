"""The HTTP front's step-up refusal (issue 34, follow-up): behind a resource server, a 2026 client's ``tools/call`` that
the server's policy refuses for a scope its token lacks gets 403 with ``WWW-Authenticate: Bearer
error="insufficient_scope", scope=..., resource_metadata=...`` (2026-07-28 basic/authorization "Step-Up Authorization
Flow"; RFC 6750 section 3.1) and the named JSON-RPC error as its body, decided from the request before any response
starts: also when the answer would have been a stream (a layer above the policy sends a notification first). The call
never reaches the upstream and is audited exactly once. A tool no scope opens, a caller the front checked no token of,
and a call the caller may make keep their ordinary answers.

In process: the single front (``front.http.build_app``) over ``GatewayUpstream``, the validated caller set as the
resource-server guard sets it (``gateway.identity.CALLER``), so the policy's decision and the HTTP answer are what is
under test (the guard's token checks: test_resource_guard.py; the fleet end to end: test_policy_fleet.py)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, find
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.gateway.audit import AUDIT_LOGGER, AuditLog
from mcp_eras.bridge.gateway.identity import CALLER, Caller
from mcp_eras.bridge.layers.policy import GatewayUpstream
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.gateway import policy as gp
from mcp_eras.bridge.translate.jsonrpc import Message

pytestmark = pytest.mark.anyio

AUDIENCE = "https://gw.example/mcp"
METADATA = "https://gw.example/.well-known/oauth-protected-resource/mcp"
POLICY = gp.ToolPolicy.of(deny=["drop_all"], scopes={"write": "files:write"})


class Recording(Upstream):
    """The server: records each call it receives and answers it."""

    era = eras.MODERN

    def __init__(self) -> None:
        self.calls: list[Message] = []

    async def start(self) -> None:
        return None

    async def discover(self, ctx: CallContext) -> Message:
        return {"jsonrpc": "2.0", "id": 0, "result": {}}

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        self.calls.append(request)
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": "done"}]}}

    async def aclose(self) -> None:
        return None


class Chatty(Upstream):
    """A layer above the policy that reports progress before it passes a call on: the front streams (SSE) such calls,
    so a refusal coming back from the policy layer would sit inside a 200 stream."""

    wraps = True
    era = eras.MODERN

    def __init__(self, inner: Upstream) -> None:
        self.inner = inner

    async def start(self) -> None:
        return None

    async def discover(self, ctx: CallContext) -> Message:
        return await self.inner.discover(ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        token = (request.get("params") or {}).get("_meta", {}).get("progressToken")
        if token is not None:
            await emit({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 0}})
        return await self.inner.call(request, ctx, emit)

    async def aclose(self) -> None:
        return None


@pytest.fixture
def audit(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.INFO, logger=AUDIT_LOGGER):
        yield caplog


def stack(chatty: bool = False) -> tuple[Recording, GatewayUpstream, Upstream]:
    server = Recording()
    gated = GatewayUpstream(server, "upstream", POLICY, AuditLog())
    return server, gated, Chatty(gated) if chatty else gated


async def post(upstream: Upstream, tool: str, scopes: set[str] | None, *, progress: bool = False,
               protected: bool = True, version: str = eras.MODERN) -> httpx.Response:
    """``tools/call tool`` from a 2026 client whose validated token grants ``scopes`` (None: the front checked no
    token), to a single front that is (``protected``) or is not a resource server."""
    settings = Settings(auth_issuer="https://login.example/", auth_audience=AUDIENCE) if protected else Settings()
    app = build_app(settings, upstream)
    app.user_middleware.clear()  # no token checks here: the caller is set below, as the guard sets it
    meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": eras.MODERN, "io.modelcontextprotocol/clientCapabilities": {},
                            "io.modelcontextprotocol/clientInfo": {"name": "step-up-test", "version": "1"}}
    if progress:
        meta["progressToken"] = "p1"
    params: dict[str, Any] = {"name": tool, "arguments": {}, "_meta": meta}
    msg = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": version, "Mcp-Method": "tools/call", "Mcp-Name": tool}

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        token = CALLER.set(Caller("https://login.example/|reader", frozenset(scopes), "tok") if scopes is not None else None)
        try:
            await app(scope, receive, send)
        finally:
            CALLER.reset(token)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url="http://127.0.0.1") as client:
        return await client.post("/mcp", content=json.dumps(msg), headers=headers)


def rpc_of(resp: httpx.Response) -> Message:
    """The JSON-RPC response of a JSON or an SSE answer."""
    if resp.headers["content-type"].startswith("text/event-stream"):
        events = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")]
        return next(e for e in events if "id" in e and "method" not in e)
    return resp.json()


def audited(caplog: pytest.LogCaptureFixture) -> list[tuple[str | None, str]]:
    return [(r.tool, r.outcome) for r in caplog.records if r.name == AUDIT_LOGGER]  # type: ignore[attr-defined]


@pytest.mark.parametrize("streams", [False, True], ids=["json", "would-stream"])
async def test_a_missing_scope_is_403_with_the_challenge_before_any_stream(audit: pytest.LogCaptureFixture, streams: bool) -> None:
    server, _, top = stack(chatty=streams)
    resp = await post(top, "write", {"mcp:tools"}, progress=streams)
    assert resp.status_code == 403, (resp.status_code, resp.text)
    assert resp.headers["content-type"].startswith("application/json")
    challenge = resp.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="insufficient_scope"' in challenge
    assert 'scope="files:write"' in challenge and f'resource_metadata="{METADATA}"' in challenge
    body = resp.json()
    assert body["id"] == 7 and body["error"]["code"] == gp.POLICY_DENIED
    assert body["error"]["data"] == {"error": "insufficient_scope", "tool": "write", "httpStatus": 403, "scope": "files:write"}
    assert server.calls == []  # never reached the server
    assert audited(audit) == [("write", "denied")]  # exactly one audit line: the front's


async def test_the_step_up_caller_then_gets_through_audited_once(audit: pytest.LogCaptureFixture) -> None:
    server, _, top = stack(chatty=True)
    resp = await post(top, "write", {"mcp:tools", "files:write"}, progress=True)
    assert resp.status_code == 200 and "result" in rpc_of(resp), resp.text
    assert [c["params"]["name"] for c in server.calls] == ["write"]
    assert audited(audit) == [("write", "ok")]


async def test_a_tool_no_scope_opens_keeps_the_named_error_from_the_layer(audit: pytest.LogCaptureFixture) -> None:
    server, _, top = stack()
    resp = await post(top, "drop_all", {"mcp:tools", "files:write"})
    assert resp.status_code == 200 and "www-authenticate" not in resp.headers
    assert rpc_of(resp)["error"]["data"]["error"] == gp.NOT_ALLOWED
    assert server.calls == [] and audited(audit) == [("drop_all", "denied")]


@pytest.mark.parametrize("case", ["no-token-checked", "front-not-protected"])
async def test_without_a_validated_caller_the_refusal_is_an_ordinary_answer(audit: pytest.LogCaptureFixture, case: str) -> None:
    server, _, top = stack()
    if case == "no-token-checked":
        resp = await post(top, "write", None)
    else:
        resp = await post(top, "write", {"mcp:tools"}, protected=False)
    assert resp.status_code == 200 and "www-authenticate" not in resp.headers, resp.text
    assert rpc_of(resp)["error"]["data"]["error"] == gp.INSUFFICIENT_SCOPE
    assert server.calls == [] and audited(audit) == [("write", "denied")]


def test_the_front_finds_the_policy_layer_under_other_layers() -> None:
    _, gated, top = stack(chatty=True)
    assert find(top, GatewayUpstream) is gated and find(gated, GatewayUpstream) is gated
    assert find(Recording(), GatewayUpstream) is None


def test_the_pure_decision_refuses_only_what_a_scope_would_open() -> None:
    def call(name: Any) -> Message:
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}}

    refused = gp.scope_refusal(POLICY, frozenset({"mcp:tools"}), call("write"))
    assert refused == jsonrpc.error_response(1, gp.POLICY_DENIED, "Forbidden: tool 'write' needs scope 'files:write'",
                                             {"error": "insufficient_scope", "tool": "write", "httpStatus": 403, "scope": "files:write"})
    assert gp.scope_refusal(POLICY, frozenset({"files:write"}), call("write")) is None
    assert gp.scope_refusal(POLICY, frozenset(), call("drop_all")) is None  # no scope opens it: the layer's answer
    assert gp.scope_refusal(POLICY, frozenset(), call(5)) is None
    assert gp.scope_refusal(POLICY, frozenset(), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) is None
