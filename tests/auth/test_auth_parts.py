"""The sign-in parts work on their own, without the bridge: the authorization server (npm oidc-provider) and the
two protected sample servers (samples/auth: mcp 1.29 for 2025-11-25, mcp 2.3.0 for 2026-07-28).

mcp 2.3.0's own OAuth client (``OAuthClientProvider``: protected resource metadata, authorization server
metadata, dynamic registration, PKCE, the ``resource`` parameter) signs in to each server and calls its tool; the
browser step is the page-less test interaction, followed with redirects and cookies as a browser would. Then a
token issued for one server is refused by the other (audience binding, RFC 8707), a request without a token is
answered 401 with the server's metadata, and a token without the required scope is refused (403).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from parts import LEGACY, MODERN, SCOPE, AuthServer, auth_server, protected_server

pytestmark = [pytest.mark.anyio, pytest.mark.legacy_peer, pytest.mark.timeout(240)]
REDIRECT = "http://127.0.0.1:9/callback"  # never listened on: the browser stops at the redirect and hands it over
MAX_HOPS = 15
OTHER_SCOPE = "mcp:other"  # one the authorization server grants and no server requires


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[AuthServer, dict[str, str]]]:
    with auth_server(scopes=f"{SCOPE} {OTHER_SCOPE}") as issuer, protected_server(LEGACY, issuer.issuer) as legacy, \
            protected_server(MODERN, issuer.issuer) as modern:
        yield issuer, {LEGACY: legacy, MODERN: modern}


class Memory:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class HeadlessBrowser:
    """Loads the authorization URL and follows redirects with cookies until one leads to the redirect URI."""

    def __init__(self) -> None:
        self.result: AuthorizationCodeResult | None = None
        self.visited: list[str] = []

    async def open(self, url: str) -> None:
        async with httpx.AsyncClient(timeout=20.0) as client:
            for _hop in range(MAX_HOPS):
                self.visited.append(url.split("?", 1)[0])
                resp = await client.get(url)
                location = resp.headers.get("location")
                if resp.status_code not in (301, 302, 303, 307, 308) or not location:
                    raise AssertionError(f"the sign-in stopped at {url.split('?')[0]}: HTTP {resp.status_code} "
                                         f"{resp.text[:300]}")
                url = str(resp.url.join(location))
                if url.startswith(REDIRECT):
                    query = parse_qs(urlsplit(url).query)
                    self.result = AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0],
                                                          iss=query.get("iss", [None])[0])
                    return
        raise AssertionError("too many redirects")

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None, "the browser never reached the redirect URI"
        return self.result


def provider(url: str, storage: Memory, browser: HeadlessBrowser) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(client_name="mcp-eras auth parts test", redirect_uris=[REDIRECT],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none")
    return OAuthClientProvider(url, metadata, storage, redirect_handler=browser.open, callback_handler=browser.callback)


async def sign_in_and_call(url: str, era: str, storage: Memory) -> tuple[str, HeadlessBrowser]:
    browser = HeadlessBrowser()
    http = httpx2.AsyncClient(auth=provider(url, storage, browser), timeout=30.0)
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy" if era == LEGACY else MODERN) as client:
        result = await client.call_tool("whoami", {})
    text = result.content[0].text  # type: ignore[union-attr]
    return text, browser


def claims(token: str) -> dict[str, Any]:
    import jwt

    return jwt.decode(token, options={"verify_signature": False})


@pytest.mark.parametrize("era", [LEGACY, MODERN])
async def test_the_sdk_client_signs_in_and_calls_the_tool(stack: tuple[AuthServer, dict[str, str]], era: str) -> None:
    issuer, urls = stack
    storage = Memory()
    text, browser = await sign_in_and_call(urls[era], era, storage)
    assert text == f"test-user via {era}"
    assert storage.tokens is not None and storage.tokens.refresh_token  # refresh tokens are issued
    token = claims(storage.tokens.access_token)
    assert token["aud"] == urls[era] and token["iss"] == issuer.issuer and "mcp:tools" in token["scope"].split()
    assert storage.client is not None and storage.client.client_id  # dynamically registered
    assert any(v.startswith(issuer.issuer) for v in browser.visited)


async def test_a_token_for_one_server_is_refused_by_the_other(stack: tuple[AuthServer, dict[str, str]]) -> None:
    _issuer, urls = stack
    tokens: dict[str, str] = {}
    for era in (LEGACY, MODERN):
        storage = Memory()
        await sign_in_and_call(urls[era], era, storage)
        assert storage.tokens is not None
        tokens[era] = storage.tokens.access_token
    ping = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=20.0) as client:
        for era, other in ((LEGACY, MODERN), (MODERN, LEGACY)):
            own = await client.post(urls[era], json=ping, headers={**headers, "Authorization": f"Bearer {tokens[era]}"})
            assert own.status_code == 200, (era, own.status_code, own.text[:300])
            foreign = await client.post(urls[era], json=ping,
                                        headers={**headers, "Authorization": f"Bearer {tokens[other]}"})
            assert foreign.status_code == 401, (era, foreign.status_code, foreign.text[:300])
            bare = await client.post(urls[era], json=ping, headers=headers)
            assert bare.status_code == 401
            assert "resource_metadata=" in bare.headers.get("www-authenticate", "")


async def token_with_scope(issuer: str, resource: str, scope: str) -> str:
    """A token for ``resource`` with exactly ``scope``, by hand: registration, PKCE, authorization, token."""
    async with httpx.AsyncClient(timeout=20.0) as client:
        meta = (await client.get(issuer.rstrip("/") + "/.well-known/openid-configuration")).json()
        registered = (await client.post(meta["registration_endpoint"], json={
            "redirect_uris": [REDIRECT], "grant_types": ["authorization_code"], "response_types": ["code"],
            "token_endpoint_auth_method": "none"})).json()
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = {"response_type": "code", "client_id": registered["client_id"], "redirect_uri": REDIRECT, "scope": scope,
                 "resource": resource, "code_challenge": challenge, "code_challenge_method": "S256", "state": "s"}
        browser = HeadlessBrowser()
        await browser.open(f"{meta['authorization_endpoint']}?{urlencode(query)}")
        assert browser.result is not None and browser.result.iss == issuer  # RFC 9207
        answer = (await client.post(meta["token_endpoint"], data={
            "grant_type": "authorization_code", "code": browser.result.code, "redirect_uri": REDIRECT,
            "client_id": registered["client_id"], "code_verifier": verifier, "resource": resource})).json()
    return str(answer["access_token"])


@pytest.mark.parametrize("era", [LEGACY, MODERN])
async def test_a_token_without_the_required_scope_is_refused(stack: tuple[AuthServer, dict[str, str]], era: str) -> None:
    issuer, urls = stack
    token = await token_with_scope(issuer.issuer, urls[era], OTHER_SCOPE)
    assert claims(token)["aud"] == urls[era] and SCOPE not in claims(token)["scope"].split()
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {token}"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with httpx.AsyncClient(timeout=20.0) as client:
        refused = await client.post(urls[era], json=ping, headers=headers)
    assert refused.status_code == 403, (refused.status_code, refused.text[:300])
    assert "insufficient_scope" in refused.headers.get("www-authenticate", "") + refused.text
