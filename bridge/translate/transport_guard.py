"""The transport guard's decisions, pure: Host allow-list, Origin, and (on MCP endpoints) content type and declared
body size, from a request's method, path and headers to the refusal (status, message, headers) or none.

2026-07-28 basic/transports/streamable-http.mdx §Security & Endpoint: servers MUST validate ``Origin``
(403 when present and invalid) to prevent DNS rebinding. A rebinding page also sends its own name as ``Host``,
so the Host header is checked against an allow-list too (loopback names by default): a wrong Host is answered
421 Misdirected Request (RFC 9110 §15.5.20). A body that is not JSON is 415 (RFC 9110 §15.5.16), one declared
larger than the cap 413 (RFC 9110 §15.5.14). The ASGI middleware that applies them is
``mcp_eras.bridge.front.middleware``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _host_name(value: str) -> str | None:
    """``Host``/``Origin`` authority -> lower-case host name without port or IPv6 brackets; None if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1:] and not value[end + 1:].startswith(":")):
            return None
        name, port = value[1:end], value[end + 2:]
    elif value.count(":") > 1:
        name, port = value, ""  # a bare IPv6 address
    else:
        name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def host_allowed(host: str | None, allowed: Iterable[str]) -> bool:
    """A missing Host (HTTP/1.0) passes; otherwise loopback names and the configured ones ("*": any)."""
    if host is None:
        return True
    allowed = list(allowed)
    if "*" in allowed:
        return True
    name = _host_name(host)
    return name is not None and (name in LOOPBACK_HOSTS or name in {_host_name(a) for a in allowed})


def origin_allowed(origin: str | None, allowed: Iterable[str]) -> bool:
    """No Origin (non-browser) is fine; loopback origins and configured ones ("*": any) pass."""
    if origin is None:
        return True
    allowed = list(allowed)
    if origin in allowed or "*" in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and _host_name(parts.netloc) in LOOPBACK_HOSTS


def is_mcp_path(path: str) -> bool:
    return path == "/mcp" or path.endswith("/mcp")


class GuardSettings(Protocol):
    """The settings the guard reads (the bridge's ``Settings``, the fleet's)."""

    allowed_hosts: list[str]
    allowed_origins: list[str]
    max_body_bytes: int


@dataclass(frozen=True)
class GuardPolicy:
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = 4 * 1024 * 1024
    mcp_path: Callable[[str], bool] = field(default=is_mcp_path)

    @classmethod
    def from_settings(cls, settings: GuardSettings, mcp_path: Callable[[str], bool] = is_mcp_path) -> GuardPolicy:
        return cls(tuple(settings.allowed_hosts), tuple(settings.allowed_origins), settings.max_body_bytes, mcp_path)


def screen(method: str, path: str, headers: Mapping[str, str], policy: GuardPolicy) -> tuple[int, str, dict[str, str]] | None:
    """The refusal (HTTP status, message, extra headers) for a request the guard stops, else None."""
    if not host_allowed(headers.get("host"), policy.allowed_hosts):
        return 421, "Misdirected Request: Host not allowed", {}
    if not origin_allowed(headers.get("origin"), policy.allowed_origins):
        return 403, "Forbidden: Origin not allowed", {}
    if method != "POST" or not policy.mcp_path(path):
        return None
    ctype = headers.get("content-type", "")
    if ctype.split(";")[0].strip().lower() != "application/json":
        return 415, "Unsupported Media Type: Content-Type must be application/json", {}
    declared = headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > policy.max_body_bytes:
        return 413, f"Request body exceeds {policy.max_body_bytes} bytes", {"Connection": "close"}
    return None
