"""mcp-bridge command line (typer): ``serve`` here; ``probe``, ``verify``, ``reload`` from the fleet sub-app.

Conventions (``mcp_eras.bridge.clikit``): ``-h``/``--version``/``--debug``/``--log-format`` everywhere, every
option also as an ``MCP_BRIDGE_*`` environment variable, one-line errors.
"""

from __future__ import annotations

import base64
import logging
import os
import shutil
import socket
import sys
from typing import Annotated
from urllib.parse import urlsplit

import typer

from mcp_eras.bridge import _perf, clikit
from mcp_eras.bridge.clikit import ERA_CHOICES, CliError, DebugOpt, LogFormatOpt, LogLevelOpt, VersionOpt, env
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.fleet.cli import app as fleet_app
from mcp_eras.bridge.translate import eras

app = typer.Typer(no_args_is_help=True, add_completion=True, context_settings=clikit.CONTEXT_SETTINGS,
                  help="Translate MCP between 2025-11-25 and 2026-07-28, both ways.")
app.add_typer(fleet_app)

log = logging.getLogger("mcp_bridge")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
SAFE_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "APPDATA")
"""What a stdio child sees of the bridge's environment with --no-pass-environment (besides -e)."""

__all__ = ["ERA_CHOICES", "app", "main"]


def parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep:
        host, port = DEFAULT_HOST, listen
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise CliError(f"--listen wants HOST:PORT, got {listen!r}", 2)
    return host, int(port)


def _state_key(value: str | None) -> bytes | None:
    if not value:
        return None
    try:
        key = bytes.fromhex(value)
    except ValueError:
        try:
            key = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except ValueError:
            raise CliError("--state-key is neither hex nor base64", 2) from None
    if len(key) < 16:
        raise CliError("the requestState key must be at least 16 bytes (hex or base64)", 2)
    return key


def _pairs(values: list[str], sep: str, option: str, shape: str) -> dict[str, str]:
    out = {}
    for item in values:
        name, found, value = item.partition(sep)
        if not found or not name.strip():
            raise CliError(f"{option} wants {shape}, got {item!r}", 2)
        out[name.strip()] = value.strip() if sep == ":" else value
    return out


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CliError(f"bad upstream URL {url!r}: want http://HOST[:PORT]/PATH or https://...")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise CliError(f"bad upstream URL {url!r}: the port is not a number in 0-65535") from None
    return url


def check_command(command: list[str], cwd: str | None) -> None:
    if cwd is not None and not os.path.isdir(cwd):
        raise CliError(f"--cwd {cwd!r} is not a directory")
    exe = command[0]
    if os.sep in exe:
        path = exe if os.path.isabs(exe) or cwd is None else os.path.join(cwd, exe)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise CliError(f"command not found or not executable: {exe}")
    elif shutil.which(exe) is None:
        raise CliError(f"command not found: {exe} (not on PATH)")


def child_env(pairs: dict[str, str], pass_environment: bool) -> tuple[dict[str, str], bool]:
    """(env, inherit) for the stdio child: all of ours plus ``-e`` (default), or a safe few plus ``-e``."""
    if pass_environment:
        return pairs, True
    base = {k: os.environ[k] for k in SAFE_ENV if k in os.environ}
    return base | pairs, False


def _opt(help_: str, *names: str, **kw: object) -> typer.models.OptionInfo:
    """An option whose environment variable is MCP_BRIDGE_<first long name>."""
    long = next((n for n in names if n.startswith("--")), None)
    key = (long or "").lstrip("-").split("/")[0]
    return typer.Option(*names, envvar=env(key) if key else None, help=help_, **kw)  # type: ignore[arg-type]


@app.callback()
def _root(version: VersionOpt = False) -> None:
    """mcp-bridge: put a client of either MCP era in front of a server of either era.

    Run `mcp-bridge serve -h` to start; `pipx run mcp-eras bridge ...` / `uvx mcp-eras bridge ...` reach the same tool.
    """


@app.command(context_settings={"ignore_unknown_options": False})
def serve(
    command: Annotated[list[str] | None, typer.Argument(metavar="-- COMMAND [ARGS]", show_default=False,
                                                        help="The upstream as a stdio command, after `--`.")] = None,
    stdio: Annotated[bool, _opt("Serve one client on stdin/stdout (for desktop hosts) instead of HTTP.", "--stdio")] = False,
    host: Annotated[str | None, _opt("Address to serve HTTP on.", "--host", show_default=DEFAULT_HOST)] = None,
    port: Annotated[int | None, _opt("Port to serve HTTP on (0: any free port).", "--port", "-p", show_default=str(DEFAULT_PORT),
                                     min=0, max=65535)] = None,
    listen: Annotated[str | None, _opt("HOST:PORT, the same as --host and --port.", "--listen")] = None,
    path: Annotated[str, _opt("The MCP endpoint's path.", "--path")] = "/mcp",
    upstream: Annotated[str | None, _opt("Upstream URL (Streamable HTTP or HTTP+SSE), instead of a command.", "--upstream")] = None,
    env_pairs: Annotated[list[str], _opt("KEY=VALUE for the stdio child's environment (repeatable).", "--env", "-e")] = [],  # noqa: B006
    cwd: Annotated[str | None, _opt("Working directory of the stdio child.", "--cwd")] = None,
    pass_environment: Annotated[bool, _opt("Give the stdio child the bridge's whole environment (else only PATH, HOME, "
                                           "USER, LANG, ... and -e).", "--pass-environment/--no-pass-environment")] = True,
    upstream_era: Annotated[str, _opt("auto | 2025-11-25 | 2026-07-28", "--upstream-era")] = "auto",
    front_era: Annotated[str, _opt("auto (both, per request) | 2025-11-25 | 2026-07-28", "--front-era")] = "auto",
    upstream_transport: Annotated[str, _opt("For URLs: auto | streamable-http | sse", "--upstream-transport")] = "auto",
    header: Annotated[list[str], _opt("Extra header for HTTP upstreams, 'Name: value'.", "--header", "-H")] = [],  # noqa: B006
    allow_origin: Annotated[list[str], _opt("Browser Origin to accept besides loopback ones.", "--allow-origin")] = [],  # noqa: B006
    allow_host: Annotated[list[str], _opt("Host header to accept ('*': any). Default: loopback names when bound to "
                                          "loopback, else no check.", "--allow-host")] = [],  # noqa: B006
    max_body_bytes: Annotated[int, _opt("Largest accepted request body.", "--max-body-bytes")] = 4 * 1024 * 1024,
    request_timeout: Annotated[float, _opt("Seconds one upstream call may take.", "--request-timeout")] = 300.0,
    probe_timeout: Annotated[float, _opt("Seconds to wait for a server/discover answer when probing.", "--probe-timeout")] = 5.0,
    ttl_ms: Annotated[int, _opt("ttlMs stamped on cacheable results of legacy upstreams.", "--ttl-ms")] = 0,
    cache_scope: Annotated[str, _opt("cacheScope stamped on those results: private | public.", "--cache-scope")] = "private",
    state_key: Annotated[str | None, _opt("requestState HMAC key, hex or base64.", "--state-key")] = None,
    state_store: Annotated[str | None, _opt("memory | redis://HOST:PORT/DB shared by all instances (needs --state-key).",
                                            "--state-store", show_default="memory")] = None,
    instance_id: Annotated[str | None, _opt("This instance's name (default: host name + pid).", "--instance-id")] = None,
    advertise_url: Annotated[str | None, _opt("Base URL other instances reach this one at (default: the listen address).",
                                              "--advertise-url")] = None,
    parked_timeout: Annotated[float, _opt("Seconds a call waiting for client input is kept.", "--parked-timeout")] = 600.0,
    session_idle_timeout: Annotated[float, _opt("Seconds before an idle 2025 front session expires.", "--session-idle-timeout")] = 1800.0,
    mrtr_max_rounds: Annotated[int, _opt("2025 front: input_required rounds driven for one call.", "--mrtr-max-rounds")] = 16,
    max_upstream_sessions: Annotated[int | None, _opt("Legacy upstream: sessions (stdio: children) in total.",
                                                      "--max-upstream-sessions", show_default="64")] = None,
    max_sessions_per_identity: Annotated[int | None, _opt("Legacy upstream: sessions one caller identity may hold.",
                                                          "--max-sessions-per-identity", show_default="8")] = None,
    max_parked: Annotated[int | None, _opt("Calls waiting for client input, in total (the oldest is released at the cap).",
                                           "--max-parked", show_default="1024")] = None,
    max_parked_per_identity: Annotated[int | None, _opt("Calls waiting for client input, per caller identity.",
                                                        "--max-parked-per-identity", show_default="64")] = None,
    max_2025_sessions: Annotated[int | None, _opt("2025 front: sessions open at once (503 at the cap).", "--max-2025-sessions",
                                                  show_default="10000")] = None,
    max_2025_sessions_per_principal: Annotated[int | None, _opt("2025 front: sessions per set of credentials (429 at the cap).",
                                                                "--max-2025-sessions-per-principal", show_default="1000")] = None,
    max_listens: Annotated[int | None, _opt("2025 front: upstream subscriptions/listen streams held.", "--max-listens",
                                            show_default="512")] = None,
    max_tasks_per_principal: Annotated[int | None, _opt("Tasks: unfinished tasks per caller identity.", "--max-tasks-per-principal",
                                                        show_default="64")] = None,
    max_tasks: Annotated[int | None, _opt("Tasks: task records this instance holds.", "--max-tasks", show_default="10000")] = None,
    max_task_sessions: Annotated[int | None, _opt("Tasks on a 2025 server: its task sessions (stdio: children).",
                                                  "--max-task-sessions", show_default="64")] = None,
    max_task_sessions_per_principal: Annotated[int | None, _opt("Tasks on a 2025 server: task sessions per caller identity.",
                                                                "--max-task-sessions-per-principal", show_default="8")] = None,
    header_timeout: Annotated[float | None, _opt("Seconds a client has to send a request's headers (slowloris).",
                                                 "--header-timeout", show_default="10")] = None,
    config: Annotated[str | None, _opt("Fleet config (TOML, or a desktop host's mcpServers JSON): serve many upstreams.",
                                       "--config")] = None,
    log_level: LogLevelOpt = "info",
    log_format: LogFormatOpt = None,
    debug: DebugOpt = False,
    version: VersionOpt = False,
) -> None:
    """Run the bridge in front of one upstream (--upstream URL, or a stdio command after `--`), or a fleet (--config).

    Examples: `mcp-bridge serve --stdio -- python server.py`; `mcp-bridge serve --port 8080 --upstream http://127.0.0.1:3000/mcp`.
    """
    command = list(command or [])
    clikit.setup_logging(log_level, log_format or ("json" if config else "text"), debug)
    if listen is not None and (host is not None or port is not None):
        raise CliError("give --listen HOST:PORT or --host/--port, not both", 2)
    explicit = parse_listen(listen) if listen else (host, port) if (host is not None or port is not None) else None
    if config is not None:
        if upstream or command or stdio:
            raise CliError("--config serves the fleet over HTTP: give no --upstream, command or --stdio", 2)
        from mcp_eras.bridge.fleet.serve import serve_fleet

        bind_host, bind_port = explicit if explicit else (None, None)
        serve_fleet(config, bind_host or (DEFAULT_HOST if bind_port is not None else None), bind_port,
                    log_format=log_format or "json", scale_options={
                        "state_store": state_store, "state_key": state_key, "instance_id": instance_id,
                        "advertise_url": advertise_url})
        return
    if bool(upstream) == bool(command):
        raise CliError("give exactly one upstream: --upstream URL, or `-- COMMAND [ARGS]...`", 2)
    if stdio and explicit:
        raise CliError("--stdio serves on stdin/stdout: give no --listen, --host or --port", 2)
    for name, value in (("--upstream-era", upstream_era), ("--front-era", front_era)):
        clikit.check_choice(name, value, ERA_CHOICES)
    clikit.check_choice("--cache-scope", cache_scope, ("private", "public"))
    clikit.check_choice("--upstream-transport", upstream_transport, ("auto", "streamable-http", "sse"))
    if not path.startswith("/"):
        raise CliError(f"--path must start with '/', got {path!r}", 2)
    if upstream:
        check_url(upstream)
        if env_pairs or cwd:
            raise CliError("-e and --cwd apply to a stdio command, not to --upstream URL", 2)
    else:
        check_command(command, cwd)
    settings_kwargs: dict = dict(
        front_era=front_era, upstream_era=upstream_era, allowed_origins=list(allow_origin), max_body_bytes=max_body_bytes,
        request_timeout=request_timeout, probe_timeout=probe_timeout, ttl_ms=ttl_ms, cache_scope=cache_scope,
        parked_timeout=parked_timeout, session_idle_timeout=session_idle_timeout, mrtr_max_rounds=mrtr_max_rounds,
        bridge_version=clikit.version(),
    )
    limits = {"--max-upstream-sessions": ("pool_max_sessions", max_upstream_sessions),
              "--max-sessions-per-identity": ("pool_per_identity", max_sessions_per_identity),
              "--max-parked": ("parked_total", max_parked), "--max-parked-per-identity": ("parked_per_identity", max_parked_per_identity),
              "--max-2025-sessions": ("legacy_sessions_max", max_2025_sessions),
              "--max-2025-sessions-per-principal": ("legacy_sessions_per_principal", max_2025_sessions_per_principal),
              "--max-listens": ("legacy_listens_max", max_listens), "--header-timeout": ("header_timeout", header_timeout),
              "--max-tasks-per-principal": ("tasks_per_principal", max_tasks_per_principal), "--max-tasks": ("tasks_max", max_tasks),
              "--max-task-sessions": ("task_sessions_max", max_task_sessions),
              "--max-task-sessions-per-principal": ("task_sessions_per_principal", max_task_sessions_per_principal)}
    for flag, (field, value) in limits.items():
        if value is not None:
            if value <= 0:
                raise CliError(f"{flag} must be positive, got {value}", 2)
            settings_kwargs[field] = value
    key = _state_key(state_key)
    if key is not None:
        settings_kwargs["state_key"] = key
    _scale_settings(settings_kwargs, state_store or "memory", key, instance_id, advertise_url, bool(stdio))
    settings = Settings(**settings_kwargs)

    from mcp_eras.bridge.layers.tasks import with_tasks
    from mcp_eras.bridge.upstream.factory import Target, make_upstream

    child_vars, inherit = child_env(_pairs(env_pairs, "=", "-e", "KEY=VALUE"), pass_environment)
    target = Target(url=upstream, command=command, headers=_pairs(header, ":", "--header", "'Name: value'"),
                    transport=upstream_transport, env=child_vars, inherit_env=inherit, cwd=cwd)
    up = with_tasks(make_upstream(target, settings), settings)
    if stdio:
        _perf.serving()
        _perf.run(_serve_stdio(up, settings))
        return
    bind_host, bind_port = explicit or (None, None)
    _serve_http(up, target, settings, bind_host or DEFAULT_HOST, DEFAULT_PORT if bind_port is None else bind_port,
                path, list(allow_host))


def _legacy_http_front(up, settings: Settings):  # type: ignore[no-untyped-def]
    if settings.front_era == eras.MODERN:
        return None
    from mcp_eras.bridge.front.legacy import LegacyHttpFront

    return LegacyHttpFront(up, settings)


def _legacy_stdio_factory(settings: Settings):  # type: ignore[no-untyped-def]
    if settings.front_era == eras.MODERN:
        return None
    from mcp_eras.bridge.front.legacy import LegacyStdioSession

    return LegacyStdioSession


async def _serve_stdio(up, settings: Settings) -> None:  # type: ignore[no-untyped-def]
    from mcp_eras.bridge.core import UpstreamError
    from mcp_eras.bridge.front.stdio import serve_stdio

    try:
        await serve_stdio(up, settings, _legacy_stdio_factory(settings))
    except UpstreamError as exc:
        raise CliError(str(exc)) from None


def _scale_settings(kwargs: dict, store: str, key: bytes | None, instance_id: str | None, advertise_url: str | None,
                    stdio: bool) -> None:
    """--state-store / --instance-id / --advertise-url (see mcp_eras.bridge.store); a shared store without a shared
    key is refused with one line and exit status 2."""
    from mcp_eras.bridge.store import is_shared_url

    if store != "memory" and not is_shared_url(store):
        _refuse(f"--state-store wants memory or redis://HOST:PORT/DB, got {store!r}")
    if is_shared_url(store) and key is None:
        _refuse("--state-store redis://... needs --state-key (or MCP_BRIDGE_STATE_KEY) shared by every instance")
    if is_shared_url(store) and stdio:
        _refuse("--state-store redis://... serves HTTP, not --stdio")
    kwargs.update(state_store=store, advertise_url=advertise_url, instance_id=instance_id or f"{socket.gethostname()}-{os.getpid()}")


def _refuse(message: str) -> None:
    print(f"mcp-bridge: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _serve_http(up, target, settings: Settings, host: str, port: int, path: str,  # type: ignore[no-untyped-def]
                allow_host: list[str]) -> None:
    from mcp_eras.bridge.front.http import build_app
    from mcp_eras.bridge.layers.observe import observe

    # One Host rule for every app (mcp_eras.bridge.front.middleware): loopback names always, plus --allow-host.
    settings = settings.model_copy(update={"allowed_hosts": [*settings.allowed_hosts, *allow_host]})
    up, observer = observe(up, target, settings)
    legacy, routes = _legacy_http_front(up, settings), observer.routes()
    if settings.state_store != "memory":  # several instances share state (mcp_eras.bridge.store)
        from mcp_eras.bridge.scaleout.wiring import scale_out

        up, legacy, internal = scale_out(up, legacy, settings, f"http://{host}:{port}")
        routes = [*routes, *internal]
        observer.upstream = up  # /healthz reports the cluster (instance, store, peers) as well
    asgi = build_app(settings, up, legacy, extra_routes=routes, path=path)
    if settings.state_store != "memory":
        asgi.state.front.param_headers = up.param_headers
    if host not in ("127.0.0.1", "::1", "localhost") and not settings.allowed_hosts:
        log.warning("serving on %s: only loopback Host names are accepted; list this bridge's names with --allow-host", host)

    def announce(bound_host: str, bound_port: int) -> None:
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        log.info("mcp-bridge listening on http://%s:%d%s (front %s, upstream %s: %s)", shown, bound_port, path,
                 settings.front_era, settings.upstream_era, target.describe(),
                 extra={"event": "listening", "host": bound_host, "port": bound_port, "path": path})

    clikit.run_asgi(asgi, host, port, announce, settings.header_timeout)


def main(argv: list[str] | None = None, prog: str = clikit.PROG) -> None:
    from mcp_eras.bridge.core import UpstreamError

    sys.exit(clikit.run(app, argv, prog, ordinary=(UpstreamError,)))
