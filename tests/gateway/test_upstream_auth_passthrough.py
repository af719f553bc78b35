"""No token passthrough (2026-07-28 basic/authorization "Token Passthrough"): behind a resource server (a validated
``subject`` in the CallContext) the caller's ``Authorization`` never reaches an upstream of either era; with no token
checked at the front (the transparent mode) it is forwarded as before."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.modern_http import forwarded_authorization
from mcp_eras.bridge.upstream.factory import Target, legacy_upstream
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream

CALLER = "Bearer caller-token-for-the-bridge"
TRANSPARENT = CallContext(principal="p", authorization=CALLER)
PROTECTED = CallContext(principal="p", authorization=CALLER, subject="https://as|alice", scopes=frozenset({"mcp:tools"}),
                        subject_token="caller-token-for-the-bridge")


def test_forwarded_authorization_only_in_the_transparent_mode() -> None:
    assert forwarded_authorization(CALLER, None) == CALLER
    assert forwarded_authorization(CALLER, "https://as|alice") is None
    assert forwarded_authorization(None, None) is None


def recording_client(seen: list[dict[str, str]]) -> httpx.AsyncClient:
    """An HTTP client whose server records each request's headers and answers an empty tools/list."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.headers))
        body = jsonrpc.loads(request.content)
        result = {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}
        return httpx.Response(200, json=jsonrpc.result_response(body["id"], result))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


@pytest.mark.anyio
async def test_a_2026_upstream_never_sees_the_callers_token_behind_a_resource_server() -> None:
    seen: list[dict[str, str]] = []
    up = ModernHttpUpstream("http://upstream.test/mcp", Settings(), headers={"X-Static": "yes"})
    up._client = recording_client(seen)  # noqa: SLF001 - the upstream's HTTP client, answered in process
    try:
        request: dict[str, Any] = jsonrpc.request(1, "tools/list", {})
        await up.call(request, PROTECTED, _discard)
        await up.call(request, TRANSPARENT, _discard)
    finally:
        await up.aclose()
    assert "authorization" not in seen[0] and seen[0]["x-static"] == "yes"
    assert seen[1]["authorization"] == CALLER


def test_a_2025_upstreams_sessions_never_carry_the_callers_token_behind_a_resource_server() -> None:
    up = legacy_upstream(Target(url="http://127.0.0.1:9/mcp", headers={"X-Static": "yes"}), Settings())
    assert up.transport_factory is not None
    protected, transparent = up.transport_factory(PROTECTED), up.transport_factory(TRANSPARENT)
    assert "Authorization" not in protected.headers and protected.headers["X-Static"] == "yes"
    assert transparent.headers["Authorization"] == CALLER


async def _discard(_msg: Any) -> None:
    return None
