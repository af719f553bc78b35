"""A fleet server's gateway settings on a reload: the policy and the audit change in place (the server keeps its
upstream), a changed ``upstream_auth`` replaces the server; 2025 clients may bypass the fronts only when the server
has no policy, audit or credential of the bridge's own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mcp_eras.bridge.fleet.serve import Router
from mcp_eras.bridge.gateway.upstream_auth import UpstreamCredentials
from mcp_eras.bridge.translate.gateway import policy as gp

SERVER = '[servers.files]\nurl = "http://127.0.0.1:9/mcp"\nera = "2025-11-25"\n'


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_BRIDGE_ADMIN_TOKEN", "t" * 32)
    monkeypatch.setenv("GW_SECRET", "s3cret")


def test_policy_in_place_and_upstream_auth_replaces(tmp_path: Path) -> None:
    path = tmp_path / "fleet.toml"

    async def run() -> None:
        path.write_text(SERVER)
        router = Router(path)
        try:
            await router.load()
            entry = router.entries["files"]
            assert entry.gated is not None and not entry.gated.active and entry.bypass_allowed
            path.write_text(SERVER + 'tool_scopes = { write = "files:write" }\naudit_arguments = true\n')
            changes = await router.load()
            assert changes["unchanged"] == ["files"] and router.entries["files"] is entry
            assert gp.decide(entry.gated.policy, frozenset(), "write") == gp.Deny(gp.INSUFFICIENT_SCOPE, "files:write")
            assert entry.gated.audit is not None and entry.gated.audit.with_arguments and not entry.bypass_allowed
            path.write_text(SERVER + 'upstream_auth = { mode = "client_credentials", client_id = "gw", client_secret_env = '
                                     '"GW_SECRET", token_endpoint = "http://127.0.0.1:9/token" }\n')
            changes = await router.load()
            assert changes["replaced"] == ["files"]
            assert not entry.gated.policy.active and entry.gated.audit is None
            assert isinstance(entry.upstream.slot.target.auth, UpstreamCredentials) and not entry.bypass_allowed
        finally:
            await router.aclose()

    asyncio.run(run())
