"""Wire details of the MCP authorization client, as pure functions: the ``WWW-Authenticate`` challenge,
the well-known URLs in the order the spec tries them, canonical resource URIs, PKCE S256, scope sets,
client authentication at the token endpoint.

Spec: MCP 2025-11-25 ``basic/authorization`` and 2026-07-28 ``basic/authorization/*``; RFC 6750 §3,
RFC 7235 §2.1 (challenge syntax), RFC 9728, RFC 8414, RFC 7636, RFC 6749 §2.3.1.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

PRM_SUFFIX = "/.well-known/oauth-protected-resource"
OAUTH_AS_SUFFIX = "/.well-known/oauth-authorization-server"
OIDC_SUFFIX = "/.well-known/openid-configuration"


@dataclass(frozen=True)
class Challenge:
    """One ``Bearer`` challenge of a ``WWW-Authenticate`` header (RFC 6750 §3, RFC 9728 §5.1)."""

    scheme: str = ""
    params: dict[str, str] = field(default_factory=dict)

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata") or None

    @property
    def scope(self) -> str | None:
        value = self.params.get("scope")
        return " ".join(value.split()) if value and value.strip() else None

    @property
    def error(self) -> str | None:
        return self.params.get("error") or None


# RFC 7235 §2.1: challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]; auth-param = token BWS "=" BWS ( token / quoted-string )
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
# (an unquoted value is read up to the next comma or space: servers send ``scope=files:read`` unquoted)
_PARAM = re.compile(rf'\s*({_TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(?:,|$)')
_SCHEME = re.compile(rf"\s*,?\s*({_TOKEN})(?=\s|$|,)")
_TOKEN68 = re.compile(r"\s*[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)")


def parse_www_authenticate(values: list[str] | str | None) -> list[Challenge]:
    """Every challenge in one or more ``WWW-Authenticate`` header values; parameter names are lower-cased,
    quoted-string escapes undone. Unparseable tails are dropped rather than raising."""
    if values is None:
        return []
    text = ", ".join(values) if isinstance(values, list) else values
    challenges: list[Challenge] = []
    pos = 0
    current: Challenge | None = None
    while pos < len(text):
        param = _PARAM.match(text, pos)
        if param and current is not None:
            raw = param.group(2)
            value = re.sub(r"\\(.)", r"\1", raw) if raw is not None else param.group(3)
            current.params.setdefault(param.group(1).lower(), value)
            pos = param.end()
            continue
        scheme = _SCHEME.match(text, pos)
        if not scheme:
            break
        current = Challenge(scheme=scheme.group(1).lower(), params={})
        challenges.append(current)
        pos = scheme.end()
        token68 = _TOKEN68.match(text, pos)
        if token68:
            pos = token68.end()  # e.g. ``Negotiate abc==``: not a parameter list, nothing to read
    return challenges


def bearer_challenge(values: list[str] | str | None) -> Challenge:
    """The ``Bearer`` challenge (the one MCP servers send), or an empty one."""
    for challenge in parse_www_authenticate(values):
        if challenge.scheme == "bearer":
            return challenge
    return Challenge()


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP server (spec "Canonical Server URI", RFC 8707 §2): lower-case scheme and
    host, no fragment, no trailing slash on an empty path. Raises ValueError for a URL without scheme/host."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.hostname:
        raise ValueError(f"not an absolute URL: {url!r}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # urlsplit lower-cases it
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    path = "" if parts.path == "/" else parts.path
    return urlunsplit((parts.scheme.lower(), netloc, path, parts.query, ""))


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def resource_covers(resource: str, url: str) -> bool:
    """Whether the protected resource identifier ``resource`` (from metadata) names the server at ``url``:
    the same canonical URI, or the same origin with a path that is a whole-segment prefix of the URL's
    path (RFC 9728 §3.3 and §7.3: a client must not use metadata for another resource)."""
    try:
        res, own = canonical_resource(resource), canonical_resource(url)
    except ValueError:
        return False
    if res == own:
        return True
    rp, op = urlsplit(res), urlsplit(own)
    if origin(res) != origin(own) or rp.query:
        return False
    prefix = rp.path.rstrip("/")
    return op.path == prefix or op.path.startswith(prefix + "/")


def prm_urls(server_url: str, from_header: str | None) -> list[str]:
    """Protected resource metadata locations in the spec's order ("Protected Resource Metadata Discovery
    Requirements"): the challenge's ``resource_metadata``, then path-inserted, then root."""
    parts = urlsplit(server_url)
    base = f"{parts.scheme}://{parts.netloc}"
    urls = [from_header] if from_header else []
    path = parts.path.rstrip("/")
    if path:
        urls.append(base + PRM_SUFFIX + path)
    urls.append(base + PRM_SUFFIX)
    return list(dict.fromkeys(urls))


def as_metadata_urls(issuer: str) -> list[str]:
    """Authorization server metadata locations in the spec's priority order ("Authorization Server Metadata
    Discovery"): RFC 8414 path insertion, OIDC path insertion, OIDC path appending; root issuers get the
    two root forms."""
    parts = urlsplit(issuer)
    base = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if path:
        return [base + OAUTH_AS_SUFFIX + path, base + OIDC_SUFFIX + path, base + path + OIDC_SUFFIX]
    return [base + OAUTH_AS_SUFFIX, base + OIDC_SUFFIX]


def issuer_matches(found: str, expected: str) -> bool:
    """RFC 8414 §3.3: the metadata's ``issuer`` is identical to the issuer the URL was built from. The one
    allowance: a root issuer with and without its trailing slash (``https://as`` / ``https://as/``)."""
    if found == expected:
        return True
    short, long = sorted((found, expected), key=len)
    return long == short + "/" and urlsplit(short).path == ""


def is_loopback_redirect(uri: str) -> bool:
    """A redirect URI this client may use: ``http`` to a loopback host (RFC 8252 §7.3; the spec's
    "Communication Security": redirect URIs are localhost or HTTPS, and this client only listens locally)."""
    parts = urlsplit(uri)
    if parts.scheme != "http" or parts.fragment or not parts.hostname:
        return False
    return is_loopback_host(parts.hostname)


def is_loopback_host(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def secure_endpoint(url: str) -> bool:
    """OAuth 2.1 §1.5: authorization server endpoints are HTTPS; plain HTTP only to a loopback host."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    return parts.scheme == "http" and bool(parts.hostname) and is_loopback_host(parts.hostname or "")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def pkce_pair(entropy: bytes) -> tuple[str, str]:
    """RFC 7636 §4.1-4.2: (code_verifier, S256 code_challenge) from at least 32 random bytes."""
    if len(entropy) < 32:
        raise ValueError("PKCE needs at least 32 random bytes")
    verifier = b64url(entropy[:32])
    return verifier, s256(verifier)


def s256(verifier: str) -> str:
    """The S256 code challenge of a verifier (RFC 7636 §4.2)."""
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def is_cimd_url(url: str) -> bool:
    """A client ID metadata document URL: https with a path (spec "Client ID Metadata Documents")."""
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")


def union_scopes(*scopes: str | None) -> str | None:
    """Space-delimited union, first-seen order (2026-07-28 "Step-Up Authorization Flow": the previously
    requested set plus the challenged one)."""
    merged: list[str] = []
    for scope in scopes:
        for item in (scope or "").split():
            if item not in merged:
                merged.append(item)
    return " ".join(merged) or None


def with_query(url: str, params: dict[str, str]) -> str:
    """``url`` with ``params`` appended to whatever query it already has (RFC 6749 §3.1 keeps it)."""
    parts = urlsplit(url)
    extra = urlencode(params, quote_via=quote)
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def json_object(body: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None when it is not one."""
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def client_auth(method: str, client_id: str, secret: str | None, form: dict[str, str]) -> dict[str, str]:
    """Apply token-endpoint client authentication to ``form``; returns the extra headers (RFC 6749 §2.3.1:
    ``client_secret_basic`` form-urlencodes id and secret before base64; ``client_secret_post`` puts them in
    the body; ``none`` sends only ``client_id``)."""
    if method == "client_secret_basic" and secret is not None:
        pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}
    form["client_id"] = client_id
    if method == "client_secret_post" and secret is not None:
        form["client_secret"] = secret
    return {}
