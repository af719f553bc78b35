"""Issue 34, acceptance 1 (refusals and rotation) against the real authorization server (npm oidc-provider,
tests/auth/as_server.mjs): a protected fleet of a 2026 and a 2025 server accepts the server's real access tokens and
refuses an expired one, one signed by a key the server never had, and, once the server restarts on the same issuer
with a new signing key, a token of the retired key, while following the rotation to the new one.

Tokens come from the real server's client credentials grant (RFC 6749 section 4.4) with a resource indicator
(RFC 8707): JWT access tokens (RFC 9068) whose ``aud`` is the fleet server's endpoint. The server signs with RSA keys
the test writes (``auth_server(signing_key=...)``), so that it can be restarted with the same key or another one;
it logs each request for its key set, which counts the bridge's refetches. A real token for another resource is
refused in test_resource_sign_in.py (after a real sign-in); the same checks against an issuer of our own, which
can also sign with made-up algorithms and sizes: test_resource_guard.py.
"""

from __future__ import annotations

import base64
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
sys.path.insert(0, str(peers.ROOT / "tests" / "auth"))
import fleet_peers as fp  # noqa: E402
from parts import SCOPE, AuthServer, auth_server  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(600)]
SERVERS = ("modern", "legacy")
MIN_INTERVAL = 2.0
"""The fleet's ``[auth] jwks_min_interval``: fewest seconds between two refetches of the keys on an unknown key id."""
SKEW = 1
"""The fleet's ``[auth] clock_skew`` (the default, 60 s, would make the expiry test wait a minute)."""
SHORT_TTL = 4
"""Seconds an access token lives in the expiry test (the AS's AS_ACCESS_TOKEN_TTL)."""


def rsa_jwk(path: Path, kid: str) -> Path:
    """A new RSA private key as a JWK file named ``kid`` (RFC 7517), for the AS to sign with."""
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    path.write_text(json.dumps({**jwk, "kid": kid}))
    return path


def claims(token: str) -> dict[str, object]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class RealAs:
    """The real AS at one loopback port (so one issuer), restarted with another signing key or token lifetime on
    demand; a confidential client of each run that gets tokens by the client credentials grant."""

    def __init__(self, keys: Path) -> None:
        self.port = peers.free_port()
        self.issuer = f"http://127.0.0.1:{self.port}/"
        self.keys = {kid: rsa_jwk(keys / f"{kid}.json", kid) for kid in ("key-a", "key-b")}
        self.running: tuple[str, int] | None = None
        self.server: AuthServer | None = None
        self._stack = contextlib.ExitStack()
        self._client: tuple[str, str] | None = None

    def use(self, kid: str, ttl: int = 600) -> AuthServer:
        """The AS signing with ``kid``, issuing tokens for ``ttl`` seconds: the running one, or a restarted one."""
        if self.running != (kid, ttl) or self.server is None or self.server.proc.poll() is not None:
            self.close()
            self.server = self._stack.enter_context(auth_server(ttl, port=self.port, signing_key=self.keys[kid],
                                                                client_credentials=True))
            assert self.server.issuer == self.issuer
            self.running, self._client = (kid, ttl), None
        return self.server

    def token(self, resource: str) -> str:
        """A real access token of the running AS for ``resource`` (registering its client first, RFC 7591)."""
        if self._client is None:
            answer = httpx.post(f"{self.issuer}reg", timeout=30, json={
                "grant_types": ["client_credentials"], "response_types": [], "redirect_uris": [],
                "token_endpoint_auth_method": "client_secret_basic", "scope": SCOPE})
            assert answer.status_code == 201, answer.text
            self._client = answer.json()["client_id"], answer.json()["client_secret"]
        got = httpx.post(f"{self.issuer}token", auth=self._client, timeout=30,
                         data={"grant_type": "client_credentials", "resource": resource, "scope": SCOPE})
        assert got.status_code == 200, got.text
        return str(got.json()["access_token"])

    def close(self) -> None:
        self._stack.close()
        self._stack, self.server, self.running = contextlib.ExitStack(), None, None


@pytest.fixture(scope="module")
def real_as(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealAs]:
    state = RealAs(tmp_path_factory.mktemp("as-keys"))
    try:
        state.use("key-a")
        yield state
    finally:
        state.close()


@pytest.fixture(scope="module")
def fleet(real_as: RealAs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[fp.FleetBridge]:
    config = tmp_path_factory.mktemp("fleet") / "fleet.toml"
    servers = {"modern": {"command": peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"]},
               "legacy": {"command": peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]}}
    port = peers.free_port()
    config.write_text(fp.fleet_toml(servers) + f'\n[auth]\nissuer = "{real_as.issuer}"\naudience = "http://127.0.0.1:{port}"\n'
                      f'required_scopes = ["{SCOPE}"]\njwks_min_interval = {MIN_INTERVAL}\nclock_skew = {SKEW}\n')
    cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "warning"]
    with peers.running(cmd, port, env=fp.ADMIN_ENV) as proc:
        bridge = fp.FleetBridge(proc, port, config)
        fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "the fleet's first starts")
        yield bridge


def call(url: str, token: str) -> httpx.Response:
    """A 2026-07-28 ``tools/call`` of the sample ``echo`` tool with ``token``."""
    msg = fp.canonical("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    return httpx.post(url, content=json.dumps(msg), timeout=60, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", "MCP-Protocol-Version": fp.MODERN,
        "Accept": "application/json, text/event-stream", "Mcp-Method": "tools/call", "Mcp-Name": "echo"})


def assert_accepted(url: str, token: str) -> None:
    resp = call(url, token)
    assert resp.status_code == 200 and "hi" in resp.text, (url, resp.status_code, resp.text)


def assert_refused(url: str, token: str, reason: str) -> None:
    resp = call(url, token)
    assert resp.status_code == 401, (url, resp.status_code, resp.text)
    assert resp.json() == {"error": "invalid_token", "error_description": reason}
    challenge = resp.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge
    assert f'error_description="{reason}"' in challenge


def sleep_past(moment: float) -> None:
    """Sleep until the wall clock is past ``moment`` (a bounded wait: ``moment`` is at most seconds ahead)."""
    delay = moment - time.time()
    assert delay < 60, delay
    if delay > 0:
        time.sleep(delay)


def test_real_tokens_reach_both_eras_and_expire(real_as: RealAs, fleet: fp.FleetBridge) -> None:
    real_as.use("key-a", ttl=SHORT_TTL)
    tokens = {name: real_as.token(fleet.url(name)) for name in SERVERS}
    for name, token in tokens.items():
        assert claims(token)["aud"] == fleet.url(name) and claims(token)["iss"] == real_as.issuer
        assert_accepted(fleet.url(name), token)
    latest = max(float(claims(token)["exp"]) for token in tokens.values())  # type: ignore[arg-type]
    sleep_past(latest + SKEW + 0.5)  # the bridge's clock is this machine's: past exp + the configured skew
    for name, token in tokens.items():
        assert_refused(fleet.url(name), token, "token expired")
    assert fleet.proc.poll() is None
    assert fp.metric(fleet.metrics(), "mcp_bridge_auth_refusals_total", server="legacy", error="invalid_token") >= 1


def test_a_token_signed_by_a_key_the_as_never_had_is_refused_with_one_refetch(real_as: RealAs, fleet: fp.FleetBridge) -> None:
    server = real_as.use("key-a")
    url = fleet.url("modern")
    assert_accepted(url, real_as.token(url))  # the bridge holds the AS's keys now
    stranger = ec.generate_private_key(ec.SECP256R1())
    now = int(time.time())
    forged = jwt.encode({"iss": real_as.issuer, "aud": url, "sub": "intruder", "iat": now, "exp": now + 300, "scope": SCOPE},
                        stranger, algorithm="ES256", headers={"kid": "never-published", "typ": "at+jwt"})
    time.sleep(MIN_INTERVAL + 0.2)  # past the interval since the bridge's last fetch: an unknown key id may refetch
    before, started = server.count("jwks"), time.monotonic()
    for _ in range(6):
        assert_refused(url, forged, "token signed by an unknown key")
    elapsed = time.monotonic() - started
    refetches = server.count("jwks") - before
    # one refetch for the unknown key id, then none until the interval has passed again (however slow the burst was)
    assert 1 <= refetches <= 1 + int(elapsed // MIN_INTERVAL), (refetches, elapsed)
    assert_accepted(url, real_as.token(url))  # the AS's own tokens still pass
    assert fleet.proc.poll() is None


def test_key_rotation_of_the_real_as_is_followed(real_as: RealAs, fleet: fp.FleetBridge) -> None:
    real_as.use("key-a")
    old = {name: real_as.token(fleet.url(name)) for name in SERVERS}
    for name, token in old.items():
        assert_accepted(fleet.url(name), token)
    restarted = real_as.use("key-b")  # the same port and issuer, a new signing key: key-a is no longer published
    assert all(claims(token)["iss"] == restarted.issuer for token in old.values())
    time.sleep(MIN_INTERVAL + 0.2)  # past the interval since the bridge's last fetch
    new = {name: real_as.token(fleet.url(name)) for name in SERVERS}
    assert_accepted(fleet.url("modern"), new["modern"])  # an unknown key id: the bridge fetches the keys again
    assert restarted.count("jwks") == 1
    assert_accepted(fleet.url("legacy"), new["legacy"])  # from the refetched set, without another fetch
    assert restarted.count("jwks") == 1
    for name, token in old.items():  # verified before, but its key is retired
        assert_refused(fleet.url(name), token, "token signed by an unknown key")
    assert fleet.proc.poll() is None
