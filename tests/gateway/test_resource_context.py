"""What a resource-server front hands the upstream (in process, over ``FakeUpstream``): the validated subject, its
scopes and the token (for a token exchange only) in the call's context, a principal that is a digest of the subject
(not of the token: a refreshed token is the same caller), and no ``authorization`` to forward -- for a 2026 request
and a 2025 session alike. Without --auth-issuer the front is as before: the header is forwarded."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "inprocess"))
from fakes import FakeUpstream  # noqa: E402
from resource_issuer import Issuer, issuer  # noqa: E402

from mcp_eras.bridge.config import Settings  # noqa: E402
from mcp_eras.bridge.core import CallContext  # noqa: E402
from mcp_eras.bridge.front.http import build_app  # noqa: E402
from mcp_eras.bridge.front.legacy import LegacyHttpFront  # noqa: E402

BASE = "http://127.0.0.1:8000"
URL = f"{BASE}/mcp"
MODERN, LEGACY = "2026-07-28", "2025-11-25"


@pytest.fixture(scope="module")
def stub() -> Iterator[Issuer]:
    with issuer() as state:
        yield state


def app(upstream: FakeUpstream, **auth: Any) -> TestClient:
    settings = Settings(**auth)
    return TestClient(build_app(settings, upstream, LegacyHttpFront(upstream, settings)), base_url=BASE)


def modern_call(client: TestClient, headers: dict[str, str]) -> int:
    msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}}
    resp = client.post("/mcp", json=msg, headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN,
                                                 "Mcp-Method": "tools/call", "Mcp-Name": "echo", **headers})
    return resp.status_code


def legacy_call(client: TestClient, headers: dict[str, str]) -> int:
    accept = {"Accept": "application/json, text/event-stream", **headers}
    init = client.post("/mcp", headers=accept, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert init.status_code == 200, init.text
    session = {**accept, "Mcp-Session-Id": init.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    client.post("/mcp", headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return client.post("/mcp", headers=session, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                      "params": {"name": "echo", "arguments": {"text": "hi"}}}).status_code


def tool_contexts(upstream: FakeUpstream) -> list[CallContext]:
    return [ctx for request, ctx in upstream.calls if request.get("method") == "tools/call"]


@pytest.mark.parametrize("call", [modern_call, legacy_call], ids=["2026", "2025"])
def test_the_call_context_carries_the_subject_not_the_token(stub: Issuer, call: Any) -> None:
    upstream = FakeUpstream()
    token = stub.token(URL, sub="alice", scope="mcp:tools extra")
    with app(upstream, auth_issuer=stub.url, auth_audience=URL) as client:
        assert call(client, {"Authorization": f"Bearer {token}"}) == 200
    [ctx] = tool_contexts(upstream)
    subject = f"{stub.url}|alice"
    assert ctx.subject == subject and ctx.scopes == frozenset({"mcp:tools", "extra"})
    assert ctx.authorization is None and ctx.subject_token == token and token not in repr(ctx)
    assert ctx.principal == hashlib.sha256(subject.encode()).hexdigest()[:32]


def test_a_refreshed_token_is_the_same_principal(stub: Issuer) -> None:
    upstream = FakeUpstream()
    with app(upstream, auth_issuer=stub.url, auth_audience=URL) as client:
        for lifetime in (300, 600):
            assert modern_call(client, {"Authorization": f"Bearer {stub.token(URL, lifetime=lifetime)}"}) == 200
    first, second = tool_contexts(upstream)
    assert first.subject_token != second.subject_token and first.principal == second.principal


@pytest.mark.parametrize("call", [modern_call, legacy_call], ids=["2026", "2025"])
def test_without_auth_the_header_is_forwarded_as_before(call: Any) -> None:
    upstream = FakeUpstream()
    with app(upstream) as client:
        assert call(client, {"Authorization": "Bearer anything"}) == 200
    [ctx] = tool_contexts(upstream)
    assert ctx.authorization == "Bearer anything" and ctx.subject is None and ctx.subject_token is None
    assert ctx.principal == CallContext.principal_of("Bearer anything")
