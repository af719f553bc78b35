"""mcp-bridge command line (typer): ``serve`` here; ``probe``, ``verify``, ``reload``, ``canary`` from the fleet sub-app.

Conventions (``mcp_eras.bridge.clikit``): ``-h``/``--version``/``--debug``/``--log-format`` everywhere, every
option also as an ``MCP_BRIDGE_*`` environment variable (``--help-env`` lists them in full), one-line errors.
The help layout (option groups, metavars) is ``mcp_eras.bridge.cli_help``; option values are checked in
``mcp_eras.bridge.cli_values``.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from typing import Annotated
from urllib.parse import urlsplit

import typer

from mcp_eras.bridge import _perf, cli_help, cli_values, clikit
from mcp_eras.bridge.cli_help import HelpEnvOpt
from mcp_eras.bridge.cli_values import DEFAULT_HOST, DEFAULT_PORT, check_command, check_url, child_env, pairs, parse_listen
from mcp_eras.bridge.clikit import ERA_CHOICES, CliError, DebugOpt, LogFormatOpt, LogLevelOpt, VersionOpt, env
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.fleet.cli import app as fleet_app
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.gateway.tokens import MAX_SKEW

app = typer.Typer(no_args_is_help=True, add_completion=True, context_settings=clikit.CONTEXT_SETTINGS, cls=cli_help.Group,
                  help="Translate MCP between 2025-11-25 and 2026-07-28, both ways.")
app.add_typer(fleet_app)

log = logging.getLogger("mcp_bridge")

__all__ = ["ERA_CHOICES", "app", "main"]

FRONT, UPSTREAM, SIGN_IN, CHILD, LIMITS, SCALE = ("Front", "Upstream", "Upstream sign-in (OAuth)", "Upstream as a stdio command",
                                                 "Limits", "Scale-out")
FRONT_AUTH = "Front sign-in (resource server)"
TELEMETRY = "Telemetry"
"""The groups of ``serve -h`` (typer help panels; logging options are in ``clikit.LOGGING``)."""


def _opt(help_: str, *names: str, panel: str, metavar: str | None = None, **kw: object) -> typer.models.OptionInfo:
    """An option of ``panel`` whose environment variable is MCP_BRIDGE_<first long name>."""
    long = next((n for n in names if n.startswith("--")), None)
    key = (long or "").lstrip("-").split("/")[0]
    return typer.Option(*names, envvar=env(key) if key else None, help=help_, rich_help_panel=panel,  # type: ignore[arg-type]
                        metavar=metavar, **kw)


LIMIT_FIELDS = {
    "--header-timeout": "header_timeout", "--max-upstream-sessions": "pool_max_sessions",
    "--max-sessions-per-identity": "pool_per_identity", "--max-parked": "parked_total",
    "--max-parked-per-identity": "parked_per_identity", "--max-2025-sessions": "legacy_sessions_max",
    "--max-2025-sessions-per-principal": "legacy_sessions_per_principal", "--max-listens": "legacy_listens_max",
    "--max-tasks-per-principal": "tasks_per_principal", "--max-tasks": "tasks_max", "--max-task-sessions": "task_sessions_max",
    "--max-task-sessions-per-principal": "task_sessions_per_principal",
}
"""The caps left to their ``Settings`` field unless given (a value given must be positive): option -> field."""


def _limit(help_: str, name: str, metavar: str = "N") -> typer.models.OptionInfo:
    """The option of a cap in ``LIMIT_FIELDS``; its default is the field's."""
    default = Settings.model_fields[LIMIT_FIELDS[name]].default
    return _opt(help_, name, panel=LIMITS, metavar=metavar, show_default=str(default))


@app.callback()
def _root(version: VersionOpt = False) -> None:
    """mcp-bridge: put a client of either MCP era in front of a server of either era.

    Run `mcp-bridge serve -h` to start; `mcp-eras bridge ...` reaches the same tool.
    """


@app.command(context_settings={"ignore_unknown_options": False}, cls=cli_help.Command)
def serve(
    ctx: typer.Context,
    command: Annotated[list[str] | None, typer.Argument(metavar="-- COMMAND [ARGS]", show_default=False,
                                                        help="The upstream as a stdio command, after `--`.")] = None,
    stdio: Annotated[bool, _opt("Serve one client on stdin/stdout (desktop hosts) instead of HTTP.", "--stdio", panel=FRONT)] = False,
    host: Annotated[str | None, _opt("Address to serve HTTP on.", "--host", panel=FRONT, metavar="HOST",
                                     show_default=DEFAULT_HOST)] = None,
    port: Annotated[int | None, _opt("Port to serve HTTP on (0: any free port).", "--port", "-p", panel=FRONT, metavar="PORT",
                                     show_default=str(DEFAULT_PORT), min=0, max=65535)] = None,
    listen: Annotated[str | None, _opt("The same as --host and --port.", "--listen", panel=FRONT, metavar="HOST:PORT")] = None,
    path: Annotated[str, _opt("The MCP endpoint's path.", "--path", panel=FRONT, metavar="PATH")] = "/mcp",
    front_era: Annotated[str, _opt("Client era: auto (both), 2025-11-25 or 2026-07-28.", "--front-era", panel=FRONT,
                                   metavar="ERA")] = "auto",
    allow_origin: Annotated[list[str] | None, _opt("Browser Origin accepted besides loopback ones (repeatable).", "--allow-origin",
                                                   panel=FRONT, metavar="ORIGIN")] = None,
    allow_host: Annotated[list[str] | None, _opt("Host header accepted (repeatable; '*': any). Default: loopback names when bound to "
                                                 "loopback, else no check.", "--allow-host", panel=FRONT, metavar="HOST")] = None,
    auth_issuer: Annotated[str | None, _opt("Require access tokens of this authorization server.", "--auth-issuer",
                                            panel=FRONT_AUTH, metavar="URL")] = None,
    auth_audience: Annotated[str | None, _opt("This endpoint's public URL (the tokens' audience).", "--auth-audience",
                                              panel=FRONT_AUTH, metavar="URI")] = None,
    auth_required_scope: Annotated[list[str] | None, _opt("A scope every token must grant (repeatable).", "--auth-required-scope",
                                                          panel=FRONT_AUTH, metavar="SCOPE")] = None,
    auth_introspection_url: Annotated[str | None, _opt("RFC 7662 endpoint for opaque tokens.", "--auth-introspection-url",
                                                       panel=FRONT_AUTH, metavar="URL")] = None,
    auth_clock_skew: Annotated[int | None, _opt("Leeway on a token's exp/nbf, 0 to 300 (default: 60).", "--auth-clock-skew",
                                                panel=FRONT_AUTH, metavar="SECONDS")] = None,
    upstream: Annotated[str | None, _opt("A Streamable HTTP or HTTP+SSE server, instead of a command.", "--upstream",
                                         panel=UPSTREAM, metavar="URL")] = None,
    header: Annotated[list[str] | None, _opt("Extra header sent to an HTTP upstream (repeatable).", "--header", "-H",
                                             panel=UPSTREAM, metavar="'NAME: VALUE'")] = None,
    upstream_era: Annotated[str, _opt("Server era: auto (probed), 2025-11-25 or 2026-07-28.", "--upstream-era", panel=UPSTREAM,
                                      metavar="ERA")] = "auto",
    upstream_transport: Annotated[str, _opt("For a URL: auto, streamable-http or sse.", "--upstream-transport",
                                            panel=UPSTREAM, metavar="KIND")] = "auto",
    request_timeout: Annotated[float, _opt("How long one upstream call may take.", "--request-timeout", panel=UPSTREAM,
                                           metavar="SECONDS")] = 300.0,
    probe_timeout: Annotated[float, _opt("How long the era probe waits for its answer.", "--probe-timeout",
                                         panel=UPSTREAM, metavar="SECONDS")] = 5.0,
    ttl_ms: Annotated[int, _opt("ttlMs stamped on cacheable results of a 2025 server.", "--ttl-ms", panel=UPSTREAM,
                                metavar="MS")] = 0,
    cache_scope: Annotated[str, _opt("cacheScope stamped on them: private or public.", "--cache-scope", panel=UPSTREAM,
                                     metavar="SCOPE")] = "private",
    config: Annotated[str | None, _opt("Serve a fleet: TOML, or a desktop host's mcpServers JSON.", "--config",
                                       panel=UPSTREAM, metavar="FILE")] = None,
    oauth: Annotated[bool, _opt("Sign in to an HTTP upstream that asks for OAuth (the --stdio front: always; HTTP: with "
                                "--oauth-shared-login).", "--oauth/--no-oauth", panel=SIGN_IN)] = True,
    oauth_client_id: Annotated[str | None, _opt("A client ID at the upstream's authorization server.",
                                                "--oauth-client-id", panel=SIGN_IN, metavar="ID")] = None,
    oauth_client_secret: Annotated[str | None, _opt("Its secret (prefer the environment variable).", "--oauth-client-secret",
                                                    panel=SIGN_IN, metavar="SECRET", show_default=False)] = None,
    oauth_client_metadata_url: Annotated[str | None, _opt("An HTTPS URL of this client's ID metadata document.",
                                                          "--oauth-client-metadata-url", panel=SIGN_IN, metavar="URL")] = None,
    oauth_scope: Annotated[str | None, _opt("Scopes to ask for instead of the server's.", "--oauth-scope", panel=SIGN_IN,
                                            metavar="SCOPES")] = None,
    oauth_redirect_port: Annotated[int, _opt("Loopback port of the sign-in redirect (0: any free port).", "--oauth-redirect-port",
                                             panel=SIGN_IN, metavar="PORT", min=0, max=65535)] = 0,
    oauth_token_store: Annotated[str | None, _opt("Where tokens are kept (0700 folder, 0600 files).", "--oauth-token-store",
                                                  panel=SIGN_IN, metavar="DIR", show_default="user config dir")] = None,
    upstream_auth: Annotated[str, _opt("The bridge's own upstream token: none, client_credentials, token_exchange "
                                       "(--oauth-client-*).", "--upstream-auth", panel=SIGN_IN,
                                       metavar="MODE")] = "none",
    oauth_shared_login: Annotated[bool, _opt("Loopback HTTP front: one sign-in serves every caller.",
                                             "--oauth-shared-login", panel=SIGN_IN)] = False,
    env_pairs: Annotated[list[str] | None, _opt("A variable of the child's environment (repeatable).", "--env", "-e", panel=CHILD,
                                                metavar="KEY=VALUE")] = None,
    cwd: Annotated[str | None, _opt("The child's working directory.", "--cwd", panel=CHILD, metavar="DIR")] = None,
    pass_environment: Annotated[bool, _opt("The child gets the bridge's whole environment, or only PATH, HOME, USER, LANG, ... and -e.",
                                           "--pass-environment/--no-pass-environment", panel=CHILD)] = True,
    share_child: Annotated[bool, _opt("All callers share one child (for a server that must run once).", "--share-child",
                                      panel=CHILD)] = False,
    max_body_bytes: Annotated[int, _opt("Largest request body accepted.", "--max-body-bytes", panel=LIMITS,
                                        metavar="BYTES")] = 4 * 1024 * 1024,
    header_timeout: Annotated[float | None, _limit("How long a client may take to send a request's headers.",
                                                   "--header-timeout", "SECONDS")] = None,
    parked_timeout: Annotated[float, _opt("How long a call awaiting client input is kept.", "--parked-timeout", panel=LIMITS,
                                          metavar="SECONDS")] = 600.0,
    session_idle_timeout: Annotated[float, _opt("How long an idle 2025 client session lives.", "--session-idle-timeout",
                                                panel=LIMITS, metavar="SECONDS")] = 1800.0,
    mrtr_max_rounds: Annotated[int, _opt("input_required rounds driven for one 2025 client call.", "--mrtr-max-rounds",
                                         panel=LIMITS, metavar="N")] = 16,
    max_upstream_sessions: Annotated[int | None, _limit("2025 server: its sessions (stdio: children) in all.",
                                                        "--max-upstream-sessions")] = None,
    max_sessions_per_identity: Annotated[int | None, _limit("2025 server: sessions one caller identity may hold.",
                                                            "--max-sessions-per-identity")] = None,
    max_parked: Annotated[int | None, _limit("Calls awaiting client input, in all (then the oldest is released).",
                                             "--max-parked")] = None,
    max_parked_per_identity: Annotated[int | None, _limit("Calls awaiting client input, per caller identity.",
                                                          "--max-parked-per-identity")] = None,
    max_2025_sessions: Annotated[int | None, _limit("2025 clients: sessions open at once (then 503).",
                                                    "--max-2025-sessions")] = None,
    max_2025_sessions_per_principal: Annotated[int | None, _limit("2025 clients: sessions per set of credentials (then 429).",
                                                                  "--max-2025-sessions-per-principal")] = None,
    max_listens: Annotated[int | None, _limit("2025 clients: upstream listen streams held.",
                                              "--max-listens")] = None,
    max_tasks_per_principal: Annotated[int | None, _limit("Tasks: unfinished ones per caller identity.",
                                                          "--max-tasks-per-principal")] = None,
    max_tasks: Annotated[int | None, _limit("Tasks: records this instance holds.", "--max-tasks")] = None,
    max_task_sessions: Annotated[int | None, _limit("Tasks on a 2025 server: its task sessions (stdio: children) in all.",
                                                    "--max-task-sessions")] = None,
    max_task_sessions_per_principal: Annotated[int | None, _limit("Tasks on a 2025 server: task sessions per caller identity.",
                                                                  "--max-task-sessions-per-principal")] = None,
    rate: Annotated[str | None, _opt("Requests per caller: N/s, N/min or N/h (over it: 429).", "--rate",
                                     panel=LIMITS, metavar="N/UNIT")] = None,
    burst: Annotated[int | None, _opt("Requests at once under --rate (default: 1 s worth).", "--burst",
                                      panel=LIMITS, metavar="N")] = None,
    state_store: Annotated[str | None, _opt("memory, or redis://HOST:PORT/DB shared by every instance (needs --state-key).",
                                            "--state-store", panel=SCALE, metavar="URL", show_default="memory")] = None,
    state_key: Annotated[str | None, _opt("requestState HMAC key, hex or base64.", "--state-key", panel=SCALE,
                                          metavar="KEY")] = None,
    instance_id: Annotated[str | None, _opt("This instance's name (default: host name + pid).", "--instance-id", panel=SCALE,
                                            metavar="NAME")] = None,
    advertise_url: Annotated[str | None, _opt("Where other instances reach this one (default: the listen address).",
                                              "--advertise-url", panel=SCALE, metavar="URL")] = None,
    otel: Annotated[bool, _opt("OpenTelemetry traces and metrics over OTLP/HTTP (needs mcp-eras[otel]; set up by the OTEL_* "
                               "variables; also MCP_ERAS_OTEL=1).", "--otel", panel=TELEMETRY)] = False,
    log_level: LogLevelOpt = "info",
    log_format: LogFormatOpt = None,
    debug: DebugOpt = False,
    version: VersionOpt = False,
    help_env: HelpEnvOpt = False,
) -> None:
    """Serve one upstream (--upstream URL, or a stdio command after `--`), or a fleet (--config).

    e.g. `serve --stdio -- python server.py`, `serve -p 8080 --upstream http://127.0.0.1:3000/mcp`.
    """
    command = list(command or [])
    clikit.setup_logging(log_level, log_format or ("json" if config else "text"), debug)
    if listen is not None and (host is not None or port is not None):
        raise CliError("give --listen HOST:PORT or --host/--port, not both", 2)
    explicit = parse_listen(listen) if listen else (host, port) if (host is not None or port is not None) else None
    if config is not None:
        if upstream or command or stdio:
            raise CliError("--config serves the fleet over HTTP: give no --upstream, command or --stdio", 2)
        if auth_issuer or auth_audience or auth_required_scope or auth_introspection_url or auth_clock_skew is not None:
            raise CliError("a fleet's sign-in is its config's [auth] table, not --auth-* options", 2)
        if rate is not None or burst is not None:
            raise CliError("a fleet's rate limits are per server in its config (rate, burst), not --rate/--burst", 2)
        from mcp_eras.bridge import telemetry
        from mcp_eras.bridge.fleet.serve import serve_fleet

        telemetry.enable(otel, instance=instance_id)  # (each server's calls: mcp_eras.bridge.layers.managed)

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
        **_front_auth(auth_issuer, auth_audience, auth_required_scope, auth_introspection_url, stdio=bool(stdio),
                      clock_skew=auth_clock_skew),
        front_era=front_era, upstream_era=upstream_era, allowed_origins=list(allow_origin or []), max_body_bytes=max_body_bytes,
        request_timeout=request_timeout, probe_timeout=probe_timeout, ttl_ms=ttl_ms, cache_scope=cache_scope,
        parked_timeout=parked_timeout, session_idle_timeout=session_idle_timeout, mrtr_max_rounds=mrtr_max_rounds,
        bridge_version=clikit.version(), share_child=share_child,
    )
    for flag, field in LIMIT_FIELDS.items():
        value = ctx.params[flag.lstrip("-").replace("-", "_")]
        if value is not None:
            if value <= 0:
                raise CliError(f"{flag} must be positive, got {value}", 2)
            settings_kwargs[field] = value
    key = cli_values.state_key(state_key)
    if key is not None:
        settings_kwargs["state_key"] = key
    _scale_settings(settings_kwargs, state_store or "memory", key, instance_id, advertise_url, bool(stdio))
    settings = Settings(**settings_kwargs)
    rate_limit = _rate_limit(rate, burst, bool(stdio))

    from mcp_eras.bridge.layers.tasks import with_tasks
    from mcp_eras.bridge.upstream.factory import Target, make_upstream

    child_vars, inherit = child_env(pairs(env_pairs or [], "=", "-e", "KEY=VALUE"), pass_environment)
    headers = pairs(header or [], ":", "--header", "'Name: value'")
    sign_in = cli_values.sign_in_options(
        upstream, stdio=bool(stdio), enabled=oauth, shared_login=oauth_shared_login, bind_host=(explicit or (None, None))[0],
        client_id=oauth_client_id, client_secret=oauth_client_secret, client_metadata_url=oauth_client_metadata_url,
        scope=oauth_scope, redirect_port=oauth_redirect_port, token_store=oauth_token_store)
    credentials = _upstream_credentials(upstream_auth, upstream, oauth_client_id, oauth_client_secret, oauth_scope, settings)
    target = Target(url=upstream, command=command, headers=headers, transport=upstream_transport, env=child_vars,
                    inherit_env=inherit, cwd=cwd, auth=credentials or _upstream_auth(upstream, sign_in, headers))
    up = with_tasks(make_upstream(target, settings), settings)
    if settings.auth_issuer or credentials is not None:  # the caller for the upstream credential, and the audit line
        from mcp_eras.bridge.gateway.audit import AuditLog
        from mcp_eras.bridge.layers.policy import GatewayUpstream

        up = GatewayUpstream(up, "upstream", audit=AuditLog() if settings.auth_issuer else None)
    if stdio:
        _perf.serving()
        _perf.run(_serve_stdio(_traced_stdio(up, otel), settings))
        return
    bind_host, bind_port = explicit or (None, None)
    _serve_http(up, target, settings, bind_host or DEFAULT_HOST, DEFAULT_PORT if bind_port is None else bind_port,
                path, list(allow_host or []), rate_limit, otel)


def _front_auth(issuer: str | None, audience: str | None, scopes: list[str] | None, introspection_url: str | None,
                stdio: bool, clock_skew: int | None = None) -> dict:
    """The --auth-* options as ``Settings`` fields (the HTTP front as an OAuth resource server; mcp_eras.bridge.gateway)."""
    if not issuer:
        if audience or scopes or introspection_url or clock_skew is not None:
            raise CliError("--auth-audience, --auth-required-scope, --auth-introspection-url and --auth-clock-skew need "
                           "--auth-issuer", 2)
        return {}
    if clock_skew is not None and not 0 <= clock_skew <= MAX_SKEW:  # (the bound the fleet's [auth] clock_skew has)
        raise CliError(f"--auth-clock-skew must be 0 to {MAX_SKEW} seconds, got {clock_skew}", 2)
    if stdio:
        raise CliError("--auth-issuer protects an HTTP front, not --stdio", 2)
    if not audience:
        raise CliError("--auth-issuer needs --auth-audience: this endpoint's public URL, the audience of its tokens", 2)
    for name, url in (("--auth-issuer", issuer), ("--auth-audience", audience), ("--auth-introspection-url", introspection_url)):
        if url is not None and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname or urlsplit(url).fragment):
            raise CliError(f"{name} wants an absolute http(s) URL without a fragment, got {url!r}", 2)
    return {"auth_issuer": issuer, "auth_audience": audience, "auth_required_scopes": list(scopes or []),
            "auth_introspection_url": introspection_url, **({"auth_clock_skew": clock_skew} if clock_skew is not None else {})}


def _upstream_credentials(mode: str, upstream: str | None, client_id: str | None, secret: str | None, scope: str | None,
                          settings: Settings):  # type: ignore[no-untyped-def]
    """--upstream-auth as the upstream's ``httpx.Auth`` (``mcp_eras.bridge.gateway.upstream_auth``), or None for none."""
    clikit.check_choice("--upstream-auth", mode, ("none", "client_credentials", "token_exchange"))
    if mode == "none":
        return None
    if upstream is None:
        raise CliError("--upstream-auth obtains a token for an HTTP upstream (--upstream URL), not a stdio command", 2)
    if not client_id:
        raise CliError(f"--upstream-auth {mode} needs --oauth-client-id (the bridge's client at the upstream's authorization server)",
                       2)
    if mode == "token_exchange" and not settings.auth_issuer:
        raise CliError("--upstream-auth token_exchange exchanges the caller's validated token: it needs --auth-issuer", 2)
    from mcp_eras.bridge.gateway.upstream_auth import UpstreamCredentials
    from mcp_eras.bridge.translate.gateway.upstream_auth import UpstreamAuth

    return UpstreamCredentials(UpstreamAuth(mode, client_id=client_id, client_secret=secret, scope=scope), upstream)


def _upstream_auth(upstream: str | None, options, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    """The sign-in of an HTTP upstream (``mcp_eras.bridge.auth``), or None. An ``Authorization`` among the operator's
    ``-H`` headers is sent as given; a caller's never is."""
    if upstream is None or options is None:
        return None
    from mcp_eras.bridge.auth import build_auth

    return build_auth(upstream, options, operator_authorization=any(k.lower() == "authorization" for k in headers))


def _legacy_http_front(up, settings: Settings):  # type: ignore[no-untyped-def]
    if settings.front_era == eras.MODERN:
        return None
    from mcp_eras.bridge.front.legacy import LegacyHttpFront

    return LegacyHttpFront(up, settings)


def _traced_stdio(up, otel: bool):  # type: ignore[no-untyped-def]
    """The --stdio front's upstream, observed for OpenTelemetry when it is on (``network.transport`` pipe)."""
    from mcp_eras.bridge import telemetry

    if telemetry.enable(otel, transport="pipe") is None:
        return up
    from mcp_eras.bridge.fleet.metrics import Metrics
    from mcp_eras.bridge.layers.observe import ObservedUpstream

    return ObservedUpstream(up, Metrics())


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


def _rate_limit(rate: str | None, burst: int | None, stdio: bool):  # type: ignore[no-untyped-def]
    """--rate/--burst as a limit (``mcp_eras.bridge.translate.gateway.ratelimit``), or None."""
    from mcp_eras.bridge.translate.gateway.ratelimit import limit_of

    if stdio and (rate is not None or burst is not None):
        raise CliError("--rate limits the callers of an HTTP front, not --stdio", 2)
    try:
        return limit_of(rate, burst)
    except ValueError as exc:
        raise CliError(f"--rate/--burst: {exc}", 2) from None


def _serve_http(up, target, settings: Settings, host: str, port: int, path: str,  # type: ignore[no-untyped-def]
                allow_host: list[str], rate_limit=None, otel: bool = False) -> None:
    from mcp_eras.bridge import telemetry
    from mcp_eras.bridge.front.http import build_app
    from mcp_eras.bridge.layers.observe import observe
    from mcp_eras.bridge.layers.ratelimit import rate_limited

    # One Host rule for every app (mcp_eras.bridge.front.middleware): loopback names always, plus --allow-host.
    settings = settings.model_copy(update={"allowed_hosts": [*settings.allowed_hosts, *allow_host]})
    telemetry.enable(otel, instance=settings.instance_id)  # before ``observe``: its call is the traced one when on
    up, observer = observe(up, target, settings)
    up = rate_limited(up, rate_limit, observer.metrics, state_store=settings.state_store,
                      request_timeout=settings.request_timeout)  # before scale_out: its forwarded retries are exempt
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
