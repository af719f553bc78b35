"""The auth shell end to end in one process: ``UpstreamOAuth`` on an httpx client, the runner, the real
loopback listener and token store, against a small ASGI authorization server and protected MCP resource.

Why in-process here: these tests need to steer the peer -- a test clock for expiry and refresh, step-up
on a chosen method, counting every grant, a second host that must never see the token -- which a real
authorization server does not offer from outside. The real peer (npm ``oidc-provider`` protecting real
2025 and 2026 servers) is exercised by the end-to-end tests; this file covers the shell's own logic.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import anyio.from_thread
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcp_eras.bridge.auth import OAuthOptions, SignInRunner, UpstreamOAuth, redact
from mcp_eras.bridge.auth.httpx_auth import SignInFailed

AS, RS, OTHER = "https://as.test", "https://rs.test", "https://other.test"
MCP = RS + "/mcp"


def at(n: int) -> str:
    return f"at-{n}-0123456789abcdef"  # tokens as long as real ones: the log redaction ignores very short strings


def rt(n: int) -> str:
    return f"rt-{n}-fedcba9876543210"


class Peer:
    """An authorization server and a protected resource sharing a test clock."""

    def __init__(self, as_url: str = AS, rs_url: str = RS) -> None:
        self.as_url, self.rs_url, self.mcp_url = as_url, rs_url, rs_url + "/mcp"
        self.now = 1000.0
        self.lifetime = 3600
        self.clients: dict[str, list[str]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, dict[str, Any]] = {}
        self.refresh: dict[str, dict[str, Any]] = {}
        self.grants: list[str] = []
        self.authorize_scopes: list[str | None] = []
        self.other_auth: list[str | None] = []
        self.rs_auth: list[str | None] = []

    # -- authorization server --
    async def as_metadata(self, request: Request) -> Response:
        return JSONResponse({
            "issuer": self.as_url, "authorization_endpoint": self.as_url + "/authorize", "token_endpoint": self.as_url + "/token",
            "registration_endpoint": self.as_url + "/register", "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": True, "response_types_supported": ["code"],
        })

    async def register(self, request: Request) -> Response:
        body = await request.json()
        client_id = f"client-{len(self.clients) + 1}"
        self.clients[client_id] = body["redirect_uris"]
        return JSONResponse({"client_id": client_id, **body}, status_code=201)

    async def authorize(self, request: Request) -> Response:
        q = request.query_params
        assert q["redirect_uri"] in self.clients[q["client_id"]] and q["code_challenge_method"] == "S256"
        assert q["resource"] == self.mcp_url
        code = f"code-{len(self.codes) + 1}"
        self.codes[code] = {"challenge": q["code_challenge"], "scope": q.get("scope"), "client": q["client_id"]}
        self.authorize_scopes.append(q.get("scope"))
        return RedirectResponse(q["redirect_uri"] + "?" + urlencode({"code": code, "state": q["state"], "iss": self.as_url}), 302)

    async def token(self, request: Request) -> Response:
        form = await request.form()
        assert form["resource"] == self.mcp_url
        self.grants.append(str(form["grant_type"]))
        if form["grant_type"] == "authorization_code":
            grant = self.codes.pop(str(form["code"]))
            verifier = str(form["code_verifier"]).encode()
            assert base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode() == grant["challenge"]
        else:
            grant = self.refresh.pop(str(form["refresh_token"]), None)
            if grant is None:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
        n = len(self.grants)  # one token per grant, numbered in order
        self.tokens[at(n)] = {"scope": grant["scope"] or "", "expires": self.now + self.lifetime}
        self.refresh[rt(n)] = grant
        return JSONResponse({"access_token": at(n), "token_type": "Bearer", "expires_in": self.lifetime,
                             "refresh_token": rt(n), "scope": grant["scope"] or ""})

    # -- protected resource --
    async def prm(self, request: Request) -> Response:
        return JSONResponse({"resource": self.mcp_url, "authorization_servers": [self.as_url], "scopes_supported": ["mcp:read"]})

    async def mcp(self, request: Request) -> Response:
        header = request.headers.get("authorization")
        self.rs_auth.append(header)
        body = await request.json()
        meta = f'resource_metadata="{self.rs_url}/.well-known/oauth-protected-resource/mcp"'
        token = self.tokens.get((header or "")[len("Bearer "):])
        if token is None or token["expires"] <= self.now:
            return JSONResponse({"error": "invalid_token"}, status_code=401, headers={"WWW-Authenticate": f'Bearer {meta}'})
        if body.get("method") == "tools/call" and "mcp:write" not in token["scope"].split():
            challenge = f'Bearer error="insufficient_scope", scope="mcp:write", {meta}'
            return JSONResponse({"error": "insufficient_scope"}, status_code=403, headers={"WWW-Authenticate": challenge})
        return JSONResponse({"jsonrpc": "2.0", "id": body.get("id"), "result": {}})

    async def other(self, request: Request) -> Response:
        self.other_auth.append(request.headers.get("authorization"))
        return JSONResponse({})

    def as_routes(self) -> list[Route]:
        return [
            Route("/.well-known/oauth-authorization-server", self.as_metadata),
            Route("/register", self.register, methods=["POST"]),
            Route("/authorize", self.authorize),
            Route("/token", self.token, methods=["POST"]),
        ]

    def rs_routes(self) -> list[Route]:
        return [Route("/.well-known/oauth-protected-resource/mcp", self.prm), Route("/mcp", self.mcp, methods=["POST"])]

    def transport(self) -> httpx.AsyncBaseTransport:
        apps = {
            "as.test": Starlette(routes=self.as_routes()),
            "rs.test": Starlette(routes=self.rs_routes()),
            "other.test": Starlette(routes=[Route("/{path:path}", self.other, methods=["GET", "POST"])]),
        }
        return _Router({host: httpx.ASGITransport(app=app) for host, app in apps.items()})


class _Router(httpx.AsyncBaseTransport):
    def __init__(self, by_host: dict[str, httpx.ASGITransport]) -> None:
        self.by_host = by_host

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.by_host[request.url.host].handle_async_request(request)


class Browser:
    """A headless user agent: follows the authorization URL to its redirect and delivers it to the listener."""

    def __init__(self, transport: httpx.AsyncBaseTransport) -> None:
        self.transport = transport
        self.opened: list[str] = []

    def __call__(self, url: str) -> None:  # called in a worker thread, like webbrowser.open
        self.opened.append(url)
        anyio.from_thread.run(self._follow, url)

    async def _follow(self, url: str) -> None:
        async with httpx.AsyncClient(transport=self.transport) as agent:
            answer = await agent.get(url)
        assert answer.status_code == 302
        async with httpx.AsyncClient() as loopback:  # the real listener on 127.0.0.1
            done = await loopback.get(answer.headers["location"])
        assert done.status_code == 200


@pytest.fixture
def peer() -> Peer:
    return Peer()


def make(peer: Peer, store_dir: Path, operator_authorization: bool = False,
         **options: Any) -> tuple[httpx.AsyncClient, UpstreamOAuth, Browser]:
    transport = peer.transport()
    browser = Browser(transport)
    runner = SignInRunner(
        MCP,
        OAuthOptions(token_store=str(store_dir), sign_in_timeout=10, **options),
        opener=browser,
        http=httpx.AsyncClient(transport=transport),
        clock=lambda: peer.now,
    )
    auth = UpstreamOAuth(runner, operator_authorization=operator_authorization)
    return httpx.AsyncClient(transport=transport, auth=auth), auth, browser


def rpc(method: str, n: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": {}}


@pytest.mark.anyio
async def test_sign_in_on_401_then_reuse_then_store_modes(peer: Peer, tmp_path: Path) -> None:
    store_dir = tmp_path / "tokens"
    client, auth, browser = make(peer, store_dir)
    async with client:
        first = await client.post(MCP, json=rpc("tools/list"))
        assert first.status_code == 200 and len(browser.opened) == 1
        assert peer.rs_auth == [None, "Bearer " + at(1)] and peer.grants == ["authorization_code"]
        assert parse_qs(urlsplit(browser.opened[0]).query)["scope"] == ["mcp:read"]
        second = await client.post(MCP, json=rpc("tools/list", 2))
        assert second.status_code == 200 and len(browser.opened) == 1 and peer.rs_auth[-1] == "Bearer " + at(1)
    assert stat.S_IMODE(store_dir.stat().st_mode) == 0o700
    [entry] = list(store_dir.iterdir())
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert json.loads(entry.read_text())["tokens"]["access_token"] == at(1)
    # a new process with the same store signs in no more
    client2, _, browser2 = make(peer, store_dir)
    async with client2:
        assert (await client2.post(MCP, json=rpc("tools/list", 3))).status_code == 200
    assert browser2.opened == [] and peer.rs_auth[-1] == "Bearer " + at(1)


@pytest.mark.anyio
async def test_step_up_on_403_keeps_earlier_scopes(peer: Peer, tmp_path: Path) -> None:
    client, _, browser = make(peer, tmp_path)
    async with client:
        assert (await client.post(MCP, json=rpc("tools/list"))).status_code == 200
        called = await client.post(MCP, json=rpc("tools/call", 2))
    assert called.status_code == 200 and len(browser.opened) == 2
    assert peer.authorize_scopes == ["mcp:read", "mcp:read mcp:write"]
    assert peer.rs_auth[-1] == "Bearer " + at(2)


@pytest.mark.anyio
async def test_refresh_before_expiry_without_a_browser(peer: Peer, tmp_path: Path) -> None:
    peer.lifetime = 100
    client, _, browser = make(peer, tmp_path)
    async with client:
        await client.post(MCP, json=rpc("tools/list"))
        peer.now += 60  # inside the last half of a 100 s token: refresh first
        assert (await client.post(MCP, json=rpc("tools/list", 2))).status_code == 200
        assert peer.grants == ["authorization_code", "refresh_token"] and peer.rs_auth[-1] == "Bearer " + at(2)
        peer.refresh.clear()  # the server forgets the refresh token: a refused refresh falls back to sign-in
        peer.now += 1000
        assert (await client.post(MCP, json=rpc("tools/list", 3))).status_code == 200
    assert len(browser.opened) == 2 and peer.grants[-1] == "authorization_code"


@pytest.mark.anyio
async def test_a_revoked_token_is_refreshed_on_401_without_a_browser(peer: Peer, tmp_path: Path) -> None:
    client, _, browser = make(peer, tmp_path)
    async with client:
        await client.post(MCP, json=rpc("tools/list"))
        peer.tokens.clear()  # the resource no longer accepts the access token; the refresh token still works
        again = await client.post(MCP, json=rpc("tools/list", 2))
    assert again.status_code == 200 and len(browser.opened) == 1
    assert peer.grants == ["authorization_code", "refresh_token"] and peer.rs_auth[-1] == "Bearer " + at(2)


@pytest.mark.anyio
async def test_token_never_sent_to_another_host_and_operator_header_wins(peer: Peer, tmp_path: Path) -> None:
    client, _, browser = make(peer, tmp_path, operator_authorization=True)
    async with client:
        await client.post(MCP, json=rpc("tools/list"))
        await client.post(OTHER + "/mcp", json=rpc("tools/list"))
        await client.post(RS + "/elsewhere-but-same-origin", json=rpc("x"))  # outside the resource: no token
        explicit = await client.post(MCP, json=rpc("tools/list"), headers={"Authorization": "Bearer operator"})
    assert peer.other_auth == [None]
    assert explicit.status_code == 401 and peer.rs_auth[-1] == "Bearer operator" and len(browser.opened) == 1


@pytest.mark.anyio
async def test_a_callers_authorization_is_replaced_by_the_bridges_sign_in(peer: Peer, tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    """``--oauth-shared-login``: a caller's token was meant for the bridge; it never reaches the upstream
    (2026-07-28 basic/authorization "Token Passthrough"), whose requests carry the bridge's own sign-in."""
    caplog.set_level(logging.INFO, logger="mcp_eras.bridge.auth")
    client, _, browser = make(peer, tmp_path)
    async with client:
        first = await client.post(MCP, json=rpc("tools/list"), headers={"Authorization": "Bearer caller-token-1234567"})
        second = await client.post(MCP, json=rpc("tools/list", 2), headers={"Authorization": "Bearer caller-token-1234567"})
    assert first.status_code == second.status_code == 200 and len(browser.opened) == 1
    assert "Bearer caller-token-1234567" not in peer.rs_auth
    assert peer.rs_auth == [None, "Bearer " + at(1), "Bearer " + at(1)]
    told = [r.getMessage() for r in caplog.records if "not sent to" in r.getMessage()]
    assert len(told) == 1 and "caller-token" not in told[0]


@pytest.mark.anyio
async def test_a_failed_sign_in_raises_its_named_error_and_stores_nothing(peer: Peer, tmp_path: Path) -> None:
    async def wrong_issuer(request: Request) -> Response:
        return JSONResponse({"issuer": "https://evil.test", "authorization_endpoint": AS + "/a", "token_endpoint": AS + "/t"})

    peer.as_metadata = wrong_issuer  # type: ignore[method-assign]
    client, _, browser = make(peer, tmp_path / "t")
    async with client:
        with pytest.raises(SignInFailed) as failure:  # an httpx error: the upstreams answer their callers with it
            await client.post(MCP, json=rpc("tools/list"))
    assert isinstance(failure.value, httpx.HTTPError) and "issuer_mismatch" in str(failure.value)
    assert failure.value.error == "issuer_mismatch" and browser.opened == []
    assert not (tmp_path / "t").exists() or list((tmp_path / "t").iterdir()) == []


@pytest.mark.anyio
async def test_no_token_in_any_log_line(peer: Peer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    client, _, _ = make(peer, tmp_path)
    async with client:
        await client.post(MCP, json=rpc("tools/list"))
        await client.post(MCP, json=rpc("tools/call", 2))
    log = logging.getLogger("some.module")
    for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL):
        log.log(level, "got %s and refresh %s", at(1), {"refresh_token": rt(2)})
        log.log(level, "header Authorization: Bearer never-registered-token-value")
    try:
        raise RuntimeError(f"token {at(2)} leaked in an exception")
    except RuntimeError:
        log.exception("failure")
    text = caplog.text + "".join(r.getMessage() for r in caplog.records)
    assert "oauth: signed in" in text and "[redacted]" in text
    for secret in (at(1), at(2), rt(1), rt(2), "never-registered-token-value"):
        assert secret not in text, secret


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _logging_as_found() -> Iterator[None]:
    yield
    redact.uninstall()  # the runner installs redaction process-wide; other tests get logging back untouched


@pytest.mark.anyio
async def test_the_hook_without_httpx_auth(peer: Peer, tmp_path: Path) -> None:
    """``authorization_for`` / ``after_response``: the same decisions for an upstream path that sends its own bytes."""
    client, auth, browser = make(peer, tmp_path)
    async with client:
        assert await auth.authorization_for(MCP) is None
        challenge = [f'Bearer resource_metadata="{RS}/.well-known/oauth-protected-resource/mcp"']
        assert await auth.after_response(MCP, 401, challenge, None, final=True) is None  # the retry's answer is kept
        assert await auth.after_response(OTHER + "/mcp", 401, challenge, None) is None  # not this upstream
        assert await auth.after_response(MCP, 500, [], None) is None
        header = await auth.after_response(MCP, 401, challenge, None)
        assert header == "Bearer " + at(1) and len(browser.opened) == 1
        assert await auth.authorization_for(MCP) == header and await auth.authorization_for(OTHER + "/mcp") is None
        assert await auth.after_response(MCP, 403, ['Bearer error="invalid_token"'], header) is None  # no scope to gain
        assert await auth.after_response(MCP, 200, [], header) is None and auth.runner.machine.state.step_ups == 0
