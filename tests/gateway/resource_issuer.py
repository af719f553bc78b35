"""An authorization server's key publication under the test's control: RFC 8414 metadata and a JWKS served over
loopback HTTP (stdlib server in a thread), keys generated here, and access tokens minted with them (PyJWT).

For what the real authorization server of the tests (oidc-provider) cannot do on demand: rotate its keys while it runs
(test_resource_real_as.py restarts it with a new key instead), or issue a token with a chosen audience, lifetime,
algorithm or size.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import jwt
from cryptography.hazmat.primitives.asymmetric import ec


class Issuer:
    def __init__(self) -> None:
        self.url = ""
        self.keys: dict[str, Any] = {}
        self.published: list[str] = []
        self.jwks_fetches = 0
        self.opaque: dict[str, dict[str, Any]] = {}
        """Opaque token -> its introspection answer (RFC 7662 section 2.2)."""
        self.client = ("bridge", "bridge-secret")
        """The client allowed to introspect (HTTP Basic, RFC 7662 section 2.1)."""
        self.introspections = 0

    def new_key(self, kid: str, publish: bool = True) -> None:
        self.keys[kid] = ec.generate_private_key(ec.SECP256R1())
        if publish:
            self.published.append(kid)

    def rotate(self, kid: str) -> None:
        """A new signing key replaces every published one."""
        self.new_key(kid, publish=False)
        self.published = [kid]

    def opaque_token(self, audience: str, sub: str = "user-1", scope: str = "mcp:tools", lifetime: float = 300) -> str:
        token = secrets.token_urlsafe(24)
        self.opaque[token] = {"active": True, "iss": self.url, "aud": audience, "sub": sub, "scope": scope,
                              "client_id": "some-client", "exp": int(time.time() + lifetime)}
        return token

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid in self.published:
            jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.keys[kid].public_key()))
            keys.append({**jwk, "kid": kid, "use": "sig", "alg": "ES256"})
        return {"keys": keys}

    def token(self, audience: str | list[str], kid: str | None = None, lifetime: float = 300, scope: str = "mcp:tools",
              sub: str = "user-1", **extra: Any) -> str:
        now = time.time()
        kid = kid or self.published[-1]
        claims = {"iss": self.url, "aud": audience, "sub": sub, "iat": int(now), "exp": int(now + lifetime),
                  "scope": scope, **extra}
        return jwt.encode(claims, self.keys[kid], algorithm="ES256", headers={"kid": kid, "typ": "at+jwt"})


@contextmanager
def issuer() -> Iterator[Issuer]:
    state = Issuer()
    state.new_key("key-1")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path == "/.well-known/oauth-authorization-server":
                body = {"issuer": state.url, "jwks_uri": state.url + "jwks", "introspection_endpoint": state.url + "introspect",
                        "authorization_endpoint": state.url + "authorize",
                        "token_endpoint": state.url + "token", "response_types_supported": ["code"]}
            elif self.path == "/jwks":
                state.jwks_fetches += 1
                body = state.jwks()
            else:
                self.send_error(404)
                return
            self._answer(200, body)

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path != "/introspect":
                self.send_error(404)
                return
            state.introspections += 1
            expected = "Basic " + base64.b64encode(":".join(state.client).encode()).decode()
            if self.headers.get("Authorization") != expected:
                self._answer(401, {"error": "invalid_client"})
                return
            form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
            self._answer(200, state.opaque.get(form.get("token", [""])[0], {"active": False}))

        def _answer(self, status: int, body: Any) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
