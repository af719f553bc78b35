"""Pure: the MCP Server Card of a bridged endpoint and the AI Catalog that lists the cards, from ``server/discover``.

The experimental Server Card extension (modelcontextprotocol/experimental-ext-server-card, docs/discovery.md) lets a
client choose a transport and protocol version before it connects: a card at ``<streamable-http-url>/server-card``
(§Hosted Server Card Location), found through ``/.well-known/ai-catalog.json`` (§AI Catalog). A card SHOULD agree with
what the client then sees at runtime (§Consistency with Runtime Behavior): so every field here is drawn from the
endpoint's own ``server/discover`` result (2026-07-28 server/discover), and ``remotes[].supportedProtocolVersions``
lists the versions the bridge's front serves (both eras when it serves 2025 clients too). No I/O: the shell
(``mcp_eras.bridge.front.server_card``) asks ``server/discover`` and answers HTTP.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlsplit

import orjson

from mcp_eras.bridge.translate import eras

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
"""The card's required ``$schema`` (the extension's schema.json, ``ServerCard.$schema``)."""
CARD_MEDIA_TYPE = "application/mcp-server-card+json"
CATALOG_MEDIA_TYPE = "application/ai-catalog+json"
CATALOG_PATH = "/.well-known/ai-catalog.json"
CARD_SUFFIX = "/server-card"
CATALOG_SPEC_VERSION = "1.0"

CACHE_CONTROL = "public, max-age=3600"
"""docs/discovery.md §Caching (the suggested value)."""
CORS_HEADERS = {
    # docs/discovery.md §CORS Requirements: public, read-only metadata.
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Expose-Headers": "ETag",
}

DESCRIPTION_MAX = 100
TITLE_MAX = 100
VERSION_MAX = 255
_NAME_PART = re.compile(r"[^a-zA-Z0-9._-]+")
_NAMESPACE = re.compile(r"[^a-zA-Z0-9.-]+")


def served_versions(front_era: str, serves_legacy: bool) -> list[str]:
    """The protocol versions a client may use at the bridge's endpoint: 2026-07-28 unless the front is pinned to
    2025, and the 2025 revisions when its 2025 front is on (``--front-era``)."""
    versions: list[str] = [] if front_era == eras.LEGACY else list(eras.MODERN_VERSIONS)
    if serves_legacy and front_era != eras.MODERN:
        versions += list(eras.LEGACY_VERSIONS)
    return versions


def server_info(discover: dict[str, Any]) -> dict[str, Any]:
    """The ``serverInfo`` of a DiscoverResult (2026-07-28: in its ``_meta``)."""
    meta = discover.get("_meta")
    info = meta.get(eras.META_SERVER_INFO) if isinstance(meta, dict) else None
    return info if isinstance(info, dict) else {}


def namespace_of(url: str) -> str:
    """The reverse-DNS namespace of a card's ``name`` from the endpoint's host (``mcp.example.com`` ->
    ``com.example.mcp``; an IP address as it is)."""
    host = (urlsplit(url).hostname or "localhost").strip(".")
    labels = host.split(".")
    reverse = not all(label.isdigit() for label in labels) and ":" not in host
    return _NAMESPACE.sub("-", ".".join(reversed(labels)) if reverse else host) or "localhost"


def card_name(url: str, info: dict[str, Any], fallback: str) -> str:
    """``namespace/name`` (the schema's ``^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$``, 3 to 200 characters)."""
    raw = info.get("name") if isinstance(info.get("name"), str) else fallback
    name = _NAME_PART.sub("-", raw).strip("-") or "server"
    return f"{namespace_of(url)}/{name}"[:200]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def server_card(discover: dict[str, Any], url: str, versions: list[str], fallback_name: str) -> dict[str, Any]:
    """The Server Card of the endpoint at ``url`` whose ``server/discover`` result is ``discover``."""
    info = server_info(discover)
    version = info.get("version")
    title = info.get("title")
    described = info.get("description") if isinstance(info.get("description"), str) else None
    if not described and isinstance(discover.get("instructions"), str):
        described = discover["instructions"]
    shown = title if isinstance(title, str) and title.strip() else card_name(url, info, fallback_name).split("/", 1)[1]
    card: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "name": card_name(url, info, fallback_name),
        "version": str(version)[:VERSION_MAX] if isinstance(version, str | int | float) and str(version) else "0.0.0",
        "description": _clip(described if described and described.strip() else f"MCP server {shown}", DESCRIPTION_MAX),
        "remotes": [{"type": "streamable-http", "url": url, "supportedProtocolVersions": list(versions)}],
    }
    if isinstance(title, str) and title.strip():
        card["title"] = _clip(title, TITLE_MAX)
    website = info.get("websiteUrl")
    if isinstance(website, str) and website.startswith(("https://", "http://")):
        card["websiteUrl"] = website
    icons = [icon for icon in info.get("icons") or [] if isinstance(icon, dict) and isinstance(icon.get("src"), str)]
    if icons:
        card["icons"] = icons
    return card


def catalog_entry(card: dict[str, Any], card_url: str) -> dict[str, Any]:
    """An AI Catalog entry pointing at a hosted card (docs/discovery.md §Server Card Entries: the domain-anchored
    identifier ``urn:air:{publisher}:{namespace}:{name}``, the card's media type, its ``url``)."""
    publisher = urlsplit(card_url).hostname or "localhost"
    name = card["name"].split("/", 1)[1]
    return {"identifier": f"urn:air:{publisher}:mcp:{name}", "type": CARD_MEDIA_TYPE, "url": card_url}


def catalog(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The AI Catalog document (docs/discovery.md §AI Catalog, its examples' ``specVersion`` and ``entries``)."""
    return {"specVersion": CATALOG_SPEC_VERSION, "entries": entries}


def body_and_etag(document: dict[str, Any]) -> tuple[bytes, str]:
    """The document's bytes and a strong entity tag of them (RFC 9110 §8.8.3; its form is ours to choose)."""
    body = orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def not_modified(if_none_match: str | None, etag: str) -> bool:
    """Whether a GET with this ``If-None-Match`` gets 304 (RFC 9110 §13.1.2: ``*``, or any listed tag equal to the
    current one by the weak comparison)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    current = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == current for tag in if_none_match.split(","))


def card_url(endpoint_url: str) -> str:
    """Where the card of the endpoint at ``endpoint_url`` is hosted (``<streamable-http-url>/server-card``)."""
    return endpoint_url.rstrip("/") + CARD_SUFFIX
