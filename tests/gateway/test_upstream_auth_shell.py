"""``UpstreamCredentials`` in process: an upstream and an authorization server answered by one ``httpx.MockTransport``.
Client credentials: one token for every request, obtained once; token exchange: one token per caller, cached; a 401
drops the token and retries once with a new one; a failed token request leaves the request without a credential;
the token endpoint is found from the upstream's metadata; the caller's own token only ever reaches the token endpoint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from urllib.parse import parse_qs

import httpx
import pytest

from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.gateway.upstream_auth import UpstreamCredentials, calling_as
from mcp_eras.bridge.translate.gateway import upstream_auth as ua

pytestmark = pytest.mark.anyio

UPSTREAM = "http://upstream.test/mcp"
AS = "http://as.test/"


class World:
    """The authorization server (metadata, token endpoint) and the upstream, recording what each was sent."""

    def __init__(self, refuse_first: int = 0, fail_token: bool = False, lifetime: int = 600) -> None:
        self.token_forms: list[dict[str, str]] = []
        self.upstream_auth: list[str | None] = []
        self.refuse_first, self.fail_token, self.lifetime = refuse_first, fail_token, lifetime

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == "http://upstream.test/.well-known/oauth-protected-resource/mcp":
            return httpx.Response(200, json={"resource": UPSTREAM, "authorization_servers": [AS]})
        if url == "http://as.test/.well-known/oauth-authorization-server":
            return httpx.Response(200, json={"issuer": AS, "token_endpoint": "http://as.test/token",
                                             "token_endpoint_auth_methods_supported": ["client_secret_post"]})
        if url == "http://as.test/token":
            form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
            self.token_forms.append(form)
            if self.fail_token:
                return httpx.Response(400, json={"error": "invalid_grant", "error_description": "no"})
            n = len(self.token_forms)
            who = form.get("subject_token", "bridge")
            body = {"access_token": f"upstream-token-{n}-for-{who}", "token_type": "Bearer", "expires_in": self.lifetime}
            if form["grant_type"] == ua.TOKEN_EXCHANGE_GRANT:
                body["issued_token_type"] = ua.ACCESS_TOKEN_TYPE
            return httpx.Response(200, json=body)
        if url == UPSTREAM:
            self.upstream_auth.append(request.headers.get("authorization"))
            if self.refuse_first > 0:
                self.refuse_first -= 1
                return httpx.Response(401)
            return httpx.Response(200, json={"ok": True})
        return httpx.Response(404)


def clients(world: World, auth: ua.UpstreamAuth,
            clock: Callable[[], float] = lambda: 1000.0) -> tuple[httpx.AsyncClient, UpstreamCredentials]:
    transport = httpx.MockTransport(world.handle)
    creds = UpstreamCredentials(auth, UPSTREAM, name="files", http=httpx.AsyncClient(transport=transport), clock=clock)
    return httpx.AsyncClient(transport=transport, auth=creds), creds


def caller(name: str, token: str) -> CallContext:
    return CallContext(subject=f"{AS}|{name}", scopes=frozenset({"mcp:tools"}), subject_token=token)


async def test_client_credentials_one_token_for_every_request_found_from_the_upstreams_metadata() -> None:
    world = World()
    client, creds = clients(world, ua.UpstreamAuth("client_credentials", client_id="bridge", client_secret="s3cret"))
    await asyncio.gather(*(client.post(UPSTREAM, content=b"{}", headers={"Authorization": "Bearer callers"}) for _ in range(8)))
    assert len(world.token_forms) == 1 and creds.requests == 1  # concurrent requests wait for one token request
    form = world.token_forms[0]
    assert form == {"grant_type": "client_credentials", "resource": UPSTREAM, "client_id": "bridge", "client_secret": "s3cret"}
    assert set(world.upstream_auth) == {"Bearer upstream-token-1-for-bridge"}  # never the caller's header


async def test_a_refused_token_is_replaced_once() -> None:
    world = World(refuse_first=1)
    client, _ = clients(world, ua.UpstreamAuth("client_credentials", client_id="bridge", token_endpoint="http://as.test/token"))
    response = await client.post(UPSTREAM, content=b"{}")
    assert response.status_code == 200
    assert world.upstream_auth == ["Bearer upstream-token-1-for-bridge", "Bearer upstream-token-2-for-bridge"]
    world.refuse_first = 2
    assert (await client.post(UPSTREAM, content=b"{}")).status_code == 401  # only once: the second refusal is the answer


async def test_token_exchange_one_token_per_caller_cached_until_renewal() -> None:
    now = [1000.0]
    world = World(lifetime=120)
    auth = ua.UpstreamAuth("token_exchange", client_id="bridge", client_secret="s3cret", token_endpoint="http://as.test/token",
                           auth_method="client_secret_basic", audience="files-api")
    client, creds = clients(world, auth, clock=lambda: now[0])
    alice, bob = caller("alice", "alice-token-for-the-bridge"), caller("bob", "bob-token-for-the-bridge")
    for who in (alice, bob, alice, bob):
        with calling_as(who):
            await client.post(UPSTREAM, content=b"{}")
    assert [f["subject_token"] for f in world.token_forms] == ["alice-token-for-the-bridge", "bob-token-for-the-bridge"]
    assert world.token_forms[0]["audience"] == "files-api" and world.token_forms[0]["resource"] == UPSTREAM
    assert world.upstream_auth == ["Bearer upstream-token-1-for-alice-token-for-the-bridge",
                                   "Bearer upstream-token-2-for-bob-token-for-the-bridge",
                                   "Bearer upstream-token-1-for-alice-token-for-the-bridge",
                                   "Bearer upstream-token-2-for-bob-token-for-the-bridge"]
    assert not {"Bearer alice-token-for-the-bridge", "Bearer bob-token-for-the-bridge"} & set(world.upstream_auth)
    now[0] += 61  # past half of the 120 s lifetime: renewed with alice's newest token
    with calling_as(caller("alice", "alice-second-token")):
        await client.post(UPSTREAM, content=b"{}")
    assert world.token_forms[-1]["subject_token"] == "alice-second-token" and creds.requests == 3
    await client.post(UPSTREAM, content=b"{}")  # no caller (e.g. the era probe): no credential, no exchange
    assert world.upstream_auth[-1] is None and creds.requests == 3


async def test_a_task_started_for_a_caller_keeps_it_and_uses_the_callers_newest_token() -> None:
    world = World(lifetime=10)
    now = [0.0]
    client, _ = clients(world, ua.UpstreamAuth("token_exchange", client_id="bridge", token_endpoint="http://as.test/token"),
                        clock=lambda: now[0])
    go = asyncio.Event()

    async def session_task() -> None:  # like a 2025 session's own stream, opened by the caller's first call
        await go.wait()
        await client.post(UPSTREAM, content=b"{}")

    with calling_as(caller("alice", "alice-old")):
        task = asyncio.create_task(session_task())
    with calling_as(caller("alice", "alice-new")):
        pass
    go.set()
    await task
    assert world.token_forms[-1]["subject_token"] == "alice-new"
    assert world.upstream_auth == ["Bearer upstream-token-1-for-alice-new"]


async def test_a_failed_token_request_sends_no_credential_and_logs_no_secret(caplog: pytest.LogCaptureFixture) -> None:
    world = World(fail_token=True)
    client, _ = clients(world, ua.UpstreamAuth("token_exchange", client_id="bridge", client_secret="s3cret",
                                               token_endpoint="http://as.test/token"))
    with caplog.at_level(logging.INFO), calling_as(caller("alice", "alice-token")):
        response = await client.post(UPSTREAM, content=b"{}")
    assert response.status_code == 200 and world.upstream_auth == [None]
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "invalid_grant" in text and "alice-token" not in text and "s3cret" not in text
    assert len(world.token_forms) == 1  # the exchange was attempted


async def test_header_mode_and_none_obtain_no_tokens() -> None:
    with pytest.raises(ValueError, match="obtains no tokens"):
        UpstreamCredentials(ua.UpstreamAuth("header", value="Bearer x"), UPSTREAM)
