"""Token validation for a resource-server front: the issuer's keys (fetched from its metadata's ``jwks_uri``,
cached, fetched again on an unknown key id at most every ``JwksPolicy.min_interval``), JWS signatures (PyJWT,
the ``mcp-eras[gateway]`` extra) and, when configured, introspection of opaque tokens (RFC 7662).

What is accepted is decided in ``mcp_eras.bridge.translate.gateway.tokens``; this module does the I/O and the
cryptography. No token is ever logged.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from mcp_eras.bridge.translate.gateway import jwks as jp
from mcp_eras.bridge.translate.gateway import tokens as tk

log = logging.getLogger("mcp_bridge.gateway")
METADATA_SUFFIXES = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
"""RFC 8414 section 3 (path insertion) and OpenID Connect Discovery 1.0 section 4 (path appended)."""
INTROSPECTION_CACHE_MAX = 10_000
INTROSPECTION_CACHE_TTL = 60.0
VERIFIED_CACHE_MAX = 10_000
UNAVAILABLE = tk.Refused(503, None, "the authorization server's keys could not be fetched")


def _jwt() -> Any:
    try:
        import jwt
    except ImportError:  # pragma: no cover - depends on the installation
        raise RuntimeError("a resource-server front needs PyJWT with cryptography: pip install 'mcp-eras[gateway]'") from None
    return jwt


def metadata_urls(issuer: str) -> list[str]:
    """Where ``issuer``'s metadata may be (RFC 8414 section 3.1 inserts the suffix before a path; OIDC appends)."""
    scheme, _, rest = issuer.partition("://")
    host, slash, path = rest.partition("/")
    path = (slash + path).rstrip("/")
    return [f"{scheme}://{host}{METADATA_SUFFIXES[0]}{path}", f"{issuer.rstrip('/')}{METADATA_SUFFIXES[1]}"]


@dataclass
class Introspection:
    url: str
    client_id: str | None = None
    client_secret: str | None = None


class TokenVerifier:
    """``await verifier.verify(authorization_header)`` -> ``tokens.Accepted`` or ``tokens.Refused``."""

    def __init__(self, rules: tk.TokenRules, *, policy: jp.JwksPolicy | None = None,
                 introspection: Introspection | None = None, client: httpx.AsyncClient | None = None,
                 clock: Callable[[], float] = time.time, timeout: float = 10.0) -> None:
        self.rules = rules
        self.policy = policy or jp.JwksPolicy()
        self.introspection = introspection
        self.clock = clock
        self._client = client
        self._timeout = timeout
        self._keys: dict[str, Any] = {}
        """kid -> the JWK as published (a key without ``kid`` under "")."""
        self._fetched_at: float | None = None
        self._failed_at: float | None = None
        self._jwks_uri: str | None = None
        self._lock = asyncio.Lock()
        self._introspected: dict[str, tuple[float, tk.Accepted | tk.Refused]] = {}
        self._loaded: dict[int, tuple[dict[str, Any], str, Any]] = {}
        """id(jwk) -> (the JWK, the algorithm, its key object): a published key is parsed once."""
        self._verified: dict[bytes, dict[str, Any]] = {}
        """Digest of a token whose signature verified -> the key it verified with (valid while that key is published)."""
        self.fetches = 0
        """How many times the key set was fetched (tests and metrics)."""
        _jwt()

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout, follow_redirects=False)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    async def verify(self, authorization: str | None, rules: tk.TokenRules | None = None) -> tk.Accepted | tk.Refused:
        """``rules``: this request's (its endpoint's audience), else the verifier's own."""
        rules = rules or self.rules
        token = tk.bearer(authorization, rules)
        if isinstance(token, tk.Refused):
            return token
        jws = tk.split_jws(token)
        if jws is None:
            if self.introspection is not None:
                return await self._introspect(token, rules)
            return tk.Refused(401, tk.INVALID_TOKEN, "malformed token")
        refused = tk.check_header(jws.header, rules)
        if refused is not None:
            return refused
        key = await self._key(jws.header.get("kid"))
        if isinstance(key, tk.Refused):
            return key
        digest = hashlib.sha256(token.encode()).digest()
        if self._verified.get(digest) is not key:  # (a token seen before, with a key still published: checked once)
            if not self._signature_ok(token, key, jws.header["alg"]):
                return tk.Refused(401, tk.INVALID_TOKEN, "bad signature")
            if len(self._verified) >= VERIFIED_CACHE_MAX:
                self._verified.clear()
            self._verified[digest] = key
        return tk.check_claims(jws.payload, self.clock(), rules)

    def _signature_ok(self, token: str, jwk: dict[str, Any], alg: str) -> bool:
        jwt = _jwt()
        if jwk.get("alg") not in (None, alg) or jwk.get("use") not in (None, "sig"):
            return False  # RFC 7517 sections 4.2 and 4.4: the key is not for this algorithm or for signing
        try:
            loaded = self._loaded.get(id(jwk))
            if loaded is None or loaded[0] is not jwk or loaded[1] != alg:
                if len(self._loaded) > 2 * len(self._keys) + 8:  # keys of earlier fetches: drop them, keep the published
                    published = {id(k) for k in self._keys.values()}
                    self._loaded = {i: v for i, v in self._loaded.items() if i in published}
                loaded = self._loaded[id(jwk)] = (jwk, alg, jwt.PyJWK(jwk, algorithm=alg).key)
            jwt.PyJWS().decode(token, key=loaded[2], algorithms=[alg])
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            return False
        return True

    async def _key(self, kid: str | None) -> dict[str, Any] | tk.Refused:
        async with self._lock:  # one fetch at a time; waiters then see its result
            now = time.monotonic()
            decision = jp.key_lookup(self.policy, fetched_at=self._fetched_at, kid_known=self._find(kid) is not None, now=now)
            if decision is jp.KeyLookup.FETCH and jp.may_retry_fetch(self.policy, failed_at=self._failed_at, now=now):
                await self._fetch(now)
        key = self._find(kid)
        if key is not None:
            return key
        return UNAVAILABLE if self._fetched_at is None else tk.Refused(401, tk.INVALID_TOKEN, "token signed by an unknown key")

    def _find(self, kid: str | None) -> dict[str, Any] | None:
        """The cached key ``kid`` names (a token without ``kid``: the set's only key)."""
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _fetch(self, now: float) -> None:
        self.fetches += 1
        try:
            if self._jwks_uri is None:
                self._jwks_uri = await self._discover()
            resp = await self.client.get(self._jwks_uri)
            resp.raise_for_status()
            keys = resp.json().get("keys")
            if not isinstance(keys, list):
                raise ValueError("no keys array")
        except (httpx.HTTPError, ValueError, KeyError, AttributeError) as exc:
            self._failed_at = now
            log.warning("fetching the keys of %s failed: %s", self.rules.issuer, type(exc).__name__)
            return
        self._keys = {str(k.get("kid", "")): k for k in keys if isinstance(k, dict)}
        self._loaded = {}
        self._fetched_at, self._failed_at = now, None
        log.info("fetched %d signing keys of %s", len(self._keys), self.rules.issuer)

    async def _discover(self) -> str:
        for url in metadata_urls(self.rules.issuer):
            resp = await self.client.get(url)
            if resp.status_code != 200:
                continue
            meta = resp.json()
            if meta.get("issuer") == self.rules.issuer and isinstance(meta.get("jwks_uri"), str):
                return meta["jwks_uri"]  # RFC 8414 section 3.3: the issuer must match exactly
        raise ValueError(f"{self.rules.issuer} publishes no authorization server metadata with a jwks_uri")

    async def _introspect(self, token: str, rules: tk.TokenRules) -> tk.Accepted | tk.Refused:
        assert self.introspection is not None
        digest = hashlib.sha256(token.encode() + b" " + " ".join(sorted(rules.audiences)).encode()).hexdigest()
        now = self.clock()
        cached = self._introspected.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        auth = (self.introspection.client_id, self.introspection.client_secret or "") if self.introspection.client_id else None
        try:
            resp = await self.client.post(self.introspection.url, data={"token": token, "token_type_hint": "access_token"},
                                          auth=auth, headers={"Accept": "application/json"})
            resp.raise_for_status()
            claims = resp.json()
            if not isinstance(claims, dict):
                raise ValueError("not an object")
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("token introspection at %s failed: %s", self.introspection.url, type(exc).__name__)
            return tk.Refused(503, None, "the token could not be introspected")
        verdict = tk.check_claims(claims, now, rules, introspected=True)
        until = min(now + INTROSPECTION_CACHE_TTL, verdict.expires_at or now) if isinstance(verdict, tk.Accepted) else now + 5
        if len(self._introspected) >= INTROSPECTION_CACHE_MAX:
            self._introspected.clear()
        self._introspected[digest] = (until, verdict)
        return verdict
