"""mcp-bridge command line (typer)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import socket
import sys
from typing import Annotated

import typer

from bridge import eras
from bridge.config import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Translate MCP between 2025-11-25 and 2026-07-28, both ways.")

log = logging.getLogger("mcp_bridge")

ERA_CHOICES = ("auto", eras.LEGACY, eras.MODERN)


def _setup_logging(level: str) -> None:
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # One line per upstream HTTP request is noise at info level.
    logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger().level))


def _parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", listen
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit():
        raise typer.BadParameter(f"--listen wants HOST:PORT, got {listen!r}")
    return host, int(port)


def _state_key(value: str | None) -> bytes | None:
    value = value or os.environ.get("MCP_BRIDGE_STATE_KEY")
    if not value:
        return None
    try:
        key = bytes.fromhex(value)
    except ValueError:
        key = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    if len(key) < 16:
        raise typer.BadParameter("the requestState key must be at least 16 bytes (hex or base64)")
    return key


def _headers(values: list[str]) -> dict[str, str]:
    out = {}
    for item in values:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise typer.BadParameter(f"--header wants 'Name: value', got {item!r}")
        out[name.strip()] = value.strip()
    return out


@app.callback()
def _root() -> None:
    """mcp-bridge: put a client of either MCP era in front of a server of either era."""


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": False})
def serve(
    ctx: typer.Context,
    listen: Annotated[str | None, typer.Option(help="Serve Streamable HTTP at http://HOST:PORT/mcp (default host 127.0.0.1).")] = None,
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve one client on stdin/stdout.")] = False,
    upstream: Annotated[str | None, typer.Option(help="Upstream URL (Streamable HTTP or HTTP+SSE). Or give a command after --.")] = None,
    upstream_era: Annotated[str, typer.Option(help="auto | 2025-11-25 | 2026-07-28")] = "auto",
    front_era: Annotated[str, typer.Option(help="auto (both, per request) | 2025-11-25 | 2026-07-28")] = "auto",
    upstream_transport: Annotated[str, typer.Option(help="For URLs: auto | streamable-http | sse")] = "auto",
    header: Annotated[list[str], typer.Option("--header", "-H", help="Extra header for HTTP upstreams, 'Name: value'.")] = [],  # noqa: B006
    allow_origin: Annotated[list[str], typer.Option(help="Browser Origin to accept besides loopback ones.")] = [],  # noqa: B006
    max_body_bytes: Annotated[int, typer.Option(help="Largest accepted request body.")] = 4 * 1024 * 1024,
    request_timeout: Annotated[float, typer.Option(help="Seconds one upstream call may take.")] = 300.0,
    probe_timeout: Annotated[float, typer.Option(help="Seconds to wait for a server/discover answer when probing.")] = 5.0,
    ttl_ms: Annotated[int, typer.Option(help="ttlMs stamped on cacheable results of legacy upstreams.")] = 0,
    cache_scope: Annotated[str, typer.Option(help="cacheScope stamped on those results: private | public.")] = "private",
    state_key: Annotated[str | None, typer.Option(help="requestState HMAC key, hex or base64 (env MCP_BRIDGE_STATE_KEY).")] = None,
    parked_timeout: Annotated[float, typer.Option(help="Seconds a call waiting for client input is kept.")] = 600.0,
    session_idle_timeout: Annotated[float, typer.Option(help="Seconds before an idle 2025 front session expires.")] = 1800.0,
    mrtr_max_rounds: Annotated[int, typer.Option(help="2025 front: input_required rounds driven for one call before giving up.")] = 16,
    state_store: Annotated[str, typer.Option(envvar="MCP_BRIDGE_STATE_STORE",
                                             help="memory | redis://HOST:PORT/DB shared by all instances (needs --state-key).")] = "memory",
    instance_id: Annotated[str | None, typer.Option(envvar="MCP_BRIDGE_INSTANCE_ID",
                                                    help="This instance's name (default: host name + pid).")] = None,
    advertise_url: Annotated[str | None, typer.Option(envvar="MCP_BRIDGE_ADVERTISE_URL",
                                                      help="Base URL other instances reach this one at (default: --listen).")] = None,
    config: Annotated[str | None, typer.Option(help="Fleet config (TOML, or mcpServers JSON): serve many upstreams.")] = None,
    log_level: Annotated[str, typer.Option(help="debug | info | warning | error")] = "info",
) -> None:
    """Run the bridge. The upstream is --upstream URL, or a stdio command after `--` (or a fleet --config)."""
    _setup_logging(log_level)
    command = list(ctx.args)
    if config is not None:
        from bridge.fleet.serve import serve_fleet

        if upstream or command or stdio:
            raise typer.BadParameter("--config serves the fleet over HTTP: give no --upstream, command or --stdio")
        host, port = _parse_listen(listen) if listen else (None, None)
        serve_fleet(config, host, port)
        return
    if bool(upstream) == bool(command):
        raise typer.BadParameter("give exactly one upstream: --upstream URL, or `-- COMMAND ARGS...`")
    if stdio == bool(listen):
        raise typer.BadParameter("choose exactly one front: --listen HOST:PORT or --stdio")
    for name, value in (("--upstream-era", upstream_era), ("--front-era", front_era)):
        if value not in ERA_CHOICES:
            raise typer.BadParameter(f"{name} must be one of {', '.join(ERA_CHOICES)}")
    if cache_scope not in ("private", "public"):
        raise typer.BadParameter("--cache-scope must be private or public")
    if upstream_transport not in ("auto", "streamable-http", "sse"):
        raise typer.BadParameter("--upstream-transport must be auto, streamable-http or sse")
    settings_kwargs: dict = dict(
        front_era=front_era, upstream_era=upstream_era, allowed_origins=list(allow_origin), max_body_bytes=max_body_bytes,
        request_timeout=request_timeout, probe_timeout=probe_timeout, ttl_ms=ttl_ms, cache_scope=cache_scope,
        parked_timeout=parked_timeout, session_idle_timeout=session_idle_timeout, mrtr_max_rounds=mrtr_max_rounds,
    )
    key = _state_key(state_key)
    if key is not None:
        settings_kwargs["state_key"] = key
    _scale_settings(settings_kwargs, state_store, key, instance_id, advertise_url, bool(stdio))
    settings = Settings(**settings_kwargs)

    from bridge.upstream.factory import Target, make_upstream

    target = Target(url=upstream, command=command, headers=_headers(header), transport=upstream_transport)
    up = make_upstream(target, settings)
    if stdio:
        asyncio.run(_serve_stdio(up, settings))
    else:
        assert listen is not None
        host, port = _parse_listen(listen)
        _serve_http(up, settings, host, port)


def _scale_settings(kwargs: dict, store: str, key: bytes | None, instance_id: str | None, advertise_url: str | None, stdio: bool) -> None:
    """--state-store / --instance-id / --advertise-url (see bridge.store); a shared store without a shared
    key is refused with one line and exit status 2."""
    from bridge.store import is_shared_url

    if store != "memory" and not is_shared_url(store):
        _refuse(f"--state-store wants memory or redis://HOST:PORT/DB, got {store!r}")
    if is_shared_url(store) and key is None:
        _refuse("--state-store redis://... needs --state-key (or MCP_BRIDGE_STATE_KEY) shared by every instance")
    if is_shared_url(store) and stdio:
        _refuse("--state-store redis://... serves HTTP (--listen), not --stdio")
    kwargs.update(state_store=store, advertise_url=advertise_url, instance_id=instance_id or f"{socket.gethostname()}-{os.getpid()}")


def _refuse(message: str) -> None:
    print(f"mcp-bridge: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _legacy_http_front(up, settings: Settings):  # type: ignore[no-untyped-def]
    if settings.front_era == eras.MODERN:
        return None
    from bridge.front.legacy import LegacyHttpFront

    return LegacyHttpFront(up, settings)


def _legacy_stdio_factory(settings: Settings):  # type: ignore[no-untyped-def]
    if settings.front_era == eras.MODERN:
        return None
    from bridge.front.legacy import LegacyStdioSession

    return LegacyStdioSession


async def _serve_stdio(up, settings: Settings) -> None:  # type: ignore[no-untyped-def]
    from bridge.front.stdio import serve_stdio

    await serve_stdio(up, settings, _legacy_stdio_factory(settings))


def _serve_http(up, settings: Settings, host: str, port: int) -> None:  # type: ignore[no-untyped-def]
    import uvicorn

    from bridge.front.http import build_app

    if settings.state_store != "memory":
        from bridge.store.wiring import scaled_app

        app_ = scaled_app(settings, up, _legacy_http_front(up, settings), f"http://{host}:{port}")
    else:
        app_ = build_app(settings, up, _legacy_http_front(up, settings))
    log.info("mcp-bridge listening on http://%s:%d/mcp (front %s, upstream %s)", host, port, settings.front_era, settings.upstream_era)
    config = uvicorn.Config(app_, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    uvicorn.Server(config).run()


def main() -> None:
    from bridge.fleet import cli as _fleet_cli  # noqa: F401  (registers probe, verify, reload)

    app()
