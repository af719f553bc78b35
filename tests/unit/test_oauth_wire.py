"""Wire helpers of the OAuth client with the spec's and RFCs' own examples: WWW-Authenticate (RFC 6750 §3,
RFC 9728 §5.1, MCP 2025-11-25 / 2026-07-28 examples), well-known URLs (MCP "Protected Resource Metadata
Discovery Requirements", "Authorization Server Metadata Discovery"), canonical URIs (MCP "Canonical Server
URI"), PKCE (RFC 7636 Appendix B), client authentication (RFC 6749 §2.3.1)."""

from __future__ import annotations

import base64

import pytest

from mcp_eras.bridge.translate.oauth.wire import (
    as_metadata_urls,
    bearer_challenge,
    canonical_resource,
    client_auth,
    is_cimd_url,
    is_loopback_redirect,
    issuer_matches,
    parse_www_authenticate,
    pkce_pair,
    prm_urls,
    resource_covers,
    s256,
    union_scopes,
)


def test_the_spec_401_and_403_examples() -> None:
    c = bearer_challenge(
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",\n'
        '                         scope="files:read"'
    )
    assert c.resource_metadata == "https://mcp.example.com/.well-known/oauth-protected-resource"
    assert c.scope == "files:read" and c.error is None
    c = bearer_challenge(
        'Bearer error="insufficient_scope",\n scope="files:read files:write user:profile",\n'
        ' resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",\n'
        ' error_description="Additional file write permission required"'
    )
    assert c.error == "insufficient_scope" and c.scope == "files:read files:write user:profile"
    assert c.params["error_description"] == "Additional file write permission required"


def test_rfc6750_and_rfc9728_examples_and_multiple_challenges() -> None:
    c = bearer_challenge('Bearer realm="example", error="invalid_token", error_description="The access token expired"')
    assert c.params == {"realm": "example", "error": "invalid_token", "error_description": "The access token expired"}
    # RFC 9728 §5.1 example, behind another scheme, in a second header value
    found = parse_www_authenticate(['Basic realm="x"', 'Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource"'])
    assert [ch.scheme for ch in found] == ["basic", "bearer"]
    assert bearer_challenge(['Basic realm="x"', "bearer Scope=a"]).scope == "a"  # names are case-insensitive
    assert bearer_challenge('Bearer error_description="say \\"hi\\", then go"').params["error_description"] == 'say "hi", then go'
    assert bearer_challenge("Bearer").params == {} and bearer_challenge(None).scheme == ""
    assert bearer_challenge('Basic realm="only"').scheme == ""
    assert bearer_challenge('Negotiate dXNlcjpwYXNz==, Bearer realm="a, b", scope="x y"').params == {"realm": "a, b", "scope": "x y"}
    assert bearer_challenge("Newauth realm=apps, type=1, Bearer scope=files:read").scope == "files:read"


def test_prm_urls_in_the_spec_order() -> None:
    assert prm_urls("https://example.com/public/mcp", None) == [
        "https://example.com/.well-known/oauth-protected-resource/public/mcp",
        "https://example.com/.well-known/oauth-protected-resource",
    ]
    assert prm_urls("https://example.com", None) == ["https://example.com/.well-known/oauth-protected-resource"]
    assert prm_urls("https://example.com/mcp", "https://meta.example.com/x")[0] == "https://meta.example.com/x"


def test_as_metadata_urls_in_the_spec_order() -> None:
    assert as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert as_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


def test_canonical_uris_from_the_spec() -> None:
    for uri in ("https://mcp.example.com/mcp", "https://mcp.example.com", "https://mcp.example.com:8443", "https://mcp.example.com/server/mcp"):
        assert canonical_resource(uri) == uri
    assert canonical_resource("HTTPS://MCP.Example.COM/") == "https://mcp.example.com"
    assert canonical_resource("https://mcp.example.com#fragment") == "https://mcp.example.com"
    with pytest.raises(ValueError):
        canonical_resource("mcp.example.com")


def test_resource_covers() -> None:
    assert resource_covers("https://mcp.example.com", "https://mcp.example.com/mcp")
    assert resource_covers("https://MCP.example.com/mcp/", "https://mcp.example.com/mcp")
    assert not resource_covers("https://mcp.example.com/mc", "https://mcp.example.com/mcp")
    assert not resource_covers("https://evil.example.com", "https://mcp.example.com/mcp")
    assert not resource_covers("not a url", "https://mcp.example.com/mcp")


def test_issuer_comparison_is_simple_string_comparison() -> None:
    assert issuer_matches("https://as.example.com", "https://as.example.com/")
    assert not issuer_matches("https://honest.example", "https://attacker.example")  # the spec's example
    assert not issuer_matches("https://as.example.com/t1", "https://as.example.com/t1/")
    assert not issuer_matches("https://AS.example.com", "https://as.example.com")


def test_loopback_redirects_and_cimd_urls() -> None:
    assert is_loopback_redirect("http://127.0.0.1:3000/callback") and is_loopback_redirect("http://localhost:3000/callback")
    assert is_loopback_redirect("http://[::1]:80/cb") and is_loopback_redirect("http://127.8.0.1/cb")
    for bad in ("https://127.0.0.1/cb", "http://10.0.0.1/cb", "http://localhost.evil.com/cb", "http://127.0.0.1/cb#f", "cb"):
        assert not is_loopback_redirect(bad), bad
    assert is_cimd_url("https://app.example.com/oauth/client-metadata.json")
    assert not is_cimd_url("https://app.example.com/") and not is_cimd_url("http://app.example.com/c.json")


def test_pkce_rfc7636_appendix_b() -> None:
    assert s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    verifier, challenge = pkce_pair(bytes(32))
    assert len(verifier) == 43 and challenge == s256(verifier)
    with pytest.raises(ValueError):
        pkce_pair(b"short")


def test_client_secret_basic_form_encodes_before_base64() -> None:
    form: dict[str, str] = {}
    headers = client_auth("client_secret_basic", "id:1", "p@ss w/rd", form)
    assert base64.b64decode(headers["Authorization"][6:]).decode() == "id%3A1:p%40ss%20w%2Frd" and form == {}
    form = {}
    assert client_auth("client_secret_post", "id", "sec", form) == {} and form == {"client_id": "id", "client_secret": "sec"}
    form = {}
    assert client_auth("none", "id", None, form) == {} and form == {"client_id": "id"}


def test_union_scopes() -> None:
    assert union_scopes("a b", None, "b c") == "a b c"
    assert union_scopes(None, "") is None
