"""Checks of a bridged endpoint's MCP Server Card and the AI Catalog (issue #30, acceptance 3): the card against the
experimental extension's schema (vendored in tests/data/server-card), the catalog against the extension's text
(docs/discovery.md §AI Catalog, §Server Card Entries), both against the endpoint's own ``server/discover``, and the
ETag revalidation and headers of docs/discovery.md §Caching and §CORS Requirements."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import jsonschema

SCHEMA = json.loads((Path(__file__).parent / "data" / "server-card" / "schema.json").read_text())
CARD_TYPE = "application/mcp-server-card+json"


def validate_card(card: Any) -> None:
    schema = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": "#/$defs/ServerCard"}
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(card)


def validate_catalog(catalog: Any) -> None:
    assert isinstance(catalog, dict) and isinstance(catalog.get("specVersion"), str)
    assert isinstance(catalog.get("entries"), list) and catalog["entries"]
    for entry in catalog["entries"]:
        assert re.fullmatch(r"urn:air:[^:\s]+:[^:\s]+:[^:\s]+", entry["identifier"]), entry
        assert entry["type"] == CARD_TYPE
        assert ("url" in entry) != ("data" in entry), entry  # exactly one of url or data


def discover(client: httpx.Client, url: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "card-test", "version": "1"}}}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover", "Accept": "application/json, text/event-stream"}
    resp = client.post(url, json=body, headers=headers)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")][-1]["result"]
    return resp.json()["result"]


def fetch(client: httpx.Client, url: str, media_type: str) -> tuple[Any, str]:
    """GET a document, check its headers and its revalidation (304 for its ETag, 200 for another)."""
    resp = client.get(url, headers={"Accept": media_type})
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith(media_type)
    assert resp.headers["access-control-allow-origin"] == "*" and "ETag" in resp.headers["access-control-expose-headers"]
    assert "max-age" in resp.headers["cache-control"]
    etag = resp.headers["etag"]
    again = client.get(url, headers={"Accept": media_type, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
    return resp.json(), etag


def check_endpoint(client: httpx.Client, endpoint: str, *, legacy_front: bool = True) -> dict[str, Any]:
    """The card of ``endpoint``: valid, and what its ``server/discover`` says."""
    card, _etag = fetch(client, endpoint + "/server-card", CARD_TYPE)
    validate_card(card)
    found = discover(client, endpoint)
    info = found["_meta"]["io.modelcontextprotocol/serverInfo"]
    (remote,) = card["remotes"]
    assert remote["type"] == "streamable-http" and remote["url"] == endpoint
    versions = remote["supportedProtocolVersions"]
    assert set(found["supportedVersions"]) <= set(versions) and "2026-07-28" in versions
    assert ("2025-11-25" in versions) is legacy_front  # the 2025 front serves that era too
    assert card["version"] == info["version"] and card["name"].endswith("/" + info["name"])
    return card
