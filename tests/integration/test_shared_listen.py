"""#10: two mcp 1.29 ``ClientSession``s of the same principal through the bridge's 2025 HTTP front to a real mcp 2.3.0
server share ONE upstream ``subscriptions/listen``; each subscribes to a different resource and receives only its
own ``notifications/resources/updated``, and both receive ``notifications/tools/list_changed``.

The server sends everything on the one shared listen in order, so the list_changed sent last is a barrier: when a
session has it, it has everything the bridge delivered to it before (no sleep decides the absence).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from direction_b_peers import MODERN_SERVER
from test_direction_b import modern_upstream, serve_front

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit
from mcp_eras.bridge.translate.jsonrpc import Message

import peers

pytestmark = [pytest.mark.anyio, pytest.mark.legacy_peer]

TWO_SESSIONS = r'''
import json
import sys

import anyio
from pydantic import AnyUrl
from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client

URL = sys.argv[1]
HEADERS = {"Authorization": "Bearer one-principal"}


class Notes:
    def __init__(self):
        self.seen = []
        self.tools_changed = anyio.Event()

    async def on_message(self, message):
        if isinstance(message, types.ServerNotification):
            root = message.root
            self.seen.append({"method": root.method, "params": root.params.model_dump(mode="json", exclude_none=True)
                              if root.params else None})
            if root.method == "notifications/tools/list_changed":
                self.tools_changed.set()


async def main():
    notes = [Notes(), Notes()]
    async with streamablehttp_client(URL, headers=HEADERS) as (r1, w1, _), \
            streamablehttp_client(URL, headers=HEADERS) as (r2, w2, _), \
            ClientSession(r1, w1, message_handler=notes[0].on_message) as one, \
            ClientSession(r2, w2, message_handler=notes[1].on_message) as two:
        await one.initialize()
        await two.initialize()
        await one.subscribe_resource(AnyUrl("memo://one"))
        await two.subscribe_resource(AnyUrl("memo://two"))
        await one.call_tool("touch", {"uri": "memo://one"})
        await one.call_tool("touch", {"uri": "memo://two"})
        await two.call_tool("add_tool", {"name": "fresh_tool"})
        with anyio.fail_after(60):
            await notes[0].tools_changed.wait()
            await notes[1].tools_changed.wait()
    print(json.dumps({"one": notes[0].seen, "two": notes[1].seen}))


anyio.run(main)
'''


@pytest.mark.parametrize("upstream_kind", ["http", "stdio"])
async def test_two_sessions_of_one_principal_share_a_listen(upstream_kind: str, tmp_path: Path) -> None:
    server, client = tmp_path / "server.py", tmp_path / "two_sessions.py"
    server.write_text(MODERN_SERVER)
    client.write_text(TWO_SESSIONS)
    settings = Settings(front_era="2025-11-25", upstream_era="2026-07-28")
    filters: list[dict[str, Any]] = []
    live = [0, 0]  # open now, peak
    async with modern_upstream(upstream_kind, server, settings) as (upstream, _target), \
            serve_front(upstream, settings) as (url, front):
        real = upstream.call

        async def counting(request: Message, ctx: CallContext, emit: Emit) -> Message:
            if request["method"] != "subscriptions/listen":
                return await real(request, ctx, emit)
            filters.append(request["params"]["notifications"])
            live[0] += 1
            live[1] = max(live)
            try:
                return await real(request, ctx, emit)
            finally:
                live[0] -= 1

        upstream.call = counting  # type: ignore[method-assign]
        proc = await anyio.run_process([peers.legacy_python(), str(client), url], check=False, env=dict(os.environ),
                                       stderr=sys.stderr)
        assert proc.returncode == 0, proc.stdout.decode()[-2000:]
        assert front.status()["listens"] == 0  # both sessions ended (DELETE): the shared listen went with the last
    # One listen served both subscriptions; two at once only for the moment a replacement overlaps (make-before-break).
    assert filters[-1]["resourceSubscriptions"] == ["memo://one", "memo://two"] and live[1] <= 2
    out = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    updated = "notifications/resources/updated"
    assert [n["params"]["uri"] for n in out["one"] if n["method"] == updated] == ["memo://one"]
    assert [n["params"]["uri"] for n in out["two"] if n["method"] == updated] == ["memo://two"]
    for seen in (out["one"], out["two"]):
        assert seen[-1]["method"] == "notifications/tools/list_changed"
