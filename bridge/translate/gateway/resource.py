"""What a protected MCP endpoint publishes and answers: its protected resource metadata (RFC 9728), where that
document lives, and the ``WWW-Authenticate`` challenge of a refusal (RFC 6750 section 3, RFC 9728 section 5.1).

2025-11-25 and 2026-07-28 basic/authorization "Authorization Server Location": an MCP server MUST implement
RFC 9728, MUST name its metadata in ``resource_metadata`` of the 401's ``WWW-Authenticate`` header, and SHOULD
name the scopes a request needs in ``scope``; clients fall back to the well-known URIs (path insertion first,
then the root) when the header names none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcp_eras.bridge.translate.gateway.tokens import Refused

WELL_KNOWN = "/.well-known/oauth-protected-resource"
"""RFC 9728 section 3 (registered in section 8.3)."""


def well_known_path(resource_path: str) -> str:
    """RFC 9728 section 3.1: the well-known suffix inserted before the resource's path, its trailing slash removed
    (``/mcp`` -> ``/.well-known/oauth-protected-resource/mcp``; ``/`` or "" -> the bare well-known path)."""
    path = resource_path.rstrip("/")
    return WELL_KNOWN + path if path else WELL_KNOWN


def metadata_url(resource: str) -> str:
    """The absolute URL of ``resource``'s metadata document (its scheme and authority, the inserted path; a query
    stays after the path, RFC 9728 section 3.1)."""
    parts = urlsplit(resource)
    return urlunsplit((parts.scheme, parts.netloc, well_known_path(parts.path), parts.query, ""))


def fleet_resource(audience: str, name: str) -> str:
    """A fleet server's resource identifier: its endpoint under the fleet's public base URL ``audience``."""
    return f"{audience.rstrip('/')}/servers/{name}/mcp"


@dataclass(frozen=True)
class ProtectedResource:
    """One protected endpoint: its identifier (what tokens name as ``aud``), its issuer, the scopes it needs."""

    resource: str
    issuer: str
    scopes: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        """The metadata document (RFC 9728 section 2): tokens only in the ``Authorization`` header (RFC 6750 section
        2.1; MCP basic/authorization "Token Requirements": never in the query)."""
        doc: dict[str, Any] = {"resource": self.resource, "authorization_servers": [self.issuer],
                               "bearer_methods_supported": ["header"]}
        if self.scopes:
            doc["scopes_supported"] = list(self.scopes)
        return doc

    def challenge(self, refused: Refused) -> str:
        """The ``WWW-Authenticate`` value for ``refused``."""
        return www_authenticate(metadata_url(self.resource), self.scopes, refused)


def _quoted(value: str) -> str:
    """A quoted-string value limited to RFC 6750 section 3's characters (%x20-21 / %x23-5B / %x5D-7E)."""
    clean = "".join(c if 0x20 <= ord(c) <= 0x7E and c not in '"\\' else "?" for c in value)
    return f'"{clean}"'


def www_authenticate(resource_metadata: str, scopes: Iterable[str], refused: Refused) -> str:
    """``Bearer resource_metadata=..., scope=..., error=..., error_description=...`` (a request without a token:
    no error code, RFC 6750 section 3.1)."""
    params = [f"resource_metadata={_quoted(resource_metadata)}"]
    scope = " ".join(scopes)
    if scope:
        params.append(f"scope={_quoted(scope)}")
    if refused.error is not None:
        params.append(f"error={_quoted(refused.error)}")
        params.append(f"error_description={_quoted(refused.description)}")
    return "Bearer " + ", ".join(params)
