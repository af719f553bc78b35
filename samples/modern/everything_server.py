"""Modern (2026-07-28) "everything" test server, written for mcp 2.3.0 (``MCPServer``).

Usage (run it with the project interpreter, ``.venv/bin/python``)::

    everything_server.py [stdio] [--modern-only]                           # default transport
    everything_server.py http --port N [--host 127.0.0.1] [--modern-only]  # Streamable HTTP at /mcp

mcp 2.3.0 serves both eras by default: on stdio the client's first request decides the era
(a request carrying the 2026 ``_meta`` envelope opens a stateless 2026-07-28 connection,
``initialize`` opens a 2025 session); on HTTP the ``MCP-Protocol-Version`` header routes each
request. The SDK has no switch to refuse the 2025 era, so ``--modern-only`` installs a server
middleware that rejects every request of a handshake-era connection (``initialize`` included)
with -32602 ``{"supported": ["2026-07-28"], "requested": ...}``.

Surface (server name ``modern-everything``): the same as ``samples/legacy/everything_server.py``,
texts and data from ``samples/surface.py``. Tools ``echo``, ``add``, ``weather`` (structured),
``slow_count``, ``log_levels``, ``fail``, ``add_tool``, ``touch``; resources ``memo://readme``,
``memo://config``, ``memo://logo`` (blob), template ``greeting://{name}``; prompts ``review`` and
``hello``; completion of ``language`` and ``name``. Change events go to ``subscriptions/listen``
streams on the 2026 wire and to the session (``resources/subscribe`` honoured) on the 2025 wire.

Unavoidable differences from the legacy twin:

- unknown resource: -32602 with ``data.uri`` (2026 rule; the SDK raises it on both eras) instead
  of the legacy -32002;
- logging is a per-request opt-in on the 2026 wire (``_meta`` ``io.modelcontextprotocol/logLevel``;
  absent = no messages, so ``log_levels`` then reports ``emitted 0 log messages``); a
  ``logging/setLevel`` handler exists only to keep ``logging`` in the capabilities and to filter
  2025 sessions;
- capabilities on the 2026 wire derive ``listChanged``/``subscribe`` from ``subscriptions/listen``
  (all true, prompts included), where the legacy twin declares ``prompts.listChanged: false``;
- results carry the 2026 extras (``resultType``, ``ttlMs``/``cacheScope``, ``serverInfo`` in
  ``_meta``), and there is no ``ping``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp_types import (
    INVALID_PARAMS,
    LOG_LEVEL_META_KEY,
    Completion,
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import surface  # noqa: E402
from mcp.server.connection import Connection  # noqa: E402
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext  # noqa: E402
from mcp.server.lowlevel.server import NotificationOptions  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from mcp.server.models import InitializationOptions  # noqa: E402
from mcp.server.session import ServerSession  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError  # noqa: E402


def is_modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


class LegacySessions:
    """2025 connections of this dual-era server: subscriptions and log levels (weakly held).

    mcp 2.3.0 builds a fresh ``ServerSession`` per request; the per-connection object behind it
    is its ``Connection`` (reached through the session's private ``_connection``: the handler
    context exposes no public accessor), so that is what is tracked here.
    """

    def __init__(self) -> None:
        self.connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.subscriptions: weakref.WeakKeyDictionary[Connection, set[str]] = weakref.WeakKeyDictionary()
        self.log_levels: weakref.WeakKeyDictionary[Connection, str] = weakref.WeakKeyDictionary()

    @staticmethod
    def connection(session: ServerSession) -> Connection:
        return session._connection

    def seen(self, session: ServerSession) -> Connection:
        connection = self.connection(session)
        self.connections.add(connection)
        return connection

    async def each(self, uri: str | None, send: Callable[[Connection], Awaitable[None]]) -> None:
        if uri is None:
            targets = list(self.connections)
        else:
            targets = [c for c, uris in list(self.subscriptions.items()) if uri in uris]
        for connection in targets:
            try:
                await send(connection)
            except Exception:  # transport gone
                self.connections.discard(connection)


async def modern_only(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Refuse the 2025 handshake era: every request of a legacy connection fails."""
    if ctx.request_id is not None and (ctx.method == "initialize" or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS):
        requested = (ctx.params or {}).get("protocolVersion", ctx.protocol_version)
        raise MCPError(
            code=INVALID_PARAMS,
            message="Unsupported protocol version: this server serves 2026-07-28 only",
            data={"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": requested},
        )
    return await call_next(ctx)


def build_server(modern_only_mode: bool = False) -> MCPServer:
    mcp = MCPServer(
        "modern-everything",
        instructions=surface.INSTRUCTIONS,
        version=surface.SERVER_VERSION,
        log_level="WARNING",
        middleware=[modern_only] if modern_only_mode else None,
    )
    legacy = LegacySessions()

    surface.register_common(mcp, ToolError)

    # --- tools needing a request context ------------------------------------------------
    @mcp.tool(description="Count to n, reporting progress at every step.", structured_output=False)
    async def slow_count(n: int, ctx: Context) -> str:
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"step {step}/{n}")
            await anyio.sleep(0.01)
        return f"counted to {n}"

    @mcp.tool(description="Emit one log message per level: debug, info, warning, error.", structured_output=False)
    async def log_levels(ctx: Context) -> str:
        if is_modern(ctx):
            meta = ctx.request_context.meta or {}
            threshold = meta.get(LOG_LEVEL_META_KEY)
            if threshold not in surface.SEVERITY:
                return "emitted 0 log messages"
        else:
            threshold = legacy.log_levels.get(legacy.seen(ctx.session))
        sent = 0
        for level in surface.LOG_LEVELS:
            if surface.at_or_above(level, threshold):
                await ctx.session.send_log_message(
                    level, surface.log_message(level), logger="log_levels", related_request_id=ctx.request_id
                )  # type: ignore[arg-type]
                sent += 1
        return f"emitted {sent} log messages"

    @mcp.tool(description="Register a new tool at runtime and announce tools/list_changed.", structured_output=False)
    async def add_tool(name: str, ctx: Context) -> str:
        def runtime_tool() -> str:
            return surface.runtime_tool_text(name)

        if mcp._tool_manager.get_tool(name) is None:
            mcp.add_tool(runtime_tool, name=name, description="Added at runtime.", structured_output=False)
        await ctx.notify_tools_changed()
        if not is_modern(ctx):
            legacy.seen(ctx.session)
        await legacy.each(None, lambda connection: connection.send_tool_list_changed())
        return f"added tool {name}"

    @mcp.tool(description="Announce resources/updated for uri and resources/list_changed.", structured_output=False)
    async def touch(uri: str, ctx: Context) -> str:
        await ctx.notify_resource_updated(uri)
        await ctx.notify_resources_changed()
        if not is_modern(ctx):
            legacy.seen(ctx.session)
        await legacy.each(uri, lambda connection: connection.send_resource_updated(uri))
        await legacy.each(None, lambda connection: connection.send_resource_list_changed())
        return f"touched {uri}"

    # --- completion ----------------------------------------------------------------------
    @mcp.completion()
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, PromptReference) and ref.name == "review" and argument.name == "language":
            values = surface.complete_values(surface.LANGUAGES, argument.value)
        elif isinstance(ref, ResourceTemplateReference) and ref.uri == surface.GREETING_TEMPLATE:
            values = surface.complete_values(surface.NAMES, argument.value) if argument.name == "name" else []
        else:
            return None
        return Completion(values=values, total=len(values), has_more=False)

    # --- 2025-era handlers (dual-era serving; unreachable on the 2026 wire) ---------------
    low = mcp._lowlevel_server

    async def subscribe(ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        legacy.subscriptions.setdefault(legacy.seen(ctx.session), set()).add(str(params.uri))
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        legacy.subscriptions.get(legacy.connection(ctx.session), set()).discard(str(params.uri))
        return EmptyResult()

    async def set_level(ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
        legacy.log_levels[legacy.seen(ctx.session)] = params.level
        return EmptyResult()

    low.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    low.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)

    # 2025 sessions get their capabilities from the initialization options, whose default
    # NotificationOptions declare no listChanged at all; declare what this server sends.
    original_options = low.create_initialization_options

    def initialization_options(
        notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> InitializationOptions:
        notifications = NotificationOptions(prompts_changed=False, resources_changed=True, tools_changed=True)
        return original_options(notifications, *args, **kwargs)

    low.create_initialization_options = initialization_options  # type: ignore[method-assign]
    return mcp


def parse_cli(description: str, argv: list[str] | None, modern_only_flag: bool) -> argparse.Namespace:
    """The modern servers' command line: ``[stdio] | http --port N [--host H]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, help="TCP port (http)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    if modern_only_flag:
        parser.add_argument("--modern-only", action="store_true", help="refuse 2025-era (initialize) connections")
    args = parser.parse_args(argv)
    if args.transport == "http" and args.port is None:
        parser.error("http needs --port")
    surface.stderr_logging()
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # logging/roots/sampling are used on purpose
    return args


def serve(mcp: MCPServer, args: argparse.Namespace) -> None:
    if args.transport == "stdio":
        mcp.run("stdio")
    else:
        mcp.run("streamable-http", host=args.host, port=args.port)


def main(argv: list[str] | None = None) -> None:
    args = parse_cli(__doc__.splitlines()[0], argv, modern_only_flag=True)
    serve(build_server(args.modern_only), args)


if __name__ == "__main__":
    main()
