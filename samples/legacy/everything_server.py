"""Legacy (2025-11-25) "everything" test server, written for mcp 1.29.0 (``FastMCP``).

Usage (run it with the mcp 1.x interpreter, e.g. ``.venvs/mcp1/bin/python``)::

    everything_server.py [stdio]                          # default; stdout is the protocol
    everything_server.py http --port N [--host 127.0.0.1] # Streamable HTTP at /mcp
    everything_server.py sse --port N [--host 127.0.0.1]  # deprecated HTTP+SSE: /sse + /messages/
    options: --not-found {spec,sdk}  missing resource -> -32002 (default) or FastMCP's bare code 0

Surface (server name ``legacy-everything``, with instructions; the modern twin is
``samples/modern/everything_server.py``; texts and data live in ``samples/surface.py``):

- tools: ``echo(text)``, ``add(a, b)`` (plain text results), ``weather(city)`` (structured output
  with an ``outputSchema``), ``slow_count(n)`` (n progress notifications), ``log_levels()``
  (debug/info/warning/error log messages, filtered by the session's ``logging/setLevel``),
  ``fail()`` (an ``isError`` result), ``add_tool(name)`` (registers a tool at runtime and sends
  ``notifications/tools/list_changed``), ``touch(uri)`` (sends ``notifications/resources/updated``
  to the sessions subscribed to ``uri`` and ``notifications/resources/list_changed`` to all).
- resources: ``memo://readme`` (text), ``memo://config`` (JSON), ``memo://logo`` (blob),
  template ``greeting://{name}``; reading an unknown URI answers JSON-RPC error -32002 with
  ``data.uri`` (the 2025 spec's resource-not-found; FastMCP itself would answer code 0).
- prompts: ``review(code, language="python")`` and ``hello()`` (no arguments).
- completion for the prompt argument ``language`` and the template variable ``name``.
- ``resources/subscribe``/``unsubscribe`` and ``logging/setLevel``.

FastMCP 1.29 limits worked around here: it declares neither ``logging`` nor
``resources.subscribe`` nor any ``listChanged`` flag (the low-level ``get_capabilities`` hard-codes
``subscribe=False``), so the low-level server's initialization options are patched, and the
subscribe/unsubscribe/setLevel handlers are registered on the low-level server.
"""

from __future__ import annotations

import argparse
import sys
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from pydantic import AnyUrl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import surface  # noqa: E402
from mcp import types  # noqa: E402
from mcp.server.fastmcp import Context, FastMCP  # noqa: E402
from mcp.server.fastmcp.exceptions import ToolError  # noqa: E402
from mcp.server.lowlevel.server import NotificationOptions  # noqa: E402
from mcp.server.models import InitializationOptions  # noqa: E402
from mcp.server.session import ServerSession  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402

RESOURCE_NOT_FOUND = -32002


class SessionRegistry:
    """Live sessions, their resource subscriptions and log levels (weakly held)."""

    def __init__(self) -> None:
        self.sessions: weakref.WeakSet[ServerSession] = weakref.WeakSet()
        self.subscriptions: weakref.WeakKeyDictionary[ServerSession, set[str]] = weakref.WeakKeyDictionary()
        self.log_levels: weakref.WeakKeyDictionary[ServerSession, str] = weakref.WeakKeyDictionary()

    def subscribed(self, uri: str) -> list[ServerSession]:
        return [session for session, uris in list(self.subscriptions.items()) if uri in uris]

    async def broadcast(self, send: Callable[[ServerSession], Awaitable[None]]) -> None:
        for session in list(self.sessions):
            try:
                await send(session)
            except Exception:  # a session whose transport is gone: forget it
                self.sessions.discard(session)


class LegacyEverything(FastMCP):
    """FastMCP with the 2025 resource-not-found error on unknown URIs."""

    spec_not_found = True

    async def read_resource(self, uri: AnyUrl | str) -> Any:
        try:
            return await super().read_resource(uri)
        except ValueError as exc:
            if self.spec_not_found and str(exc).startswith("Unknown resource"):
                raise McpError(
                    types.ErrorData(code=RESOURCE_NOT_FOUND, message="Resource not found", data={"uri": str(uri)})
                ) from exc
            raise


def build_server(host: str = "127.0.0.1", port: int = 8000, spec_not_found: bool = True) -> FastMCP:
    mcp = LegacyEverything(
        "legacy-everything", instructions=surface.INSTRUCTIONS, host=host, port=port, log_level="WARNING"
    )
    mcp.spec_not_found = spec_not_found
    low = mcp._mcp_server
    low.version = surface.SERVER_VERSION
    registry = SessionRegistry()

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
        threshold = registry.log_levels.get(ctx.session)
        sent = 0
        for level in surface.LOG_LEVELS:
            if surface.at_or_above(level, threshold):
                await ctx.log(level, surface.log_message(level), logger_name="log_levels")  # type: ignore[arg-type]
                sent += 1
        return f"emitted {sent} log messages"

    @mcp.tool(description="Register a new tool at runtime and announce tools/list_changed.", structured_output=False)
    async def add_tool(name: str, ctx: Context) -> str:
        def runtime_tool() -> str:
            return surface.runtime_tool_text(name)

        if mcp._tool_manager.get_tool(name) is None:
            mcp.add_tool(runtime_tool, name=name, description="Added at runtime.", structured_output=False)
        registry.sessions.add(ctx.session)
        await registry.broadcast(lambda session: session.send_tool_list_changed())
        return f"added tool {name}"

    @mcp.tool(description="Announce resources/updated for uri and resources/list_changed.", structured_output=False)
    async def touch(uri: str, ctx: Context) -> str:
        registry.sessions.add(ctx.session)
        for session in registry.subscribed(uri):
            try:
                await session.send_resource_updated(AnyUrl(uri))
            except Exception:
                registry.subscriptions.pop(session, None)
        await registry.broadcast(lambda session: session.send_resource_list_changed())
        return f"touched {uri}"

    # --- completion ----------------------------------------------------------------------
    @mcp.completion()
    async def complete(
        ref: types.PromptReference | types.ResourceTemplateReference,
        argument: types.CompletionArgument,
        context: types.CompletionContext | None,
    ) -> types.Completion | None:
        if isinstance(ref, types.PromptReference) and ref.name == "review" and argument.name == "language":
            values = surface.complete_values(surface.LANGUAGES, argument.value)
        elif isinstance(ref, types.ResourceTemplateReference) and ref.uri == surface.GREETING_TEMPLATE:
            values = surface.complete_values(surface.NAMES, argument.value) if argument.name == "name" else []
        else:
            return None
        return types.Completion(values=values, total=len(values), hasMore=False)

    # --- low-level handlers FastMCP does not offer ---------------------------------------
    @low.subscribe_resource()
    async def subscribe(uri: AnyUrl) -> None:
        session = low.request_context.session
        registry.sessions.add(session)
        registry.subscriptions.setdefault(session, set()).add(str(uri))

    @low.unsubscribe_resource()
    async def unsubscribe(uri: AnyUrl) -> None:
        registry.subscriptions.get(low.request_context.session, set()).discard(str(uri))

    @low.set_logging_level()
    async def set_level(level: types.LoggingLevel) -> None:
        session = low.request_context.session
        registry.sessions.add(session)
        registry.log_levels[session] = level

    original_options = low.create_initialization_options

    def initialization_options(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = original_options(
            NotificationOptions(prompts_changed=False, resources_changed=True, tools_changed=True),
            experimental_capabilities,
        )
        assert options.capabilities.resources is not None
        options.capabilities.resources.subscribe = True
        return options

    low.create_initialization_options = initialization_options  # type: ignore[method-assign]
    _track_sessions(low, registry)
    return mcp


def _track_sessions(low: Any, registry: SessionRegistry) -> None:
    """Remember every session that sends a request, so list_changed reaches all of them."""
    for request_type, handler in list(low.request_handlers.items()):

        def wrapped(req: Any, _handler: Any = handler) -> Any:
            try:
                registry.sessions.add(low.request_context.session)
            except LookupError:
                pass
            return _handler(req)

        low.request_handlers[request_type] = wrapped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http", "sse"])
    parser.add_argument("--port", type=int, help="TCP port (http, sse)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--not-found", choices=["spec", "sdk"], default="spec")
    args = parser.parse_args(argv)
    if args.transport != "stdio" and args.port is None:
        parser.error(f"{args.transport} needs --port")
    surface.stderr_logging()
    mcp = build_server(args.host, args.port or 8000, spec_not_found=args.not_found == "spec")
    mcp.run({"stdio": "stdio", "http": "streamable-http", "sse": "sse"}[args.transport])  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
