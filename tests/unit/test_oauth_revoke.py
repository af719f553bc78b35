"""Token revocation at sign-out (RFC 7009), the pure half: which requests, and what an answer means."""

from __future__ import annotations

import base64
from typing import Any

from mcp_eras.bridge.translate.oauth.revoke import revocation_outcome, revocation_requests

ENDPOINT = "https://as.example.com/token/revocation"


def stored(**over: Any) -> dict[str, Any]:
    tokens = {"access_token": "at-1", "refresh_token": "rt-1", "revocation_endpoint": ENDPOINT,
              "client": {"client_id": "c1", "auth_method": "none"}}
    tokens.update(over)
    return tokens


def test_refresh_token_first_then_access_token_with_hints() -> None:
    plan = revocation_requests(stored())
    assert plan.reason is None
    assert [(r.method, r.url) for r in plan.requests] == [("POST", ENDPOINT)] * 2
    assert [r.form for r in plan.requests] == [
        {"token": "rt-1", "token_type_hint": "refresh_token", "client_id": "c1"},
        {"token": "at-1", "token_type_hint": "access_token", "client_id": "c1"},
    ]
    assert all(r.headers["Content-Type"] == "application/x-www-form-urlencoded" for r in plan.requests)


def test_the_client_authenticates_as_at_the_token_endpoint() -> None:
    plan = revocation_requests(stored(client={"client_id": "c:1", "client_secret": "s/2", "auth_method": "client_secret_basic"}))
    request = plan.requests[0]
    assert "client_id" not in (request.form or {}) and "client_secret" not in (request.form or {})
    assert base64.b64decode(request.headers["Authorization"].split()[1]) == b"c%3A1:s%2F2"
    post = revocation_requests(stored(client={"client_id": "c1", "client_secret": "s", "auth_method": "client_secret_post"}))
    assert post.requests[0].form is not None and post.requests[0].form["client_secret"] == "s"


def test_no_endpoint_insecure_endpoint_no_client_no_token_say_why() -> None:
    assert "no revocation endpoint" in (revocation_requests(stored(revocation_endpoint=None)).reason or "")
    insecure = revocation_requests(stored(revocation_endpoint="http://as.example.com/revoke"))
    assert not insecure.requests and "https" in (insecure.reason or "")
    assert revocation_requests(stored(revocation_endpoint="http://127.0.0.1:9/revoke")).requests
    assert "no client" in (revocation_requests(stored(client=None)).reason or "")
    assert "no token" in (revocation_requests(stored(access_token=None, refresh_token=None)).reason or "")
    only_access = revocation_requests(stored(refresh_token=None))
    assert [r.form["token_type_hint"] for r in only_access.requests if r.form] == ["access_token"]


def test_answers() -> None:
    assert revocation_outcome(200, b"") is None  # also for a token the server no longer knows (RFC 7009 §2.2)
    assert revocation_outcome(400, b'{"error":"unsupported_token_type"}') is None
    assert "later" in (revocation_outcome(503, b"") or "")
    assert revocation_outcome(401, b'{"error":"invalid_client"}') == "HTTP 401 invalid_client"
    assert revocation_outcome(500, b"not json") == "HTTP 500"


def test_no_token_in_what_is_said() -> None:
    for reason in (revocation_outcome(401, b'{"error":"invalid_client","token":"rt-1"}'),
                   revocation_requests(stored(revocation_endpoint="http://x.example/r")).reason):
        assert reason is not None and "rt-1" not in reason and "at-1" not in reason
