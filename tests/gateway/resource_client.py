"""A client that signs in to a protected MCP endpoint with its SDK's own OAuth support and calls one tool, for
tests/gateway/test_resource_sign_in.py.

    python resource_client.py --era 2026-07-28|2025-11-25 --url URL [--tool echo] [--text hi] [--other URL]

Run it with the interpreter of its era: mcp 2.3.0 (``Client`` over ``streamable_http_client`` with an ``httpx2``
client whose auth is ``OAuthClientProvider``) or mcp 1.x (``streamablehttp_client(auth=OAuthClientProvider)``,
``ClientSession``). It knows nothing but the URL: the SDK discovers the protected resource metadata from the 401,
the authorization server from that, registers itself, and runs the authorization code flow with PKCE; the
"browser" follows the authorization server's page-less sign-in (redirects with cookies) up to the redirect URI.
Prints one JSON object: ``{"text": first text content, "aud": the access token's audience, "scope": its scope}``,
and with ``--other URL`` the status and ``WWW-Authenticate`` of a POST of the same token to that endpoint.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

MODERN, LEGACY = "2026-07-28", "2025-11-25"
REDIRECT = "http://127.0.0.1:9/callback"  # never listened on: the browser stops at the redirect
MAX_HOPS = 15


class Memory:
    def __init__(self) -> None:
        self.tokens: Any = None
        self.client: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client

    async def set_client_info(self, client_info: Any) -> None:
        self.client = client_info


class Browser:
    def __init__(self) -> None:
        self.query: dict[str, list[str]] = {}

    async def open(self, url: str) -> None:
        async with httpx.AsyncClient(timeout=20.0) as client:
            for _hop in range(MAX_HOPS):
                resp = await client.get(url)
                location = resp.headers.get("location")
                if not location:
                    raise RuntimeError(f"the sign-in stopped at HTTP {resp.status_code}")
                url = str(resp.url.join(location))
                if url.startswith(REDIRECT):
                    self.query = parse_qs(urlsplit(url).query)
                    return
        raise RuntimeError("too many redirects")


def provider(url: str, storage: Memory, browser: Browser) -> Any:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    metadata = OAuthClientMetadata(client_name="mcp-eras gateway test", redirect_uris=[REDIRECT],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none")

    async def callback() -> Any:
        code, state = browser.query["code"][0], browser.query.get("state", [None])[0]
        try:
            from mcp.shared.auth import AuthorizationCodeResult  # mcp 2.x
        except ImportError:
            return code, state  # mcp 1.x: a (code, state) pair
        return AuthorizationCodeResult(code=code, state=state, iss=browser.query.get("iss", [None])[0])

    return OAuthClientProvider(url, metadata, storage, redirect_handler=browser.open, callback_handler=callback)


async def modern(options: argparse.Namespace, storage: Memory) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(auth=provider(options.url, storage, Browser()), timeout=60.0)
    async with http, Client(streamable_http_client(options.url, http_client=http), mode=MODERN) as client:
        return await client.call_tool(options.tool, {"text": options.text})


async def legacy(options: argparse.Namespace, storage: Memory) -> Any:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(options.url, auth=provider(options.url, storage, Browser()), timeout=60) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        return await session.call_tool(options.tool, {"text": options.text})


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=[MODERN, LEGACY], required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--tool", default="echo")
    parser.add_argument("--text", default="hi")
    parser.add_argument("--other", help="an endpoint the token is then shown to (it must refuse it)")
    options = parser.parse_args()
    import anyio

    storage = Memory()
    try:
        result = anyio.run(modern if options.era == MODERN else legacy, options, storage)
    except Exception as exc:
        print(f"resource_client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    token = claims(storage.tokens.access_token)
    out = {"text": result.content[0].text, "aud": token.get("aud"), "scope": token.get("scope")}
    if options.other:  # the same token at another endpoint: its status and WWW-Authenticate (never the token)
        resp = httpx.post(options.other, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, timeout=30,
                          headers={"Authorization": f"Bearer {storage.tokens.access_token}",
                                   "Accept": "application/json, text/event-stream"})
        out["other"] = {"status": resp.status_code, "challenge": resp.headers.get("www-authenticate")}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
