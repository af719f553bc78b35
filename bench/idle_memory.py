"""mcp-bridge memory: RSS when idle, and per additional idle upstream session.

    .venv/bin/python bench/idle_memory.py [--sessions 1000] [--batch 50] [--json]

A bridge (2026 front) in front of the 2025 sample server over Streamable HTTP. Each caller identity (a
distinct ``clientInfo``: what ``initialize`` fixes, so a session of its own) gets an initialized upstream
session, which stays pooled and idle after its call (with its GET stream open, as every pooled 2025 session holds one). Reported: the
bridge's RSS right after start-up (upstream probed, no client yet), after the first call, and after
``--sessions`` identities each made one call; per-session cost = (RSS at N - RSS at 1) / (N - 1).
RSS is VmRSS from /proc (after a short settle), the bridge process only (no children: the upstream is
a separate server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import ACCEPT, LEGACY_PY, META, ROOT, bridge_cmd, free_port, parse_body, running, url  # noqa: E402


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def settled_rss(pid: int, seconds: float = 1.0) -> int:
    time.sleep(seconds)
    return rss_kib(pid)


async def call_as(client: httpx.AsyncClient, endpoint: str, who: int) -> None:
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
    meta = {**META, "io.modelcontextprotocol/clientInfo": {"name": f"idle-bench-{who}", "version": "1"}}
    body = {"jsonrpc": "2.0", "id": who, "method": "tools/call", "params": {"name": "add", "arguments": {"a": who, "b": 1}, "_meta": meta}}
    answer = parse_body(await client.post(endpoint, json=body, headers=headers))
    assert "result" in answer and answer["result"]["content"][0]["text"] == str(who + 1), answer


async def open_sessions(endpoint: str, first: int, count: int, batch: int) -> None:
    limits = httpx.Limits(max_connections=batch, keepalive_expiry=1.0)  # below the bridge's 5 s keep-alive
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        for start in range(first, first + count, batch):
            await asyncio.gather(*(call_as(client, endpoint, who) for who in range(start, min(start + batch, first + count))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=50, help="identities opening sessions at once")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    server = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
    up, br = free_port(), free_port()
    caps = ["--max-upstream-sessions", str(args.sessions + 8), "--max-sessions-per-identity", "1"]
    with running([*server, "http", "--port", str(up)], up), \
            running(bridge_cmd(br, "--upstream-era", "2025-11-25", *caps, "--upstream", url(up)), br) as bridge:
        idle = settled_rss(bridge.pid)
        asyncio.run(open_sessions(url(br), 0, 1, 1))
        one = settled_rss(bridge.pid)
        asyncio.run(open_sessions(url(br), 1, args.sessions - 1, args.batch))
        many = settled_rss(bridge.pid, 3.0)
        health = httpx.get(f"http://127.0.0.1:{br}/healthz", timeout=10).json()
    sessions = health.get("upstream", {}).get("sessions")
    result = {"idle_rss_mb": idle / 1024, "rss_after_1_session_mb": one / 1024,
              f"rss_after_{args.sessions}_sessions_mb": many / 1024, "upstream_sessions_reported": sessions,
              "kib_per_additional_session": (many - one) / max(1, args.sessions - 1)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:<34} {value:.1f}" if isinstance(value, float) else f"{key:<34} {value}")


if __name__ == "__main__":
    main()
