"""A 2026-07-28 server (mcp 2.3.0 ``MCPServer``, Streamable HTTP) that counts its open ``subscriptions/listen``
streams, for the scale-out test of one upstream listen per share key (issue #33 item 9).

Each listen registers one listener on the server's subscription bus while it is open (``mcp.server.subscriptions.
ListenHandler``), so the bus's live registrations are the open listens. Tools: ``open_listens`` (that count),
``touch`` (a ``resources/updated`` for a URI), ``tools_changed`` (a ``tools/list_changed``). Run: ``python
counting_listen_server.py PORT``."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ServerEvent

warnings.simplefilter("ignore")


class CountingBus(InMemorySubscriptionBus):
    def __init__(self) -> None:
        super().__init__()
        self.open = 0

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        unsubscribe = super().subscribe(listener)
        self.open += 1
        done = False

        def once() -> None:
            nonlocal done
            if not done:
                done = True
                self.open -= 1
            unsubscribe()

        return once


bus = CountingBus()
mcp = MCPServer("counting-listens", version="1.0.0", subscriptions=bus, log_level="ERROR")


@mcp.tool()
async def open_listens() -> int:
    """How many subscriptions/listen streams are open now."""
    return bus.open


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announce that a resource was updated."""
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@mcp.tool()
async def tools_changed(ctx: Context) -> str:
    """Announce a change of the tool list (tools/list_changed)."""
    await ctx.notify_tools_changed()
    return "announced"


@mcp.resource("memo://{name}")
def memo(name: str) -> str:
    return f"memo {name}"


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
