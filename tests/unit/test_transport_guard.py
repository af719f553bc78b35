"""translate.transport_guard: the Host, Origin, content-type and body-size decisions of the HTTP fronts, without a
request (2026-07-28 basic/transports/streamable-http.mdx §Security & Endpoint; RFC 9110 §15.5)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate.transport_guard import GuardPolicy, host_allowed, is_mcp_path, origin_allowed, screen


@pytest.mark.parametrize(("host", "allowed", "ok"), [
    (None, [], True), ("localhost", [], True), ("LOCALHOST:80", [], True), ("[::1]:8080", [], True), ("::1", [], True),
    ("127.0.0.1:1", [], True), ("evil.example", [], False), ("localhost.evil.example", [], False), ("127.0.0.1:x", [], False),
    ("[::1", [], False), ("[::1]x", [], False),
    ("bridge.internal:9000", ["bridge.internal"], True), ("anything", ["*"], True),
])
def test_host_allow_list(host: str | None, allowed: list[str], ok: bool) -> None:
    assert host_allowed(host, allowed) is ok


@pytest.mark.parametrize(("origin", "allowed", "ok"), [
    (None, [], True), ("http://localhost:5173", [], True), ("http://[::1]:3000", [], True), ("https://127.0.0.1", [], True),
    ("https://evil.example", [], False), ("null", [], False), ("file://localhost", [], False),
    ("https://app.example", ["https://app.example"], True),
])
def test_origin_rules(origin: str | None, allowed: list[str], ok: bool) -> None:
    assert origin_allowed(origin, allowed) is ok


JSON = {"host": "127.0.0.1:8000", "content-type": "application/json; charset=utf-8", "content-length": "10"}


@pytest.mark.parametrize(("method", "path", "headers", "status"), [
    ("POST", "/mcp", JSON, None),
    ("POST", "/mcp", {**JSON, "host": "evil.example"}, 421),
    ("GET", "/healthz", {"host": "evil.example"}, 421),  # every route: a rebinding page reaches any of them
    ("POST", "/mcp", {**JSON, "origin": "https://evil.example"}, 403),
    ("POST", "/mcp", {**JSON, "host": "evil.example", "origin": "https://evil.example"}, 421),  # Host is looked at first
    ("POST", "/mcp", {**JSON, "content-type": "text/plain"}, 415),
    ("POST", "/mcp", {k: v for k, v in JSON.items() if k != "content-type"}, 415),
    ("POST", "/mcp", {**JSON, "content-type": " Application/JSON "}, None),
    ("POST", "/mcp", {**JSON, "content-length": "65"}, 413),
    ("POST", "/mcp", {**JSON, "content-length": "64"}, None),
    ("POST", "/mcp", {**JSON, "content-length": "x"}, None),  # not a number: the body reader enforces the cap
    ("POST", "/admin/reload", {**JSON, "content-type": "text/plain"}, None),  # content rules: MCP endpoints only
    ("GET", "/mcp", {"host": "localhost"}, None),
])
def test_screen(method: str, path: str, headers: dict[str, str], status: int | None) -> None:
    stop = screen(method, path, headers, GuardPolicy(max_body_bytes=64))
    assert (stop[0] if stop is not None else None) == status
    if status == 413:
        assert stop is not None and stop[2] == {"Connection": "close"} and "64 bytes" in stop[1]


def test_the_policy_reads_any_settings_and_its_own_mcp_path() -> None:
    class Fleet:
        allowed_hosts = ["bridge.internal"]
        allowed_origins = ["https://app.example"]
        max_body_bytes = 8

    policy = GuardPolicy.from_settings(Fleet(), lambda p: p.startswith("/servers/"))
    headers = {"host": "bridge.internal", "origin": "https://app.example", "content-type": "text/plain"}
    assert screen("POST", "/servers/a", headers, policy) is not None and screen("POST", "/mcp", headers, policy) is None
    assert is_mcp_path("/mcp") and is_mcp_path("/servers/a/mcp") and not is_mcp_path("/mcp/x")
