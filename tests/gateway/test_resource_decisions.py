"""The resource server's pure decisions (mcp_eras.bridge.translate.gateway: tokens, resource, jwks), with the
examples of RFC 9728, RFC 6750 and RFC 7662 where they have one."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from mcp_eras.bridge.translate.gateway import jwks as jp
from mcp_eras.bridge.translate.gateway import resource as rs
from mcp_eras.bridge.translate.gateway import tokens as tk

ISS, AUD = "https://as.example/", "https://gw.example/mcp"
RULES = tk.TokenRules(ISS, frozenset({AUD}), frozenset({"mcp:tools"}))
NOW = 1_800_000_000.0


def claims(**over: Any) -> dict[str, Any]:
    base = {"iss": ISS, "aud": AUD, "sub": "user-1", "exp": NOW + 300, "iat": NOW, "scope": "mcp:tools other"}
    base.update(over)
    return {k: v for k, v in base.items() if v is not None}


def b64(obj: Any) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# --- RFC 9728 -----------------------------------------------------------------------------------------

def test_well_known_path_insertion_rfc9728_section_3_1() -> None:
    assert rs.metadata_url("https://resource.example.com/resource1") == \
        "https://resource.example.com/.well-known/oauth-protected-resource/resource1"
    assert rs.metadata_url("https://resource.example.com") == "https://resource.example.com/.well-known/oauth-protected-resource"
    assert rs.metadata_url("https://resource.example.com/") == "https://resource.example.com/.well-known/oauth-protected-resource"
    assert rs.well_known_path("/mcp") == "/.well-known/oauth-protected-resource/mcp"
    assert rs.well_known_path("/mcp/") == "/.well-known/oauth-protected-resource/mcp"
    assert rs.well_known_path("/servers/a/mcp") == "/.well-known/oauth-protected-resource/servers/a/mcp"


def test_fleet_resource_and_its_metadata() -> None:
    resource = rs.fleet_resource("https://gw.example/", "weather")
    assert resource == "https://gw.example/servers/weather/mcp"
    assert rs.metadata_url(resource) == "https://gw.example/.well-known/oauth-protected-resource/servers/weather/mcp"


def test_metadata_document_rfc9728_section_2() -> None:
    doc = rs.ProtectedResource(AUD, ISS, ("mcp:tools",)).document()
    assert doc == {"resource": AUD, "authorization_servers": [ISS], "bearer_methods_supported": ["header"],
                   "scopes_supported": ["mcp:tools"]}
    assert "scopes_supported" not in rs.ProtectedResource(AUD, ISS).document()


def test_challenge_without_token_has_no_error_rfc6750_section_3_1() -> None:
    # RFC 9728 section 5.1's example, plus the scope MCP basic/authorization asks for
    value = rs.www_authenticate("https://resource.example.com/.well-known/oauth-protected-resource", ["mcp:tools"], tk.MISSING)
    assert value == 'Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource", scope="mcp:tools"'


def test_challenge_with_error_rfc6750_section_3() -> None:
    refused = tk.Refused(401, tk.INVALID_TOKEN, "The access token expired")
    value = rs.ProtectedResource(AUD, ISS).challenge(refused)
    assert value == ('Bearer resource_metadata="https://gw.example/.well-known/oauth-protected-resource/mcp", '
                     'error="invalid_token", error_description="The access token expired"')
    quoted = rs.www_authenticate("https://x/", [], tk.Refused(401, tk.INVALID_TOKEN, 'bad "quote" \\ and\nnewline'))
    assert 'error_description="bad ?quote? ? and?newline"' in quoted


# --- tokens -------------------------------------------------------------------------------------------

def test_bearer_header_forms() -> None:
    assert tk.bearer(None, RULES) is tk.MISSING
    assert tk.bearer("Bearer abc.def.ghi", RULES) == "abc.def.ghi"
    assert tk.bearer("bearer  abc", RULES) == "abc"
    basic = tk.bearer("Basic dXNlcjpwYXNz", RULES)
    assert isinstance(basic, tk.Refused) and basic.status == 401 and basic.error is None  # RFC 6750 section 3.1
    spaced = tk.bearer("Bearer a b", RULES)
    assert isinstance(spaced, tk.Refused) and spaced.status == 400 and spaced.error == tk.INVALID_REQUEST
    big = tk.bearer("Bearer " + "a" * RULES.max_token_bytes, RULES)
    assert isinstance(big, tk.Refused) and big.description == "token too large" and big.status == 401


def test_split_jws_and_malformed_tokens() -> None:
    jws = tk.split_jws(f"{b64({'alg': 'RS256', 'kid': 'k'})}.{b64(claims())}.{b64(b'sig')}")
    assert jws is not None and jws.header["kid"] == "k" and jws.payload["sub"] == "user-1" and jws.signature == b"sig"
    for bad in ("opaque-token", "a.b", "a.b.c.d", f"{b64({'alg': 'RS256'})}.!!!.x", f"{b64([1])}.{b64(claims())}.x",
                f"{b64({'alg': 'RS256'})}=.{b64(claims())}.x"):
        assert tk.split_jws(bad) is None, bad


@pytest.mark.parametrize("header,reason", [
    ({"alg": "none"}, "signing algorithm 'none' is not accepted"),
    ({"alg": "HS256", "kid": "k"}, "signing algorithm 'HS256' is not accepted"),
    ({}, "signing algorithm None is not accepted"),
    ({"alg": "RS256", "crit": ["exp"]}, "unsupported critical header parameters"),
    ({"alg": "RS256", "kid": 7}, "malformed key id"),
    ({"alg": "RS256", "typ": "id_token+jwt"}, "token type 'id_token+jwt' is not an access token"),
])
def test_header_refusals_rfc8725(header: dict[str, Any], reason: str) -> None:
    refused = tk.check_header(header, RULES)
    assert refused == tk.Refused(401, tk.INVALID_TOKEN, reason)


def test_header_accepted() -> None:
    for typ in (None, "at+jwt", "JWT"):
        assert tk.check_header({"alg": "ES256", "kid": "k", **({"typ": typ} if typ else {})}, RULES) is None


def test_rules_refuse_symmetric_or_none_algorithms_and_unbounded_skew() -> None:
    for algs in ({"none"}, {"HS256", "RS256"}):
        with pytest.raises(ValueError):
            tk.TokenRules(ISS, frozenset({AUD}), algorithms=frozenset(algs))
    with pytest.raises(ValueError):
        tk.TokenRules(ISS, frozenset({AUD}), skew=tk.MAX_SKEW + 1)


def test_claims_accepted_with_subject_of_issuer_and_sub() -> None:
    ok = tk.check_claims(claims(), NOW, RULES)
    assert ok == tk.Accepted(f"{ISS}|user-1", frozenset({"mcp:tools", "other"}), NOW + 300)
    listed = tk.check_claims(claims(aud=["https://other.example", AUD]), NOW, RULES)
    assert isinstance(listed, tk.Accepted)
    scp = tk.check_claims(claims(scope=None, scp=["mcp:tools"]), NOW, RULES)
    assert isinstance(scp, tk.Accepted) and scp.scopes == frozenset({"mcp:tools"})


@pytest.mark.parametrize("over,status,reason", [
    ({"iss": "https://evil.example/"}, 401, "token was issued by another issuer"),
    ({"iss": None}, 401, "token was issued by another issuer"),
    ({"aud": "https://other.example/mcp"}, 401, "token was issued for another resource"),
    ({"aud": []}, 401, "token was issued for another resource"),
    ({"aud": None}, 401, "token was issued for another resource"),
    ({"exp": None}, 401, "token has no expiry"),
    ({"exp": "soon"}, 401, "malformed exp claim"),
    ({"exp": NOW - 61}, 401, "token expired"),
    ({"nbf": NOW + 61}, 401, "token is not valid yet"),
    ({"sub": None}, 401, "token names no subject"),
    ({"scope": "other"}, 403, "token lacks scope mcp:tools"),
])
def test_claims_refused(over: dict[str, Any], status: int, reason: str) -> None:
    refused = tk.check_claims(claims(**over), NOW, RULES)
    assert isinstance(refused, tk.Refused)
    assert (refused.status, refused.description) == (status, reason)
    assert refused.error == (tk.INSUFFICIENT_SCOPE if status == 403 else tk.INVALID_TOKEN)


def test_clock_skew_is_bounded_both_ways() -> None:
    assert isinstance(tk.check_claims(claims(exp=NOW - 60), NOW, RULES), tk.Accepted)
    assert isinstance(tk.check_claims(claims(nbf=NOW + 60), NOW, RULES), tk.Accepted)
    strict = tk.TokenRules(ISS, frozenset({AUD}), skew=0)
    assert isinstance(tk.check_claims(claims(exp=NOW - 1), NOW, strict), tk.Refused)


def test_introspection_answer_rfc7662_section_2_2() -> None:
    # RFC 7662 section 2.2's example answer, for this resource and issuer
    answer = {"active": True, "client_id": "l238j323ds-23ij4", "username": "jdoe", "scope": "read write dolphin mcp:tools",
              "sub": "Z5O3upPC88QrAjx00dis", "aud": AUD, "iss": ISS, "exp": NOW + 100, "iat": NOW - 100}
    ok = tk.check_claims(answer, NOW, RULES, introspected=True)
    assert isinstance(ok, tk.Accepted) and ok.subject == f"{ISS}|Z5O3upPC88QrAjx00dis"
    no_iss = tk.check_claims({k: v for k, v in answer.items() if k != "iss"}, NOW, RULES, introspected=True)
    assert isinstance(no_iss, tk.Accepted)
    client_token = {k: v for k, v in answer.items() if k not in ("sub", "username")}
    assert tk.check_claims(client_token, NOW, RULES, introspected=True).subject == f"{ISS}|l238j323ds-23ij4"  # type: ignore[union-attr]
    assert isinstance(tk.check_claims({**claims(sub=None), "client_id": "c"}, NOW, RULES), tk.Refused)  # a JWT needs sub
    for inactive in ({"active": False}, {**answer, "active": "true"}, {k: v for k, v in answer.items() if k != "active"}):
        refused = tk.check_claims(inactive, NOW, RULES, introspected=True)
        assert isinstance(refused, tk.Refused) and refused.description == "token is not active"


# --- JWKS cache ---------------------------------------------------------------------------------------

def test_jwks_cache_policy() -> None:
    policy = jp.JwksPolicy(max_age=3600, min_interval=30)
    assert jp.key_lookup(policy, fetched_at=None, kid_known=False, now=0) is jp.KeyLookup.FETCH
    assert jp.key_lookup(policy, fetched_at=100, kid_known=True, now=200) is jp.KeyLookup.USE_CACHED
    assert jp.key_lookup(policy, fetched_at=100, kid_known=True, now=3700) is jp.KeyLookup.FETCH  # stale
    # rotation: an unknown kid refetches, but not twice within min_interval
    assert jp.key_lookup(policy, fetched_at=100, kid_known=False, now=129) is jp.KeyLookup.UNKNOWN_KEY
    assert jp.key_lookup(policy, fetched_at=100, kid_known=False, now=130) is jp.KeyLookup.FETCH
    assert not jp.may_retry_fetch(policy, failed_at=100, now=110)
    assert jp.may_retry_fetch(policy, failed_at=100, now=130) and jp.may_retry_fetch(policy, failed_at=None, now=0)
