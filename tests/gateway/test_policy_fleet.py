"""Per-tool policy end to end (issue 34, acceptance 3): a fleet protected by ``[auth]`` (an issuer whose keys the test
controls, tests/gateway/resource_issuer.py) with a 2026 and a 2025 server, each with ``deny_tools`` and
``tool_scopes``. For two principals with different scopes ``tools/list`` differs exactly by the policy, for a 2026
and a 2025 client; a call outside policy is refused with the scope it needs and never reaches the server's upstream
(the upstream's call counter does not move); every call leaves one audit line naming the principal, never a token."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
import fleet_peers as fp  # noqa: E402
from resource_issuer import Issuer, issuer  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(300)]
SCOPE = "mcp:tools"
POLICY = {"deny_tools": ["log_levels"], "tool_scopes": {"add": "math"}}


@pytest.fixture(scope="module")
def stub() -> Iterator[Issuer]:
    with issuer() as state:
        yield state


@pytest.fixture(scope="module")
def fleet(stub: Issuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[fp.FleetBridge, Path]]:
    tmp = tmp_path_factory.mktemp("fleet")
    servers = {"modern": {"command": peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"], **POLICY},
               "legacy": {"command": peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"], **POLICY}}
    port = peers.free_port()
    config, log = tmp / "fleet.toml", tmp / "bridge.log"
    config.write_text(fp.fleet_toml(servers) + f'\n[auth]\nissuer = "{stub.url}"\naudience = "http://127.0.0.1:{port}"\n')
    with logged_fleet(config, port, log) as bridge:
        yield bridge, log


@contextlib.contextmanager
def logged_fleet(config: Path, port: int, log: Path, env: dict[str, str] | None = None,
                 level: str = "info") -> Iterator[fp.FleetBridge]:
    """``mcp-bridge serve --config`` with JSON logs at ``level`` into ``log``, once it is ready."""
    cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", level,
           "--log-format", "json"]
    logged = ["bash", "-c", f'exec "$@" 2>>"{log}"', "bridge", *cmd]  # the bridge's stderr (its log) into a file
    with peers.running(logged, port, env={**fp.ADMIN_ENV, **(env or {})}) as proc:
        bridge = fp.FleetBridge(proc, port, config)
        fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "the fleet's first starts")
        yield bridge


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def listing_and_call(era: str, url: str, token: str, tool: str, arguments: dict[str, Any]) -> tuple[set[str], dict[str, Any]]:
    """The tool names a client of ``era`` is shown, and its answer to calling ``tool``."""
    async with httpx.AsyncClient(timeout=60) as client:
        if era == fp.MODERN:
            listed = await fp.rpc(client, url, "tools/list", {}, bearer(token))
            answer = await fp.rpc(client, url, "tools/call", {"name": tool, "arguments": arguments}, bearer(token))
        else:
            sid = await fp.legacy_session(client, url, bearer(token))
            _, listed = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, sid,
                                             bearer(token))
            _, answer = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                                           "params": {"name": tool, "arguments": arguments}}, sid, bearer(token))
    return {t["name"] for t in listed["result"]["tools"]}, answer


def upstream_calls(fleet: fp.FleetBridge, server: str) -> float:
    return fp.metric(fleet.metrics(), "mcp_bridge_requests_total", server=server, method="tools/call")


@pytest.mark.parametrize("client_era", [fp.MODERN, fp.LEGACY], ids=["2026-client", "2025-client"])
@pytest.mark.parametrize("server", ["modern", "legacy"], ids=["2026-server", "2025-server"])
def test_listing_differs_by_policy_and_a_denied_call_never_reaches_the_upstream(
        fleet: tuple[fp.FleetBridge, Path], stub: Issuer, client_era: str, server: str) -> None:
    bridge, log = fleet
    url = bridge.url(server)
    reader = stub.token(url, sub="reader", scope=SCOPE)
    math = stub.token(url, sub="mathematician", scope=f"{SCOPE} math")
    before = upstream_calls(bridge, server)
    shown_reader, refused = anyio.run(listing_and_call, client_era, url, reader, "add", {"a": 1, "b": 2})
    assert upstream_calls(bridge, server) == before  # the refused call never reached the server's upstream
    shown_math, added = anyio.run(listing_and_call, client_era, url, math, "add", {"a": 1, "b": 2})
    assert upstream_calls(bridge, server) == before + 1
    assert shown_math - shown_reader == {"add"} and shown_reader <= shown_math  # exactly the policy's difference
    assert "echo" in shown_reader and "log_levels" not in shown_math  # denied for everyone
    assert refused["error"]["data"]["error"] == "insufficient_scope" and refused["error"]["data"]["scope"] == "math", refused
    assert "result" in added and not added["result"].get("isError"), added
    text = log.read_text()
    assert reader not in text and math not in text  # no token in the bridge's log
    audits = [json.loads(line) for line in text.splitlines() if '"event": "audit"' in line]
    mine = [a for a in audits if a.get("server") == server and a.get("tool") == "add" and a.get("client_era") == client_era]
    assert [a["outcome"] for a in mine[-2:]] == ["denied", "ok"], mine
    assert mine[-2]["principal"] == f"{stub.url}|reader" and mine[-1]["principal"] == f"{stub.url}|mathematician"
    assert "arguments" not in mine[-1]


def test_a_2026_client_gets_403_with_the_scope_challenge(fleet: tuple[fp.FleetBridge, Path], stub: Issuer) -> None:
    bridge, _ = fleet
    url = bridge.url("modern")
    msg = fp.canonical("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": fp.MODERN,
               "Mcp-Method": "tools/call", "Mcp-Name": "add", **bearer(stub.token(url, sub="reader", scope=SCOPE))}
    resp = httpx.post(url, content=json.dumps(msg), headers=headers, timeout=60)
    assert resp.status_code == 403, resp.text
    challenge = resp.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and 'error="insufficient_scope"' in challenge and 'scope="math"' in challenge
    assert f'resource_metadata="{bridge.base}/.well-known/oauth-protected-resource/servers/modern/mcp"' in challenge
    assert resp.json()["error"]["data"]["scope"] == "math"  # the named error is the body
