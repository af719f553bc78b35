"""What the two protected sample servers share (they run under different SDK generations: mcp 1.x ``FastMCP`` and
mcp 2.x ``MCPServer`` take the same ``TokenVerifier`` protocol and the same ``@server.tool()`` decorator): the
command line, the tools, and a bearer-token verifier for an OAuth authorization server that issues JWT access
tokens (RFC 9068).

A token is accepted only when its signature verifies against the authorization server's published keys (its
``jwks_uri``, from the server's metadata: RFC 8414, else OpenID Connect discovery), its ``iss`` is that server, it
has not expired, and its ``aud`` names THIS server (RFC 8707: a token issued for another resource is refused,
2025-11-25 basic/authorization.mdx "Token Audience Binding and Validation"). Scopes come from the ``scope`` claim;
the SDK's bearer middleware then answers 403 ``insufficient_scope`` when a required one is missing.

Only PyJWT (with ``cryptography``) and httpx are needed; both come with the MCP SDKs.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from typing import Any

import httpx
import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

log = logging.getLogger("jwt_verifier")
METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


class JwksTokenVerifier:
    """Verifies JWT access tokens of ``issuer`` for the resource ``audience`` (this server's MCP URL)."""

    def __init__(self, issuer: str, audience: str, timeout: float = 10.0) -> None:
        self.issuer = issuer
        self.audience = audience
        self.timeout = timeout
        self._keys: jwt.PyJWKSet | None = None

    async def _fetch_keys(self) -> jwt.PyJWKSet:
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            jwks_uri: str | None = None
            for path in METADATA_PATHS:
                resp = await client.get(self.issuer.rstrip("/") + path)
                if resp.status_code == 200 and resp.json().get("issuer") == self.issuer:
                    jwks_uri = resp.json().get("jwks_uri")
                    break
            if not jwks_uri:
                raise RuntimeError(f"{self.issuer} publishes no usable authorization server metadata")
            return jwt.PyJWKSet.from_dict((await client.get(jwks_uri)).raise_for_status().json())

    async def _key(self, kid: str | None) -> Any:
        for attempt in range(2):  # keys are re-read once when a token names an unknown one (rotation)
            if self._keys is None or attempt:
                self._keys = await self._fetch_keys()
            for key in self._keys.keys:
                if kid is None or key.key_id == kid:
                    return key.key
        return None

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            header = jwt.get_unverified_header(token)
            key = await self._key(header.get("kid"))
            if key is None:
                return None
            claims = jwt.decode(token, key, algorithms=["RS256", "ES256", "PS256"], audience=self.audience,
                                issuer=self.issuer, options={"require": ["exp", "iss", "aud"]})
        except (jwt.PyJWTError, httpx.HTTPError, RuntimeError, ValueError) as exc:
            log.info("access token refused: %s", type(exc).__name__)  # never the token itself
            return None
        scopes = str(claims.get("scope", "")).split()
        return AccessToken(token=token, client_id=str(claims.get("client_id") or claims.get("azp") or ""),
                           scopes=scopes, expires_at=int(claims["exp"]), resource=self.audience,
                           subject=claims.get("sub"))


def main(build: Callable[[int, str, str], Any], description: str) -> None:
    """``--port N --issuer URL [--scope S]``: build the server and serve its Streamable HTTP app on 127.0.0.1."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True, help="the authorization server's issuer URL")
    parser.add_argument("--scope", default="mcp:tools", help="the scope every request needs")
    args = parser.parse_args()
    app = build(args.port, args.issuer, args.scope).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


def resource_url(port: int) -> str:
    """The server's MCP endpoint: its resource identifier (RFC 8707), the ``aud`` its tokens must carry."""
    return f"http://127.0.0.1:{port}/mcp"


def add_tools(server: Any, era: str) -> None:
    """``whoami`` (the subject the access token was issued to, and the server's era) and ``add``."""

    @server.tool()
    def whoami() -> str:
        """The subject the access token was issued to."""
        token = get_access_token()
        return f"{token.subject if token else None} via {era}"

    @server.tool()
    def add(a: int, b: int) -> int:
        """a + b."""
        return a + b
