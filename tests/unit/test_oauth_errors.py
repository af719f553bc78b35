"""Every bad-server (and bad-configuration) case of the sign-in machine ends with its named error, and
nothing is stored. Spec: MCP 2026-07-28 basic/authorization (Authorization Response Validation, Step-Up),
authorization-server-discovery (issuer check), security-considerations (PKCE, open redirection);
RFC 9728 §3.3, RFC 8414 §3.3, RFC 9207 §2.4, RFC 8707."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_oauth_machine import AS, PRM_ROOT, REDIRECT, World, asm, drive, new, prm, standard_world, unauthorized

from mcp_eras.bridge.translate.oauth import ERRORS, Fail, RefreshNow, SignIn, Unauthorized

ASM_URL = AS + "/.well-known/oauth-authorization-server"
TOKEN = ("POST", AS + "/token")


def route(key: tuple[str, str], status: int, body: Any) -> Callable[[World], None]:
    def change(world: World) -> None:
        world.routes[key] = (status, body)

    return change


def set_attr(name: str, value: Any) -> Callable[[World], None]:
    return lambda world: setattr(world, name, value)


def token(**fields: Any) -> Callable[[World], None]:
    return route(TOKEN, 200, {"access_token": "at-x", "token_type": "Bearer", **fields})


CASES: list[tuple[str, Callable[[World], None], dict[str, Any]]] = [
    ("wrong_iss", set_attr("iss", "https://evil.example.com"), {}),
    ("wrong_iss", set_attr("redirect", {"state": "", "iss": "https://evil.example.com", "error": "access_denied"}), {}),
    ("missing_iss", set_attr("iss", None), {}),
    ("issuer_mismatch", route(("GET", ASM_URL), 200, asm(issuer="https://honest.example")), {}),
    ("redirect_not_loopback", lambda w: None, {"redirect_uri": "https://app.example.com/callback"}),
    ("redirect_not_loopback", lambda w: None, {"redirect_uri": "http://192.0.2.7:8080/callback"}),
    ("redirect_not_loopback", route(("POST", AS + "/register"), 201, {"client_id": "c", "redirect_uris": ["https://evil.example/cb"]}), {}),
    ("state_mismatch", set_attr("redirect", {"code": "c", "state": "forged", "iss": AS}), {}),
    ("state_mismatch", set_attr("redirect", {"code": "c", "iss": AS}), {}),
    ("wrong_resource", token(resource="https://other.example.com/mcp"), {}),
    ("wrong_resource", token(aud=["https://other.example.com"]), {}),
    ("pkce_unsupported", route(("GET", ASM_URL), 200, asm(code_challenge_methods_supported=[])), {}),
    ("pkce_unsupported", route(("GET", ASM_URL), 200, asm(code_challenge_methods_supported=["plain"])), {}),
    ("pkce_unsupported", route(("GET", ASM_URL), 200, asm(code_challenge_methods_supported=None)), {"require_pkce_metadata": True}),
    ("bad_json", route(("GET", PRM_ROOT), 200, b"<html>not json</html>"), {}),
    ("bad_json", route(("GET", ASM_URL), 200, b"[1, 2]"), {}),
    ("bad_json", route(("POST", AS + "/register"), 201, b"{"), {}),
    ("bad_json", route(TOKEN, 200, b"\xff\xfe"), {}),
    ("bad_metadata", route(("GET", PRM_ROOT), 200, prm(authorization_servers=[])), {}),
    ("bad_metadata", route(("GET", PRM_ROOT), 200, {"authorization_servers": [AS]}), {}),
    ("bad_metadata", route(("GET", ASM_URL), 200, asm(token_endpoint=None)), {}),
    ("bad_metadata", route(("POST", AS + "/register"), 201, {"client_secret": "x"}), {}),
    ("resource_mismatch", route(("GET", PRM_ROOT), 200, prm(resource="https://evil.example.com/mcp")), {}),
    ("resource_mismatch", route(("GET", PRM_ROOT), 200, prm(resource="https://mcp.example.com/other")), {}),
    ("metadata_unavailable", route(("GET", PRM_ROOT), 503, {}), {}),
    ("metadata_unavailable", route(("GET", ASM_URL), 500, {}), {}),
    ("no_as_metadata", route(("GET", ASM_URL), 404, {}), {}),
    ("insecure_endpoint", route(("GET", PRM_ROOT), 200, prm(authorization_servers=["http://auth.example.com"])), {}),
    ("insecure_endpoint", route(("GET", ASM_URL), 200, asm(token_endpoint="http://auth.example.com/token")), {}),
    ("no_client_identity", route(("GET", ASM_URL), 200, asm(registration_endpoint=None)), {}),
    ("no_client_auth_method", route(("GET", ASM_URL), 200, asm(token_endpoint_auth_methods_supported=["private_key_jwt"])),
     {"client_id": "pre", "client_secret": "s"}),
    ("no_client_auth_method", route(("POST", AS + "/register"), 201, {"client_id": "c", "token_endpoint_auth_method": "tls"}), {}),
    ("registration_failed", route(("POST", AS + "/register"), 400, {"error": "invalid_redirect_uri"}), {}),
    ("authorization_denied", set_attr("redirect", {"error": "access_denied", "state": "", "iss": AS}), {}),
    ("bad_redirect", set_attr("redirect", {"state": "", "iss": AS}), {}),
    ("token_error", route(TOKEN, 400, {"error": "invalid_grant"}), {}),
    ("bad_token_response", route(TOKEN, 200, {"token_type": "Bearer"}), {}),
    ("unsupported_token_type", token(token_type="DPoP"), {}),
    ("bad_config", lambda w: None, {"client_metadata_url": "http://app.example.com/client.json"}),
]


def fill_state(world: World, machine: SignIn) -> None:
    """Redirect overrides written with an empty state get the machine's real one (so only the tested field is wrong)."""
    if world.redirect is not None and world.redirect.get("state") == "":
        world.redirect["state"] = machine.state.state or ""


@pytest.mark.parametrize(("error", "change", "config"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_case_ends_with_its_named_error_and_stores_nothing(error: str, change: Callable[[World], None], config: dict[str, Any]) -> None:
    world = standard_world()
    change(world)
    machine = new(**config)
    authorize = world.authorize

    def authorize_with_state(url: str, state: str, now: float) -> Any:
        fill_state(world, machine)
        return authorize(url, state, now)

    world.authorize = authorize_with_state  # type: ignore[method-assign]
    result = drive(machine, unauthorized(), world)
    assert isinstance(result, Fail), result
    assert result.error == error, result
    assert world.stored == []
    assert machine.state.phase == "failed" and machine.state.error == error
    assert machine.state.tokens is None


def test_a_mismatched_iss_hides_the_error_it_carries() -> None:
    """2026-07-28: on iss mismatch the client MUST NOT act on or display error / error_description."""
    world = standard_world()
    world.redirect = {"error": "access_denied", "error_description": "phish here", "state": "", "iss": "https://evil.example.com"}
    machine = new()
    orig = world.authorize
    world.authorize = lambda url, state, now: (fill_state(world, machine), orig(url, state, now))[1]  # type: ignore[method-assign]
    result = drive(machine, unauthorized(), world)
    assert isinstance(result, Fail) and result.error == "wrong_iss" and "phish" not in result.detail


def test_forbidden_without_a_scope_challenge() -> None:
    world = standard_world()
    result = drive(new(), unauthorized('Bearer error="invalid_token"', 403), world)
    assert result == Fail("forbidden", "invalid_token") and world.requests == []
    assert drive(new(), unauthorized(None, 403), world).error == "forbidden"  # type: ignore[union-attr]


def test_endless_step_up_and_bad_entropy() -> None:
    world, machine = standard_world(), new(max_step_ups=1)
    header = f'Bearer error="insufficient_scope", scope="more", resource_metadata="{PRM_ROOT}"'
    drive(machine, unauthorized(header, 403), world)
    stored = len(world.stored)
    result = drive(machine, unauthorized(header, 403), world)
    assert isinstance(result, Fail) and result.error == "step_up_exhausted" and len(world.stored) == stored
    short = new().handle(Unauthorized(401, None, 0.0, b"\0" * 16))
    assert isinstance(short[0], Fail) and short[0].error == "bad_config"


def test_a_refresh_asked_for_after_a_401_refresh_never_opens_the_browser() -> None:
    world, machine = standard_world(), new()
    drive(machine, unauthorized(), world)
    drive(machine, unauthorized(), world)  # 401 -> rediscovery -> refresh
    world.routes[TOKEN] = (400, {"error": "invalid_grant"})
    browsed = len(world.browsed)
    result = drive(machine, RefreshNow(5000.0), world)
    assert isinstance(result, Fail) and result.error == "refresh_failed" and len(world.browsed) == browsed


def test_refresh_failures_store_nothing() -> None:
    world, machine = standard_world(), new()
    assert drive(machine, RefreshNow(1.0), world).error == "refresh_failed"  # type: ignore[union-attr]  # nothing to refresh
    drive(machine, unauthorized(), world)
    stored = len(world.stored)
    world.routes[TOKEN] = (400, {"error": "invalid_grant"})
    result = drive(machine, RefreshNow(2000.0), world)
    assert isinstance(result, Fail) and result.error == "refresh_failed" and len(world.stored) == stored


def test_every_named_error_is_exercised() -> None:
    seen = {case[0] for case in CASES} | {"forbidden", "step_up_exhausted", "refresh_failed"}
    assert seen == set(ERRORS)


def test_the_redirect_uri_may_be_any_loopback_form() -> None:
    for uri in ("http://localhost:9/cb", "http://[::1]:9/cb", REDIRECT):
        assert drive(new(redirect_uri=uri), unauthorized(), _world_for(uri)).access_token == "at-1"  # type: ignore[union-attr]


def _world_for(uri: str) -> World:
    world = standard_world()
    world.routes[("POST", AS + "/register")] = (201, {"client_id": "c", "redirect_uris": [uri]})
    return world
