"""Upstream credentials end to end (issue 34, acceptance 2): a fleet protected by ``[auth]`` at the real authorization
server (npm oidc-provider with its client credentials and token exchange options) in front of the protected sample
servers of both eras (each accepts only tokens whose ``aud`` is its own URL and answers ``whoami`` with the token's
subject). A caller's token names the fleet's endpoint; the upstreams are reached with ``token_exchange`` (the caller's
own subject, the upstream's audience) and ``client_credentials`` (the bridge's client): the caller is answered, each
upstream refuses the caller's own token, and the authorization server issued one exchange per caller and server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
sys.path.insert(0, str(peers.ROOT / "tests" / "auth"))
import fleet_peers as fp  # noqa: E402
from parts import LEGACY, MODERN, SCOPE, AuthServer, auth_server, protected_server  # noqa: E402
from test_policy_fleet import logged_fleet  # noqa: E402
from test_upstream_auth_real import register  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(600)]
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AuthServer, fp.FleetBridge, Path, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("fleet")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AS_CLIENT_CREDENTIALS", "1")
        mp.setenv("AS_TOKEN_EXCHANGE", "1")
        with auth_server() as issuer, protected_server(LEGACY, issuer.issuer) as legacy, \
                protected_server(MODERN, issuer.issuer) as modern:
            bridge_id, bridge_secret = register(issuer.issuer, ["client_credentials", EXCHANGE])
            exchange = {"mode": "token_exchange", "issuer": issuer.issuer, "client_id": bridge_id, "client_secret_env": "GW_SECRET"}
            own = {"mode": "client_credentials", "client_id": bridge_id, "client_secret_env": "GW_SECRET", "scope": SCOPE}
            servers = {f"{kind}-{era}": {"url": url, "era": era, "upstream_auth": auth}
                       for era, url in ((MODERN, modern), (LEGACY, legacy)) for kind, auth in (("tx", exchange), ("cc", own))}
            port = peers.free_port()
            config, log = tmp / "fleet.toml", tmp / "bridge.log"
            config.write_text(fp.fleet_toml(servers) + f'\n[auth]\nissuer = "{issuer.issuer}"\naudience = "http://127.0.0.1:{port}"\n')
            with logged_fleet(config, port, log, {"GW_SECRET": bridge_secret}, "debug") as bridge:
                yield issuer, bridge, log, {MODERN: modern, LEGACY: legacy, "bridge": bridge_id, "secret": bridge_secret}


async def whoami(era: str, url: str, token: str) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=120) as client:
        if era == MODERN:
            return await fp.rpc(client, url, "tools/call", {"name": "whoami", "arguments": {}}, headers)
        sid = await fp.legacy_session(client, url, headers)
        _, answer = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                                       "params": {"name": "whoami", "arguments": {}}}, sid, headers)
        return answer


@pytest.mark.parametrize("client_era", [MODERN, LEGACY], ids=["2026-client", "2025-client"])
@pytest.mark.parametrize("server_era", [MODERN, LEGACY], ids=["2026-server", "2025-server"])
def test_the_upstream_gets_a_token_for_itself_never_the_callers(
        stack: tuple[AuthServer, fp.FleetBridge, Path, dict[str, str]], client_era: str, server_era: str) -> None:
    issuer, bridge, log, urls = stack
    caller_id, caller_secret = register(issuer.issuer, ["client_credentials"])
    for kind, expected in (("tx", caller_id), ("cc", urls["bridge"])):
        url = bridge.url(f"{kind}-{server_era}")
        token = httpx.post(f"{issuer.issuer}token", auth=(caller_id, caller_secret), timeout=30,
                           data={"grant_type": "client_credentials", "resource": url, "scope": SCOPE}).json()["access_token"]
        exchanges = issuer.count(f"grant {EXCHANGE}")
        answer = anyio.run(whoami, client_era, url, token)
        assert answer is not None and "result" in answer, answer
        assert answer["result"]["content"][0]["text"] == f"{expected} via {server_era}"
        assert issuer.count(f"grant {EXCHANGE}") == exchanges + (1 if kind == "tx" else 0)
        direct = httpx.post(urls[server_era], json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=30,
                            headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"})
        assert direct.status_code == 401  # the caller's token is for the fleet: the upstream would refuse it
        assert token not in log.read_text()
    audits = [json.loads(line) for line in log.read_text().splitlines() if '"event": "audit"' in line]
    assert any(a["principal"] == f"{issuer.issuer}|{caller_id}" and a["outcome"] == "ok" for a in audits)


@pytest.mark.parametrize("server_era", [MODERN, LEGACY], ids=["2026-server", "2025-server"])
def test_single_server_token_exchange(stack: tuple[AuthServer, fp.FleetBridge, Path, dict[str, str]], server_era: str) -> None:
    """``serve --upstream URL --auth-issuer ... --upstream-auth token_exchange``: the same for one upstream."""
    issuer, _, _, urls = stack
    caller_id, caller_secret = register(issuer.issuer, ["client_credentials"])
    port = peers.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    cmd = [*peers.bridge_cmd(), "serve", "--upstream", urls[server_era], "--listen", f"127.0.0.1:{port}", "--auth-issuer",
           issuer.issuer, "--auth-audience", url, "--upstream-auth", "token_exchange", "--oauth-client-id", urls["bridge"]]
    with peers.running(cmd, port, env={"MCP_BRIDGE_OAUTH_CLIENT_SECRET": urls["secret"]}):
        token = httpx.post(f"{issuer.issuer}token", auth=(caller_id, caller_secret), timeout=30,
                           data={"grant_type": "client_credentials", "resource": url, "scope": SCOPE}).json()["access_token"]
        for client_era in (MODERN, LEGACY):
            answer = anyio.run(whoami, client_era, url, token)
            assert answer is not None and "result" in answer, answer
            assert answer["result"]["content"][0]["text"] == f"{caller_id} via {server_era}"


def test_upstream_auth_options_are_checked() -> None:
    base = [*peers.bridge_cmd(), "serve", "--upstream", "http://127.0.0.1:9/mcp"]
    for extra, message in ((["--upstream-auth", "bogus"], "--upstream-auth"),
                           (["--upstream-auth", "client_credentials"], "needs --oauth-client-id"),
                           (["--upstream-auth", "token_exchange", "--oauth-client-id", "gw"], "needs --auth-issuer")):
        proc = subprocess.run([*base, *extra], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
