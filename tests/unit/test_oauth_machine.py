"""The OAuth sign-in machine (bridge/translate/oauth) driven with the spec's own examples: discovery order,
client identity, scope selection, step-up, refresh. Every step round-trips the state through JSON.

Spec: MCP 2025-11-25 basic/authorization, 2026-07-28 basic/authorization/{index,client-registration}.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from mcp_eras.bridge.translate.oauth import (
    AwaitRedirect,
    Done,
    Fail,
    HttpRequest,
    HttpResponse,
    OpenBrowser,
    Redirected,
    RefreshNow,
    SignIn,
    SignInState,
    Store,
    Succeeded,
    Unauthorized,
    refresh_at,
    refresh_due,
)
from mcp_eras.bridge.translate.oauth.wire import s256

MCP = "https://mcp.example.com/mcp"
AS = "https://auth.example.com"
REDIRECT = "http://127.0.0.1:33418/callback"
ENTROPY = bytes(range(64))
# The spec's example 401 (2025-11-25 and 2026-07-28 "Scope Selection Strategy"), folded as printed there.
SPEC_401 = (
    'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",\n'
    '                         scope="files:read"'
)
PRM_ROOT = "https://mcp.example.com/.well-known/oauth-protected-resource"


def prm(**over: Any) -> dict[str, Any]:
    return {"resource": MCP, "authorization_servers": [AS], "scopes_supported": ["files:read"], **over}


def asm(**over: Any) -> dict[str, Any]:
    doc = {
        "issuer": AS,
        "authorization_endpoint": AS + "/authorize",
        "token_endpoint": AS + "/token",
        "registration_endpoint": AS + "/register",
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
    }
    doc.update(over)
    return {k: v for k, v in doc.items() if v is not None}


def asm_at(issuer: str, prefix: str = "") -> dict[str, Any]:
    """Metadata of another authorization server whose endpoints live under ``issuer + prefix``."""
    base = issuer + prefix
    return asm(
        issuer=issuer, authorization_endpoint=base + "/authorize", token_endpoint=base + "/token", registration_endpoint=base + "/register"
    )


@dataclass
class World:
    """Canned answers by (method, url); anything else is a 404."""

    routes: dict[tuple[str, str], tuple[int, Any]] = field(default_factory=dict)
    requests: list[HttpRequest] = field(default_factory=list)
    browsed: list[str] = field(default_factory=list)
    stored: list[dict[str, Any]] = field(default_factory=list)
    redirect: dict[str, str] | None = None  # overrides the authorization response
    iss: str | None = AS

    def answer(self, request: HttpRequest, now: float) -> HttpResponse:
        self.requests.append(request)
        status, body = self.routes.get((request.method, request.url), (404, {"error": "not_found"}))
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return HttpResponse(status, {"content-type": "application/json"}, raw, now)

    def authorize(self, url: str, state: str, now: float) -> Redirected:
        if self.redirect is not None:
            return Redirected(dict(self.redirect), now)
        query = {"code": "code-1", "state": state}
        if self.iss is not None:
            query["iss"] = self.iss
        return Redirected(query, now)


def standard_world(**asm_over: Any) -> World:
    world = World()
    world.routes[("GET", PRM_ROOT)] = (200, prm())
    world.routes[("GET", AS + "/.well-known/oauth-authorization-server")] = (200, asm(**asm_over))
    world.routes[("POST", AS + "/register")] = (201, {"client_id": "dcr-1", "redirect_uris": [REDIRECT]})
    issued = {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"}
    world.routes[("POST", AS + "/token")] = (200, issued)
    return world


def roundtrip(machine: SignIn) -> None:
    data = json.loads(json.dumps(machine.state.to_json()))
    again = SignInState.from_json(data)
    assert again == machine.state
    machine.state = again


def drive(machine: SignIn, event: Any, world: World, now: float = 1000.0) -> Done | Fail:
    """Run the machine against ``world`` until it is done or fails; the state is JSON round-tripped at each step."""
    pending = [event]
    while pending:
        actions = machine.handle(pending.pop(0))
        roundtrip(machine)
        for action in actions:
            if isinstance(action, HttpRequest):
                pending.append(world.answer(action, now))
            elif isinstance(action, OpenBrowser):
                world.browsed.append(action.url)
            elif isinstance(action, AwaitRedirect):
                assert action.deadline == now + machine.state.redirect_timeout
                pending.append(world.authorize(world.browsed[-1], action.state, now))
            elif isinstance(action, Store):
                world.stored.append(action.tokens)
            elif isinstance(action, (Done, Fail)):
                return action
    raise AssertionError("the machine stopped without Done or Fail")


def new(**config: Any) -> SignIn:
    return SignIn(SignInState(**{"server_url": MCP, "redirect_uri": REDIRECT, **config}))


def unauthorized(header: str | None = SPEC_401, status: int = 401) -> Unauthorized:
    return Unauthorized(status, header, 1000.0, ENTROPY)


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def test_happy_path_with_the_spec_challenge_and_dynamic_registration() -> None:
    world, machine = standard_world(), new()
    result = drive(machine, unauthorized(), world)
    assert result == Done("at-1")
    assert [(r.method, r.url) for r in world.requests] == [
        ("GET", PRM_ROOT),
        ("GET", AS + "/.well-known/oauth-authorization-server"),
        ("POST", AS + "/register"),
        ("POST", AS + "/token"),
    ]
    registration = world.requests[2].json or {}
    assert registration["redirect_uris"] == [REDIRECT] and registration["application_type"] == "native"
    assert "refresh_token" in registration["grant_types"]
    auth = query_of(world.browsed[0])
    assert world.browsed[0].startswith(AS + "/authorize?")
    assert auth["response_type"] == "code" and auth["client_id"] == "dcr-1" and auth["redirect_uri"] == REDIRECT
    assert auth["code_challenge_method"] == "S256" and auth["resource"] == MCP and auth["scope"] == "files:read"
    token = world.requests[3].form or {}
    assert token["grant_type"] == "authorization_code" and token["code"] == "code-1" and token["resource"] == MCP
    assert s256(token["code_verifier"]) == auth["code_challenge"] and len(token["code_verifier"]) >= 43
    assert token["client_id"] == "dcr-1" and token["redirect_uri"] == REDIRECT
    [stored] = world.stored
    assert stored["access_token"] == "at-1" and stored["refresh_token"] == "rt-1" and stored["expires_at"] == 4600.0
    assert stored["resource"] == MCP and stored["issuer"] == AS and stored["scope"] == "files:read"
    assert stored["client"]["client_id"] == "dcr-1" and stored["client"]["issuer"] == AS
    assert machine.state.code_verifier is None  # the verifier is spent


def test_the_authorize_url_keeps_the_endpoint_query_and_encodes_resource() -> None:
    world = standard_world(authorization_endpoint=AS + "/authorize?tenant=a")
    world.routes[("GET", PRM_ROOT)] = (200, prm(resource="https://mcp.example.com"))
    machine = SignIn(SignInState(server_url="https://mcp.example.com", redirect_uri=REDIRECT))
    assert isinstance(drive(machine, unauthorized(), world), Done)
    assert "?tenant=a&response_type=code" in world.browsed[0]
    assert "&resource=https%3A%2F%2Fmcp.example.com" in world.browsed[0]  # the spec's example encoding


def test_well_known_order_without_a_header_then_oidc_path_forms() -> None:
    issuer = "https://auth.example.com/tenant1"
    world = standard_world()
    world.routes[("GET", PRM_ROOT)] = (200, prm(authorization_servers=[issuer]))
    world.routes[("GET", "https://auth.example.com/tenant1/.well-known/openid-configuration")] = (
        200,
        asm(issuer=issuer, registration_endpoint=None),
    )
    machine = new(client_id="pre-1")
    world.iss = issuer
    assert drive(machine, unauthorized(None), world) == Done("at-1")
    assert [r.url for r in world.requests[:5]] == [
        "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
        PRM_ROOT,
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]


def test_a_failing_header_url_falls_back_to_the_well_known_paths() -> None:
    world = standard_world()
    header = 'Bearer resource_metadata="https://mcp.example.com/meta/missing"'
    assert drive(new(), unauthorized(header), world) == Done("at-1")
    assert [r.url for r in world.requests[:3]] == [
        "https://mcp.example.com/meta/missing",
        "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
        PRM_ROOT,
    ]


def test_2025_03_26_fallback_origin_metadata_then_default_endpoints() -> None:
    origin = "https://mcp.example.com"
    world = standard_world()
    del world.routes[("GET", PRM_ROOT)]
    world.routes[("GET", origin + "/.well-known/oauth-authorization-server")] = (200, asm_at(origin, "/oauth"))
    world.routes[("POST", origin + "/oauth/register")] = (201, {"client_id": "c"})
    world.routes[("POST", origin + "/oauth/token")] = (200, {"access_token": "legacy", "token_type": "bearer"})
    world.iss = origin
    assert drive(new(), unauthorized(None), world) == Done("legacy")
    assert query_of(world.browsed[0])["resource"] == MCP
    # no metadata at all: /authorize, /token and /register at the origin
    bare = World(iss=None)
    bare.routes[("POST", origin + "/register")] = (201, {"client_id": "c"})
    bare.routes[("POST", origin + "/token")] = (200, {"access_token": "bare", "token_type": "Bearer"})
    assert drive(new(), unauthorized(None), bare) == Done("bare")
    assert bare.browsed[0].startswith(origin + "/authorize?")
    assert bare.stored[0]["expires_at"] is None


@pytest.mark.parametrize(
    ("offered", "secret", "method"),
    [
        (["client_secret_basic", "client_secret_post"], "s3cret", "client_secret_basic"),
        (["client_secret_post"], "s3cret", "client_secret_post"),
        (None, "s3cret", "client_secret_basic"),  # RFC 8414 §2 default
        (["none"], None, "none"),
    ],
)
def test_pre_registered_client_uses_the_advertised_auth_method(offered: list[str] | None, secret: str | None, method: str) -> None:
    world = standard_world(token_endpoint_auth_methods_supported=offered)
    machine = new(client_id="pre-1", client_secret=secret)
    assert drive(machine, unauthorized(), world) == Done("at-1")
    assert all(r.url != AS + "/register" for r in world.requests)
    token = world.requests[-1]
    form = token.form or {}
    if method == "client_secret_basic":
        assert token.headers["Authorization"].startswith("Basic ") and "client_secret" not in form and "client_id" not in form
    elif method == "client_secret_post":
        assert form["client_id"] == "pre-1" and form["client_secret"] == "s3cret" and "Authorization" not in token.headers
    else:
        assert form["client_id"] == "pre-1" and "client_secret" not in form and "Authorization" not in token.headers
    assert world.stored[0]["client"]["auth_method"] == method


def test_client_id_metadata_document_when_the_server_supports_it() -> None:
    cimd = "https://app.example.com/oauth/client-metadata.json"  # the spec's example document URL
    world = standard_world(client_id_metadata_document_supported=True)
    assert drive(new(client_metadata_url=cimd), unauthorized(), world) == Done("at-1")
    assert query_of(world.browsed[0])["client_id"] == cimd
    assert all(r.url != AS + "/register" for r in world.requests)
    # not advertised: dynamic registration is the fallback
    world = standard_world()
    assert drive(new(client_metadata_url=cimd), unauthorized(), world) == Done("at-1")
    assert query_of(world.browsed[0])["client_id"] == "dcr-1"


def test_scope_selection_order_and_offline_access() -> None:
    world = standard_world()
    world.routes[("GET", PRM_ROOT)] = (200, prm(scopes_supported=["a", "b"]))
    drive(new(), unauthorized(f'Bearer resource_metadata="{PRM_ROOT}"'), world)
    assert query_of(world.browsed[0])["scope"] == "a b"  # no challenge scope: all of scopes_supported
    world = standard_world()
    world.routes[("GET", PRM_ROOT)] = (200, prm(scopes_supported=None))
    drive(new(), unauthorized(None), world)
    assert "scope" not in query_of(world.browsed[0])  # neither: the parameter is omitted
    world = standard_world()
    drive(new(scope_override="admin"), unauthorized(), world)
    assert query_of(world.browsed[0])["scope"] == "admin"
    world = standard_world(scopes_supported=["files:read", "offline_access"])
    drive(new(), unauthorized(), world)
    auth = query_of(world.browsed[0])
    assert auth["scope"] == "files:read offline_access" and auth["prompt"] == "consent"
    world = standard_world(scopes_supported=["files:read", "offline_access"])
    drive(new(scope_override="files:read"), unauthorized(), world)
    assert query_of(world.browsed[0])["scope"] == "files:read"  # an explicit choice is not widened


def test_step_up_unions_scopes_without_rediscovery_and_is_bounded() -> None:
    world, machine = standard_world(), new()
    drive(machine, unauthorized(), world)
    sent = len(world.requests)
    # the 2026-07-28 example 403
    header = (f'Bearer error="insufficient_scope", scope="files:write", resource_metadata="{PRM_ROOT}", '
              'error_description="File write permission required for this operation"')
    assert drive(machine, unauthorized(header, 403), world) == Done("at-1")
    assert [r.url for r in world.requests[sent:]] == [AS + "/token"]  # no new discovery, no new registration
    assert query_of(world.browsed[-1])["scope"] == "files:read files:write"
    assert drive(machine, unauthorized(header, 403), world) == Done("at-1")
    assert drive(machine, unauthorized(header, 403), world) == Fail("step_up_exhausted", "2 step-ups did not satisfy the server")
    assert len(world.browsed) == 3  # initial + 2 step-ups: "3 or fewer" authorization requests
    machine.handle(Succeeded())
    assert machine.state.step_ups == 0


def test_refresh_before_expiry_and_rotation() -> None:
    world, machine = standard_world(), new(client_id="pre-1", client_secret="s")
    drive(machine, unauthorized(), world)
    tokens = world.stored[0]
    assert refresh_at(tokens) == 4600.0 - 60 and not refresh_due(tokens, 4500.0) and refresh_due(tokens, 4540.0)
    assert refresh_at({"expires_at": 1010.0, "obtained_at": 1000.0}) == 1005.0  # short tokens: half their life
    assert refresh_at({"access_token": "x", "expires_at": None}) is None
    world.routes[("POST", AS + "/token")] = (200, {"access_token": "at-2", "token_type": "Bearer", "expires_in": 60})
    assert drive(machine, RefreshNow(4550.0), world, now=4550.0) == Done("at-2")
    refresh = world.requests[-1]
    form = refresh.form or {}
    assert form == {"grant_type": "refresh_token", "refresh_token": "rt-1", "resource": MCP}
    assert refresh.headers["Authorization"].startswith("Basic ")
    assert world.stored[-1]["refresh_token"] == "rt-1" and world.stored[-1]["expires_at"] == 4610.0  # kept when not rotated


def test_a_machine_seeded_from_storage_refreshes_without_discovery() -> None:
    world, first = standard_world(), new()
    drive(first, unauthorized(), world)
    seeded = new()
    seeded.state.tokens = world.stored[0]
    world.requests.clear()
    world.routes[("POST", AS + "/token")] = (200, {"access_token": "at-3", "token_type": "Bearer", "refresh_token": "rt-3"})
    assert drive(seeded, RefreshNow(2000.0), world) == Done("at-3")
    assert [r.url for r in world.requests] == [AS + "/token"]
    assert (world.requests[0].form or {})["client_id"] == "dcr-1" and world.stored[-1]["refresh_token"] == "rt-3"


def test_authorization_server_migration_reregisters() -> None:
    world, machine = standard_world(), new()
    drive(machine, unauthorized(), world)
    other = "https://other-as.example.com"
    world.routes[("GET", PRM_ROOT)] = (200, prm(authorization_servers=[other]))
    world.routes[("GET", other + "/.well-known/oauth-authorization-server")] = (200, asm_at(other))
    world.routes[("POST", other + "/register")] = (201, {"client_id": "dcr-2"})
    world.routes[("POST", other + "/token")] = (200, {"access_token": "at-o", "token_type": "Bearer"})
    world.iss = other
    assert drive(machine, unauthorized(), world) == Done("at-o")
    assert query_of(world.browsed[-1])["client_id"] == "dcr-2"
    # the same server again: the registration is reused
    sent = len(world.requests)
    assert drive(machine, unauthorized(), world) == Done("at-o")
    assert all(r.url != other + "/register" for r in world.requests[sent:])
    # a new listener port: the registration named the old redirect URI, so register again
    machine.state.redirect_uri = "http://127.0.0.1:40001/callback"
    world.routes[("POST", other + "/register")] = (201, {"client_id": "dcr-3"})
    assert drive(machine, unauthorized(), world) == Done("at-o")
    assert query_of(world.browsed[-1])["client_id"] == "dcr-3"


@pytest.mark.parametrize(
    ("supported", "iss", "outcome"),
    [  # the 2026-07-28 "Authorization Response Validation" table, row by row
        (True, AS, "ok"),
        (True, None, "missing_iss"),
        (None, AS, "ok"),
        (None, "https://auth.example.com/", "wrong_iss"),  # no trailing-slash normalization
        (None, None, "ok"),
    ],
)
def test_rfc9207_iss_table(supported: bool | None, iss: str | None, outcome: str) -> None:
    world = standard_world(authorization_response_iss_parameter_supported=supported)
    world.iss = iss
    result = drive(new(), unauthorized(), world)
    assert (result == Done("at-1")) if outcome == "ok" else (isinstance(result, Fail) and result.error == outcome)


def test_a_refused_token_is_refreshed_after_rediscovery_before_any_browser() -> None:
    world, machine = standard_world(), new()
    drive(machine, unauthorized(), world)
    sent, browsed = len(world.requests), len(world.browsed)
    world.routes[("POST", AS + "/token")] = (200, {"access_token": "at-r", "token_type": "Bearer", "refresh_token": "rt-r"})
    assert drive(machine, unauthorized(), world) == Done("at-r")
    assert [r.url for r in world.requests[sent:]] == [PRM_ROOT, AS + "/.well-known/oauth-authorization-server", AS + "/token"]
    assert (world.requests[-1].form or {})["grant_type"] == "refresh_token" and len(world.browsed) == browsed
    # the refresh is refused: the browser after all, and the refused refresh stored nothing
    stored = len(world.stored)
    answers = iter([(400, {"error": "invalid_grant"}), (200, {"access_token": "at-b", "token_type": "Bearer"})])
    original = world.answer

    def token_answers(request: HttpRequest, now: float) -> HttpResponse:
        if request.url == AS + "/token":
            world.routes[("POST", AS + "/token")] = next(answers)
        return original(request, now)

    world.answer = token_answers  # type: ignore[method-assign]
    assert drive(machine, unauthorized(), world) == Done("at-b")
    assert len(world.browsed) == browsed + 1 and len(world.stored) == stored + 1


def test_no_refresh_across_an_authorization_server_change() -> None:
    world, machine = standard_world(), new()
    drive(machine, unauthorized(), world)
    other = "https://other-as.example.com"
    world.routes[("GET", PRM_ROOT)] = (200, prm(authorization_servers=[other]))
    world.routes[("GET", other + "/.well-known/oauth-authorization-server")] = (200, asm_at(other))
    world.routes[("POST", other + "/register")] = (201, {"client_id": "dcr-2"})
    world.routes[("POST", other + "/token")] = (200, {"access_token": "at-o", "token_type": "Bearer"})
    world.iss = other
    assert drive(machine, unauthorized(), world) == Done("at-o")
    assert (world.requests[-1].form or {})["grant_type"] == "authorization_code"  # the old refresh token never goes to the new server


def test_registration_asks_for_the_advertised_auth_method() -> None:
    world = standard_world(token_endpoint_auth_methods_supported=["client_secret_post"])
    registered = {"client_id": "c", "client_secret": "sec", "token_endpoint_auth_method": "client_secret_post", "redirect_uris": []}
    world.routes[("POST", AS + "/register")] = (201, registered)
    assert drive(new(), unauthorized(), world) == Done("at-1")
    assert (world.requests[2].json or {})["token_endpoint_auth_method"] == "client_secret_post"
    assert (world.requests[-1].form or {})["client_secret"] == "sec"
