"""The Server Card and AI Catalog as pure data (``translate.server_card``), validated against the extension's schema."""

from __future__ import annotations

import pytest
import server_card_checks as checks

from mcp_eras.bridge.translate import server_card as sc

URL = "https://mcp.example.com/mcp"


def discover(info: dict | None = None, **extra: object) -> dict:
    result: dict = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}, **extra}
    if info is not None:
        result["_meta"] = {"io.modelcontextprotocol/serverInfo": info}
    return result


@pytest.mark.parametrize("found", [
    discover({"name": "weather", "version": "1.2.0", "title": "Weather", "websiteUrl": "https://example.com"}),
    discover({"name": "secure filesystem server!", "version": "0.6.2"}, instructions="x" * 500),
    discover(None),
    discover({"name": "", "version": 3, "icons": [{"src": "https://example.com/i.png"}, {"nope": 1}]}),
])
def test_cards_validate_whatever_the_server_says(found: dict) -> None:
    card = sc.server_card(found, URL, sc.served_versions("auto", True), "upstream")
    checks.validate_card(card)
    assert card["remotes"] == [{"type": "streamable-http", "url": URL,
                                "supportedProtocolVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]}]
    assert card["name"].startswith("com.example.mcp/") and len(card["description"]) <= 100


def test_card_fields_come_from_server_discover() -> None:
    card = sc.server_card(discover({"name": "weather", "version": "1.2.0", "title": "Weather"}, instructions="Forecasts."),
                          "http://127.0.0.1:8000/mcp", ["2026-07-28"], "upstream")
    assert card["name"] == "127.0.0.1/weather" and card["version"] == "1.2.0" and card["title"] == "Weather"
    assert card["description"] == "Forecasts."
    assert sc.server_card(discover(None), URL, [], "fleet-a")["name"] == "com.example.mcp/fleet-a"


def test_served_versions_follow_the_front() -> None:
    assert sc.served_versions("2026-07-28", True) == ["2026-07-28"]
    assert sc.served_versions("2025-11-25", True)[0] == "2025-11-25" and "2026-07-28" not in sc.served_versions("2025-11-25", True)
    assert sc.served_versions("auto", False) == ["2026-07-28"]


def test_catalog_entries_point_at_the_cards() -> None:
    card = sc.server_card(discover({"name": "weather", "version": "1"}), URL, ["2026-07-28"], "u")
    entry = sc.catalog_entry(card, sc.card_url(URL))
    assert entry == {"identifier": "urn:air:mcp.example.com:mcp:weather", "type": "application/mcp-server-card+json",
                     "url": "https://mcp.example.com/mcp/server-card"}
    checks.validate_catalog(sc.catalog([entry]))


def test_etag_revalidation() -> None:
    body, etag = sc.body_and_etag({"b": 1, "a": 2})
    assert body == b'{"a":2,"b":1}' and etag.startswith('"') and etag.endswith('"')
    assert sc.body_and_etag({"a": 2, "b": 1})[1] == etag  # the same document, the same tag
    assert sc.not_modified(etag, etag) and sc.not_modified("W/" + etag, etag) and sc.not_modified(f'"x", {etag}', etag)
    assert sc.not_modified("*", etag)
    assert not sc.not_modified(None, etag) and not sc.not_modified('"x"', etag)
