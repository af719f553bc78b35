"""Nine stdio servers of both eras started together by one fleet: every era right, none cached wrong (#17 item 6).

The fleet starts all of its servers at load, so nine children load at once on a busy machine and the era probes run
side by side. The probe's timeout counts from each child's first output (2026-07-28 basic/transports/stdio.mdx
§Backward Compatibility: a legacy fallback on silence only after a reasonable wait), here a short 1 s, so a probe
that counted from the spawn would class slow-loading 2026 servers as 2025. Each server start is logged by
``bench/spawn_counter.py``: every server's probed child is the one that serves (one start each, both eras).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]

COUNTER = str(fp.peers.ROOT / "bench" / "spawn_counter.py")
PUBLISHED = fp.peers.ROOT / ".venvs" / "published" / "bin"
NPM_BIN = fp.peers.ROOT / ".cache" / "published-npm" / "node_modules" / ".bin"


def nine() -> dict[str, tuple[list[str], str]]:
    """name -> (command, expected era). Published servers when installed (.ci/published-peers.sh), else samples."""
    legacy, modern = fp.peers.legacy_python(), fp.peers.MODERN_PYTHON
    samples = fp.peers.SAMPLES
    servers = {
        "legacy-everything": ([legacy, str(samples / "legacy" / "everything_server.py"), "stdio"], fp.LEGACY),
        "legacy-mrtr": ([legacy, str(samples / "legacy" / "mrtr_server.py"), "stdio"], fp.LEGACY),
        "legacy-tasks": ([legacy, str(samples / "legacy" / "tasks_server.py"), "stdio"], fp.LEGACY),
        "modern-only": ([modern, str(samples / "modern" / "everything_server.py"), "stdio", "--modern-only"], fp.MODERN),
        "modern-dual": ([modern, str(samples / "modern" / "everything_server.py"), "stdio"], fp.MODERN),
        "modern-mrtr": ([modern, str(samples / "modern" / "mrtr_server.py"), "stdio"], fp.MODERN),
    }
    fallback = [legacy, str(samples / "legacy" / "everything_server.py"), "stdio"]
    for name, path in (("time", PUBLISHED / "mcp-server-time"), ("fetch", PUBLISHED / "mcp-server-fetch"),
                       ("memory", NPM_BIN / "mcp-server-memory")):
        servers[name] = ([str(path)] if path.exists() else fallback, fp.LEGACY)
    return servers


def test_nine_stdio_servers_started_together_get_their_eras(tmp_path: Path) -> None:
    servers = nine()
    assert len(servers) == 9
    logs = {name: tmp_path / f"{name}.starts" for name in servers}
    config: dict[str, dict[str, Any]] = {
        name: {"command": fp.peers.MODERN_PYTHON, "args": [COUNTER, str(logs[name]), "--", *command]}
        for name, (command, _era) in servers.items()
    }
    with fp.fleet_bridge(tmp_path, config, bridge={"probe_timeout": 1.0}) as bridge:

        def all_probed() -> dict[str, Any] | None:
            health = bridge.health()["servers"]
            return health if all(health[name].get("era") and health[name].get("state") == "ok" for name in servers) else None

        health = fp.wait_for(all_probed, "all nine servers to start")
        assert {name: health[name]["era"] for name in servers} == {name: era for name, (_cmd, era) in servers.items()}

        async def list_all() -> dict[str, Any]:
            async with httpx.AsyncClient(timeout=120) as client:
                frames = await asyncio.gather(*(fp.rpc(client, bridge.url(name), "tools/list") for name in servers))
            return dict(zip(servers, frames, strict=True))

        for name, frame in asyncio.run(list_all()).items():
            assert frame.get("result", {}).get("tools"), (name, frame)
        text = bridge.metrics()
        for name, (_cmd, era) in servers.items():
            wrong = fp.LEGACY if era == fp.MODERN else fp.MODERN
            assert fp.metric(text, "mcp_bridge_era_probes_total", server=name, era=era) >= 1, name
            assert fp.metric(text, "mcp_bridge_era_probes_total", server=name, era=wrong) == 0, f"{name} was probed {wrong}"
            assert fp.metric(text, "mcp_bridge_upstream_era", server=name, era=era) == 1, name
        starts = {name: len(log.read_text().splitlines()) for name, log in logs.items()}
        # a 2026 server: the probed child serves; a 2025 one: the probed child is adopted uninitialized and the
        # first client's session initializes it with that client's identity (no session of the bridge's own)
        assert starts == dict.fromkeys(servers, 1), starts
