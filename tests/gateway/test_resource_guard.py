"""The bridge's HTTP fronts as OAuth resource servers against an issuer whose keys the test controls
(tests/gateway/resource_issuer.py): what is published, what is refused and why, session binding, key rotation.

The bridges are real subprocesses (a fleet with a 2026 and a 2025 server over stdio, and a single-server bridge);
the tokens are real ES256 JWS. Sign-in by real clients at a real authorization server: test_resource_sign_in.py.
"""

from __future__ import annotations

import base64
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import jwt
import pytest

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
import fleet_peers as fp  # noqa: E402
from resource_issuer import Issuer, issuer  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(300)]
SCOPE = "mcp:tools"
WELL_KNOWN = "/.well-known/oauth-protected-resource"


@pytest.fixture(scope="module")
def stub() -> Iterator[Issuer]:
    with issuer() as state:
        yield state


@pytest.fixture(scope="module")
def fleet(stub: Issuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[fp.FleetBridge]:
    tmp = tmp_path_factory.mktemp("fleet")
    servers = {"modern": {"command": peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"]},
               "legacy": {"command": peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]}}
    port = peers.free_port()
    auth = f'\n[auth]\nissuer = "{stub.url}"\naudience = "http://127.0.0.1:{port}"\nrequired_scopes = ["{SCOPE}"]\n' \
           'jwks_min_interval = 1.0\n'
    config = tmp / "fleet.toml"
    config.write_text(fp.fleet_toml(servers) + auth)
    cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "warning"]
    with peers.running(cmd, port, env=fp.ADMIN_ENV) as proc:
        bridge = fp.FleetBridge(proc, port, config)
        fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "the fleet's first starts")
        yield bridge


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post(url: str, headers: dict[str, str] | None = None) -> httpx.Response:
    msg = fp.canonical("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": fp.MODERN,
         "Mcp-Method": "tools/call", "Mcp-Name": "echo", **(headers or {})}
    return httpx.post(url, content=json.dumps(msg), headers=h, timeout=60)


def challenge(resp: httpx.Response) -> dict[str, str]:
    """The parameters of a ``WWW-Authenticate: Bearer ...`` value."""
    value = resp.headers["www-authenticate"]
    assert value.startswith("Bearer ")
    params = {}
    for part in value[len("Bearer "):].split('", '):
        key, _, raw = part.partition("=")
        params[key.strip()] = raw.strip('"')
    return params


def b64(obj: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def test_fleet_publishes_metadata_per_server_and_challenges_without_token(fleet: fp.FleetBridge, stub: Issuer) -> None:
    for name in ("modern", "legacy"):
        doc = httpx.get(f"{fleet.base}{WELL_KNOWN}/servers/{name}/mcp", timeout=30).json()
        assert doc == {"resource": fleet.url(name), "authorization_servers": [stub.url], "bearer_methods_supported": ["header"],
                       "scopes_supported": [SCOPE]}
        resp = post(fleet.url(name))
        assert resp.status_code == 401
        assert challenge(resp) == {"resource_metadata": f"{fleet.base}{WELL_KNOWN}/servers/{name}/mcp", "scope": SCOPE}
    # health and metrics stay open; the bare well-known path names no fleet server
    assert httpx.get(f"{fleet.base}/healthz", timeout=30).status_code == 200
    assert httpx.get(f"{fleet.base}/metrics", timeout=30).status_code == 200
    assert httpx.get(f"{fleet.base}{WELL_KNOWN}", timeout=30).status_code == 404


def test_fleet_calls_with_a_token_for_the_server(fleet: fp.FleetBridge, stub: Issuer) -> None:
    for name in ("modern", "legacy"):
        resp = post(fleet.url(name), bearer(stub.token(fleet.url(name))))
        assert resp.status_code == 200, resp.text
        assert "hi" in resp.text
    # a token for the whole fleet (its base URL) serves every server
    assert post(fleet.url("legacy"), bearer(stub.token(fleet.base))).status_code == 200


def test_2025_session_is_bound_to_its_subject(fleet: fp.FleetBridge, stub: Issuer) -> None:
    url = fleet.url("legacy")

    async def run() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            sid = await fp.legacy_session(client, url, bearer(stub.token(url, sub="alice")))
            call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "a"}}}
            resp, answer = await fp.legacy_post(client, url, call, sid, bearer(stub.token(url, sub="alice")))
            assert resp.status_code == 200 and answer is not None and "result" in answer, answer
            resp, _ = await fp.legacy_post(client, url, call, sid, bearer(stub.token(url, sub="mallory")))
            assert resp.status_code == 404
            resp, _ = await fp.legacy_post(client, url, call, sid)
            assert resp.status_code == 401

    anyio.run(run)


def test_refusals_name_their_reason(fleet: fp.FleetBridge, stub: Issuer) -> None:
    url = fleet.url("modern")
    header = {"alg": "ES256", "kid": "key-1", "typ": "at+jwt"}
    claims = {"iss": stub.url, "aud": url, "sub": "u", "exp": int(time.time()) + 300, "scope": SCOPE}
    stub.new_key("unpublished", publish=False)
    cases = {
        "token was issued for another resource": stub.token(fleet.url("legacy")),
        "token expired": stub.token(url, lifetime=-300),
        "token signed by an unknown key": stub.token(url, kid="unpublished"),
        "signing algorithm 'none' is not accepted": f"{b64({'alg': 'none', 'typ': 'at+jwt'})}.{b64(claims)}.",
        "signing algorithm 'HS256' is not accepted": jwt.encode(claims, "k" * 32, algorithm="HS256"),
        "token too large": stub.token(url, padding="x" * 9000),
        "malformed token": "not-a-jwt",
        "bad signature": f"{b64(header)}.{b64(claims)}.{stub.token(url).split('.')[2]}",
        "token was issued by another issuer": stub.token(url, iss="http://127.0.0.1:1/"),
    }
    for reason, token in cases.items():
        resp = post(url, bearer(token))
        assert resp.status_code == 401, (reason, resp.status_code, resp.text)
        params = challenge(resp)
        assert (params["error"], params["error_description"]) == ("invalid_token", reason)
        assert resp.json() == {"error": "invalid_token", "error_description": reason}
    resp = post(url, bearer(stub.token(url, scope="other")))
    assert resp.status_code == 403
    assert challenge(resp)["error"] == "insufficient_scope" and challenge(resp)["scope"] == SCOPE
    resp = post(url, {"Authorization": "Basic dXNlcjpwYXNz"})
    assert resp.status_code == 401 and challenge(resp) == {"resource_metadata": f"{fleet.base}{WELL_KNOWN}/servers/modern/mcp",
                                                           "scope": SCOPE}  # another method: no error code
    assert fleet.proc.poll() is None  # none of them hurt the bridge
    metrics = fleet.metrics()
    assert fp.metric(metrics, "mcp_bridge_auth_refusals_total", server="modern", error="invalid_token") >= len(cases)
    assert fp.metric(metrics, "mcp_bridge_auth_refusals_total", server="modern", error="insufficient_scope") >= 1
    assert post(fleet.base + "/servers/nobody/mcp").status_code == 401  # an unknown server: refused first, not named
    assert fp.metric(fleet.metrics(), "mcp_bridge_auth_refusals_total", server="unknown", error="no_token") >= 1
    assert post(url, bearer(stub.token(url))).status_code == 200


def test_key_rotation_is_followed_with_a_rate_limited_refetch(fleet: fp.FleetBridge, stub: Issuer) -> None:
    url = fleet.url("modern")
    before_rotation = stub.token(url)
    for _ in range(2):  # (the second time from the bridge's cache of verified signatures)
        assert post(url, bearer(before_rotation)).status_code == 200
    time.sleep(1.1)  # past jwks_min_interval since the last fetch
    stub.rotate("key-2")
    before = stub.jwks_fetches
    assert post(url, bearer(stub.token(url, kid="key-2"))).status_code == 200  # refetched once, then accepted
    assert stub.jwks_fetches == before + 1
    resp = post(url, bearer(before_rotation))  # its key is no longer published: refused, though verified before
    assert resp.status_code == 401 and challenge(resp)["error_description"] == "token signed by an unknown key"
    stub.new_key("made-up", publish=False)
    for _ in range(5):  # unknown key ids in a burst: at most one more fetch within the interval
        assert post(url, bearer(stub.token(url, kid="made-up"))).status_code == 401
    assert stub.jwks_fetches <= before + 2
    old = stub.keys["key-1"]
    stub.keys["old"] = old
    assert post(url, bearer(stub.token(url, kid="old"))).status_code == 401  # the retired key is no longer published


@contextlib.contextmanager
def single_bridge(stub: Issuer, *extra: str, client: tuple[str, str] | None = None, issuer_url: str | None = None) -> Iterator[str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--auth-issuer",
           issuer_url or stub.url, "--auth-audience", f"http://127.0.0.1:{port}/mcp", *extra, "--", peers.MODERN_PYTHON,
           str(fp.MODERN_SERVER), "stdio"]
    client_id, secret = client or stub.client
    with peers.running(cmd, port, env={"MCP_BRIDGE_AUTH_CLIENT_ID": client_id, "MCP_BRIDGE_AUTH_CLIENT_SECRET": secret}):
        yield f"http://127.0.0.1:{port}"


def test_single_server_front(stub: Issuer) -> None:
    with single_bridge(stub, "--auth-required-scope", SCOPE) as base:
        url = f"{base}/mcp"
        for path in (f"{WELL_KNOWN}/mcp", WELL_KNOWN):
            assert httpx.get(base + path, timeout=30).json()["resource"] == url
        resp = post(url)
        assert resp.status_code == 401 and challenge(resp)["resource_metadata"] == f"{base}{WELL_KNOWN}/mcp"
        ok = post(url, bearer(stub.token(url)))
        assert ok.status_code == 200 and "hi" in ok.text
        assert post(url, bearer(stub.token(url + "/other"))).status_code == 401
        assert httpx.get(f"{base}/healthz", timeout=30).status_code == 200


def test_opaque_tokens_are_introspected_rfc7662(stub: Issuer) -> None:
    with single_bridge(stub, "--auth-introspection-url", stub.url + "introspect") as base:
        url = f"{base}/mcp"
        before = stub.introspections
        token = stub.opaque_token(url)
        for _ in range(3):  # an answer is kept a while: introspected once
            ok = post(url, bearer(token))
            assert ok.status_code == 200 and "hi" in ok.text
        assert stub.introspections == before + 1
        for refused, reason in ((stub.opaque_token(url + "/other"), "token was issued for another resource"),
                                ("unknown-opaque-token", "token is not active")):
            resp = post(url, bearer(refused))
            assert resp.status_code == 401 and challenge(resp)["error_description"] == reason
    with single_bridge(stub, "--auth-introspection-url", stub.url + "introspect", client=("bridge", "wrong")) as base:
        resp = post(f"{base}/mcp", bearer(stub.opaque_token(f"{base}/mcp")))
        assert resp.status_code == 503 and resp.json()["error_description"] == "the token could not be introspected"


def test_unreachable_keys_are_503_and_the_bridge_lives_on(stub: Issuer) -> None:
    with single_bridge(stub, issuer_url=f"http://127.0.0.1:{peers.free_port()}/") as base:
        url = f"{base}/mcp"
        for _ in range(2):
            resp = post(url, bearer(stub.token(url)))
            assert resp.status_code == 503 and resp.json()["error_description"] == "the authorization server's keys could not be fetched"
        assert httpx.get(f"{base}/healthz", timeout=30).status_code == 200


def test_auth_options_are_checked() -> None:
    for argv, message in (
            (["--auth-audience", "http://x/mcp"], "need --auth-issuer"),
            (["--auth-issuer", "http://as/"], "--auth-issuer needs --auth-audience"),
            (["--auth-issuer", "as.example", "--auth-audience", "http://x/mcp"], "absolute http(s) URL"),
            (["--stdio", "--auth-issuer", "http://as/", "--auth-audience", "http://x/mcp"], "not --stdio")):
        proc = fp.run_cli("serve", *argv, "--", "python", "-c", "pass", timeout=60)
        assert proc.returncode == 2 and message in proc.stderr, (argv, proc.stderr)

