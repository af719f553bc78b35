"""Upstream credentials against the real authorization server (npm oidc-provider, tests/auth/as_server.mjs with its
client credentials and RFC 8693 token exchange options) and the protected sample servers of both eras (each accepts
only a token whose ``aud`` is its own URL, and answers ``whoami`` with the token's subject).

A caller holds a token issued for the bridge (its ``aud`` is the bridge's endpoint). Through the server's gateway
layer, the upstream is reached with a token for the upstream: with ``token_exchange`` the caller's own subject, with
``client_credentials`` the bridge's client; every bearer token the upstream was sent names the upstream as audience
and none is the caller's."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.gateway.upstream_auth import UpstreamCredentials
from mcp_eras.bridge.layers.policy import GatewayUpstream
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION
from mcp_eras.bridge.translate.gateway import upstream_auth as ua
from mcp_eras.bridge.upstream.factory import Target, make_upstream

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "auth"))
from parts import LEGACY, MODERN, SCOPE, AuthServer, auth_server, protected_server  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(600), pytest.mark.anyio]

BRIDGE_RESOURCE = "http://127.0.0.1:1/servers/files/mcp"
"""The bridge's own endpoint: the audience of the caller's token (never contacted here)."""
META = {META_PROTOCOL_VERSION: MODERN, META_CLIENT_CAPABILITIES: {}, META_CLIENT_INFO: {"name": "gateway-test", "version": "0"}}


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[AuthServer, dict[str, str]]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AS_CLIENT_CREDENTIALS", "1")
        mp.setenv("AS_TOKEN_EXCHANGE", "1")
        with auth_server() as issuer, protected_server(LEGACY, issuer.issuer) as legacy, \
                protected_server(MODERN, issuer.issuer) as modern:
            yield issuer, {LEGACY: legacy, MODERN: modern}


def register(issuer: str, grants: list[str]) -> tuple[str, str]:
    """A confidential client at the authorization server (RFC 7591), without redirect URIs."""
    meta = httpx.get(f"{issuer}.well-known/openid-configuration", timeout=30).json()
    answer = httpx.post(meta["registration_endpoint"], timeout=30, json={
        "grant_types": grants, "response_types": [], "redirect_uris": [], "token_endpoint_auth_method": "client_secret_basic",
        "scope": SCOPE})
    assert answer.status_code == 201, answer.text
    return answer.json()["client_id"], answer.json()["client_secret"]


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class Recorded(UpstreamCredentials):
    """The credentials, recording the ``Authorization`` value of every POST to the upstream (a 2025 session's DELETE
    when the upstream closes is made for no caller: it carries no token, as the era probe's request would not)."""

    sent: list[str | None]

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing.method == "POST":
                    self.sent.append(outgoing.headers.get("authorization"))
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return


async def whoami(url: str, era: str, creds: Recorded, ctx: CallContext) -> str:
    settings = Settings(upstream_era=era, request_timeout=60, connect_timeout=30)
    up = GatewayUpstream(make_upstream(Target(url=url, auth=creds, transport="streamable-http"), settings), "files")
    try:  # no start(): a 2025 upstream's provisional session would have no caller to exchange a token for
        answer = await up.call(jsonrpc.request(1, "tools/call", {"name": "whoami", "arguments": {}, "_meta": META}), ctx, _discard)
    finally:
        await up.aclose()
    assert "result" in answer, answer
    return str(answer["result"]["content"][0]["text"])


async def _discard(_msg: Any) -> None:
    return None


@pytest.mark.parametrize("era", [MODERN, LEGACY])
async def test_token_exchange_and_client_credentials_reach_the_upstream_with_its_own_audience(
        stack: tuple[AuthServer, dict[str, str]], era: str) -> None:
    issuer, urls = stack
    url = urls[era]
    caller_id, caller_secret = register(issuer.issuer, ["client_credentials"])
    bridge_id, bridge_secret = register(issuer.issuer, ["client_credentials", ua.TOKEN_EXCHANGE_GRANT])
    async with httpx.AsyncClient(timeout=30) as http:
        got = await http.post(f"{issuer.issuer}token", auth=(caller_id, caller_secret),
                              data={"grant_type": "client_credentials", "resource": BRIDGE_RESOURCE, "scope": SCOPE})
        token = got.json()["access_token"]
        direct = await http.post(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
                                 json=jsonrpc.request(1, "tools/list", {}))
    assert claims(token)["aud"] == BRIDGE_RESOURCE
    assert direct.status_code == 401  # the caller's token is for the bridge: the upstream refuses it
    ctx = CallContext(subject=f"{issuer.issuer}|{caller_id}", scopes=frozenset({SCOPE}), subject_token=token)

    exchanged = Recorded(ua.UpstreamAuth("token_exchange", client_id=bridge_id, client_secret=bridge_secret, issuer=issuer.issuer),
                         url, name="files")
    exchanged.sent = []
    exchanges = issuer.count(f"grant {ua.TOKEN_EXCHANGE_GRANT}")
    assert await whoami(url, era, exchanged, ctx) == f"{caller_id} via {era}"  # the caller's own subject, upstream's audience
    assert issuer.count(f"grant {ua.TOKEN_EXCHANGE_GRANT}") == exchanges + 1 == exchanges + exchanged.requests

    own = Recorded(ua.UpstreamAuth("client_credentials", client_id=bridge_id, client_secret=bridge_secret, scope=SCOPE), url,
                   name="files")
    own.sent = []
    assert await whoami(url, era, own, ctx) == f"{bridge_id} via {era}"  # the bridge's client, found from the metadata

    for sent in (exchanged.sent, own.sent):
        assert sent and all(value is not None and value.startswith("Bearer ") for value in sent)
        tokens = {value.split(" ", 1)[1] for value in sent if value}
        assert token not in tokens
        assert {claims(t)["aud"] for t in tokens} == {url}
    assert {claims(t)["sub"] for t in {v.split(" ", 1)[1] for v in exchanged.sent if v}} == {caller_id}
