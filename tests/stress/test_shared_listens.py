"""#10, 2025 front: idle sessions of one principal that each subscribe share ONE upstream listen (in process, the
real HTTP front over ``ListeningUpstream``). Before sharing, each held its own: 1,000 such sessions met the listen
cap (512) and the rest had their subscriptions refused.

``MCP_ERAS_STRESS_SESSIONS`` sets the number of sessions (CI: 200; the measurement: 1000)."""

from __future__ import annotations

import os
import sys
import time

import legacy_front_fakes as fakes
import pytest
from legacy_front_asgi import LegacyClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.translate import jsonrpc

pytestmark = pytest.mark.anyio
SESSIONS = int(os.environ.get("MCP_ERAS_STRESS_SESSIONS", "200"))


async def test_idle_subscribed_sessions_of_one_principal_share_one_listen() -> None:
    settings = Settings(request_timeout=10.0, connect_timeout=5.0)
    upstream = fakes.ListeningUpstream()
    front = LegacyHttpFront(upstream, settings)
    app = build_app(settings, upstream, front)
    clients = [LegacyClient(app, "Bearer one-principal") for _ in range(SESSIONS)]
    peak, refused, started = 0, 0, time.monotonic()
    try:
        for n, client in enumerate(clients):
            await client.initialize()
            out = await client.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": f"file:///r{n}"}))
            refused += "error" in out
            peak = max(peak, len(upstream.listens), front.status()["listens"])
        elapsed = time.monotonic() - started
        listens = len(upstream.listens)
        print(f"\n{SESSIONS} idle sessions of one principal, each subscribed: upstream listens open {listens}, "
              f"peak {peak}, subscriptions refused {refused}, {elapsed:.1f} s", file=sys.stderr)
        assert refused == 0 and listens == 1 and peak <= 2
        (listen,) = upstream.listens.values()
        assert len(listen["filter"]["resourceSubscriptions"]) == SESSIONS
        # Fan-out: an update for one session's resource reaches that session only.
        first, last = clients[0], clients[-1]
        s_first, s_last = await first.get_stream(), await last.get_stream()
        assert await upstream.notify("notifications/resources/updated", {"uri": f"file:///r{SESSIONS - 1}"}) == 1
        assert await upstream.notify("notifications/resources/updated", {"uri": "file:///r0"}) == 1
        _eid, note = await s_first.next_event()
        assert note["params"] == {"uri": "file:///r0"}
        _eid, note = await s_last.next_event()
        assert note["params"] == {"uri": f"file:///r{SESSIONS - 1}"}
    finally:
        for client in clients:
            await client.aclose()
        await front.aclose()
    assert not upstream.listens
