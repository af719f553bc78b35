"""A running fleet (``mcp-bridge serve --config``, a 2026 server over stdio) reloaded through ``POST /admin/reload``
after its ``[auth]`` table changed (issue 34, follow-up): the new audience and required scopes decide from the next
request on, the metadata document names the new resource, and removing the table is refused (422, the fleet stays
protected). Tokens come from an issuer whose keys the test controls (tests/gateway/resource_issuer.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
import fleet_peers as fp  # noqa: E402
from resource_issuer import Issuer, issuer  # noqa: E402

pytestmark = pytest.mark.timeout(300)
WELL_KNOWN = "/.well-known/oauth-protected-resource/servers/modern/mcp"


@pytest.fixture(scope="module")
def stub() -> Iterator[Issuer]:
    with issuer() as state:
        yield state


def listing(bridge: fp.FleetBridge, token: str) -> int:
    msg = fp.canonical("tools/list", {})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": fp.MODERN, "Mcp-Method": "tools/list", "Authorization": f"Bearer {token}"}
    return httpx.post(bridge.url("modern"), content=json.dumps(msg), headers=headers, timeout=60).status_code


def test_a_reload_applies_the_new_auth_table_and_refuses_removing_it(stub: Issuer, tmp_path: Path) -> None:
    servers = {"modern": {"command": peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"]}}
    port = peers.free_port()
    old, new = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    config = tmp_path / "fleet.toml"

    def write(audience: str | None, extra: str = "") -> None:
        table = f'\n[auth]\nissuer = "{stub.url}"\naudience = "{audience}"\n{extra}' if audience else ""
        config.write_text(fp.fleet_toml(servers) + table)

    write(old)
    cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "warning"]
    with peers.running(cmd, port, env=fp.ADMIN_ENV) as proc:
        bridge = fp.FleetBridge(proc, port, config)
        fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "the fleet's first start")
        endpoint = "/servers/modern/mcp"
        assert listing(bridge, stub.token(f"{old}{endpoint}", scope="read")) == 200
        write(new, 'required_scopes = ["mcp:tools"]\n')
        reloaded = httpx.post(f"{bridge.base}/admin/reload", headers=fp.ADMIN_HEADERS, timeout=60)
        assert reloaded.status_code == 200 and reloaded.json()["auth"] == ["audience", "required_scopes"], reloaded.text
        assert listing(bridge, stub.token(f"{old}{endpoint}", scope="mcp:tools")) == 401  # the old audience
        assert listing(bridge, stub.token(f"{new}{endpoint}", scope="read")) == 403  # the new required scope
        assert listing(bridge, stub.token(f"{new}{endpoint}", scope="mcp:tools")) == 200
        document = httpx.get(f"{bridge.base}{WELL_KNOWN}", timeout=30).json()
        assert document["resource"] == f"{new}{endpoint}" and document["scopes_supported"] == ["mcp:tools"]
        write(None)
        refused = httpx.post(f"{bridge.base}/admin/reload", headers=fp.ADMIN_HEADERS, timeout=60)
        assert refused.status_code == 422 and "[auth] cannot be removed by a reload" in refused.json()["error"], refused.text
        assert listing(bridge, stub.token(f"{old}{endpoint}", scope="mcp:tools")) == 401  # still protected, as before
        assert listing(bridge, stub.token(f"{new}{endpoint}", scope="mcp:tools")) == 200
