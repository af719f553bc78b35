"""The upstream credential's decisions, pure: the modes' configuration, the token requests (RFC 6749 section 4.4,
RFC 8693 section 2.1), their answers, the token endpoint from metadata, and the bounded token cache."""

from __future__ import annotations

import base64
import json

import pytest

from mcp_eras.bridge.translate.gateway import upstream_auth as ua

UPSTREAM = "http://127.0.0.1:8002/mcp"
CC = ua.UpstreamAuth("client_credentials", client_id="bridge", client_secret="s3cret", scope="mcp:tools")
TX = ua.UpstreamAuth("token_exchange", client_id="bridge", client_secret="s3cret", audience="https://api.test")


def test_modes_are_checked() -> None:
    with pytest.raises(ValueError, match="mode"):
        ua.UpstreamAuth("bogus")
    with pytest.raises(ValueError, match="value"):
        ua.UpstreamAuth("header")
    with pytest.raises(ValueError, match="client_id"):
        ua.UpstreamAuth("token_exchange")
    with pytest.raises(ValueError, match="auth_method"):
        ua.UpstreamAuth("client_credentials", client_id="c", auth_method="private_key_jwt")
    assert "s3cret" not in repr(CC) and CC.obtains_tokens and not CC.per_caller and TX.per_caller


def test_client_credentials_request() -> None:
    req = ua.token_request(CC, ua.Endpoint("https://as.test/token", "client_secret_basic"), UPSTREAM)
    assert req.method == "POST" and req.url == "https://as.test/token"
    assert req.form == {"grant_type": "client_credentials", "resource": UPSTREAM, "scope": "mcp:tools"}
    assert base64.b64decode(req.headers["Authorization"].split()[1]) == b"bridge:s3cret"
    post = ua.token_request(CC, ua.Endpoint("https://as.test/token", "client_secret_post"), UPSTREAM)
    assert post.form is not None and post.form["client_id"] == "bridge" and post.form["client_secret"] == "s3cret"
    assert "Authorization" not in post.headers


def test_token_exchange_request() -> None:
    req = ua.token_request(TX, ua.Endpoint("https://as.test/token", "client_secret_post"), UPSTREAM, "caller-token")
    assert req.form is not None
    assert req.form["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange"
    assert req.form["subject_token"] == "caller-token"
    assert req.form["subject_token_type"] == req.form["requested_token_type"] == "urn:ietf:params:oauth:token-type:access_token"
    assert req.form["resource"] == UPSTREAM and req.form["audience"] == "https://api.test"
    with pytest.raises(ValueError, match="caller's token"):
        ua.token_request(TX, ua.Endpoint("https://as.test/token", "none"), UPSTREAM, None)


def answer(**body: object) -> bytes:
    return json.dumps(body).encode()


def test_token_answers() -> None:
    ok = ua.token_answer(200, answer(access_token="t1", token_type="Bearer", expires_in=600), 1000.0, exchange=False)
    assert ok == ua.Token("t1", 1000.0, 1600.0) and "t1" not in repr(ok)
    exchanged = answer(access_token="t2", token_type="bearer", issued_token_type=ua.ACCESS_TOKEN_TYPE)
    got = ua.token_answer(200, exchanged, 5.0, exchange=True)
    assert isinstance(got, ua.Token) and got.expires_at is None
    assert ua.token_answer(200, answer(access_token="t2", token_type="Bearer"), 5.0, exchange=True) == ua.TokenRefused(
        "bad_token_response", "issued_token_type None")
    assert ua.token_answer(200, answer(access_token="t", token_type="DPoP"), 0, exchange=False).error == "bad_token_response"  # type: ignore[union-attr]
    assert ua.token_answer(200, b"nope", 0, exchange=False) == ua.TokenRefused("bad_token_response", "no access_token")
    refused = ua.token_answer(400, answer(error="invalid_grant", error_description="subject token expired"), 0, exchange=True)
    assert refused == ua.TokenRefused("invalid_grant", "subject token expired")
    assert ua.token_answer(503, b"", 0, exchange=False) == ua.TokenRefused("http_503", "")


def test_token_endpoint_from_metadata() -> None:
    asm = answer(issuer="https://as.test/", token_endpoint="https://as.test/token",
                 token_endpoint_auth_methods_supported=["client_secret_post"],
                 grant_types_supported=["client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"])
    assert ua.endpoint_from_metadata(CC, asm, "https://as.test") == ua.Endpoint("https://as.test/token", "client_secret_post")
    assert "issuer" in str(ua.endpoint_from_metadata(CC, asm, "https://evil.test/"))
    no_cc = answer(issuer="https://as.test/", token_endpoint="https://as.test/token", grant_types_supported=["authorization_code"])
    assert "client_credentials grant" in str(ua.endpoint_from_metadata(CC, no_cc, "https://as.test/"))
    assert ua.pick_auth_method(ua.UpstreamAuth("client_credentials", client_id="public"), None) == "none"
    assert ua.pick_auth_method(CC, None) == "client_secret_basic"
    prm = answer(resource=UPSTREAM, authorization_servers=["https://as.test/"])
    assert ua.issuer_from_resource_metadata(prm, UPSTREAM) == "https://as.test/"
    assert ua.issuer_from_resource_metadata(prm, "http://127.0.0.1:9999/mcp") is None  # metadata for another resource


def test_cache_renews_before_expiry_and_keeps_its_caps() -> None:
    cache = ua.TokenCache(max_entries=2, max_bytes=64, default_ttl=300)
    cache.put("alice", ua.Token("a" * 10, 0.0, 600.0), 0.0)
    assert cache.get("alice", 539.0) is not None and cache.get("alice", 540.0) is None  # a minute early
    assert cache.size == 0
    short = ua.Token("s", 0.0, 10.0)
    cache.put("s", short, 0.0)
    assert cache.get("s", 4.9) is not None and cache.get("s", 5.0) is None  # half the lifetime of a short token
    untimed = ua.Token("u", 0.0, None)
    cache.put("u", untimed, 0.0)
    assert cache.get("u", 239.0) is not None and cache.get("u", 240.0) is None  # default_ttl, less the minute
    cache = ua.TokenCache(max_entries=2, max_bytes=64)
    assert cache.put("alice", ua.Token("a" * 10, 0, 600), 0) == []
    assert cache.put("bob", ua.Token("b" * 10, 0, 600), 0) == []
    cache.get("alice", 1)  # alice is now the most recently used
    assert cache.put("carol", ua.Token("c" * 10, 0, 600), 1) == ["bob"]  # the count cap: least recently used goes
    assert list(cache.entries) == ["alice", "carol"] and cache.size == 30
    assert cache.put("dave", ua.Token("d" * 50, 0, 600), 2) == ["alice", "carol"]  # the byte cap takes both
    assert cache.size == 54
    assert cache.put("eve", ua.Token("e" * 64, 0, 600), 3) is None  # larger than the whole cache: not kept
    assert "eve" not in cache.entries and cache.size == 54
    stale = ua.TokenCache(max_entries=2, max_bytes=1000)
    stale.put("old", ua.Token("o", 0, 10), 0)
    stale.put("live", ua.Token("l", 0, 600), 0)
    assert stale.put("new", ua.Token("n", 0, 600), 100) == []  # at the cap a stale entry goes first, silently
    assert list(stale.entries) == ["live", "new"]
