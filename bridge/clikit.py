"""Conventions shared by every ``mcp-bridge`` command (and the ``mcp-eras`` umbrella).

* ``-h``/``--help`` and ``--version`` everywhere; ``--debug``, ``--log-level``, ``--log-format text|json``.
* Every option can also be set from an ``MCP_BRIDGE_*`` environment variable.
* Ordinary failures (bad URL, unreachable upstream, missing command, port in use) are one line on
  stderr, ``mcp-bridge: ...``, exit status 1; usage mistakes exit 2; a traceback only with ``--debug``.
* Ctrl-C is quiet (exit 130); the commands' own shutdown paths reap their children.

No heavy imports here: ``mcp-bridge --version`` must stay instant.
"""

from __future__ import annotations

import errno
import logging
import math
import socket
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

try:  # typer vendors its click from 0.2x on; older ones use the click distribution
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - depends on the typer release
    from click import exceptions as click_exc  # type: ignore[no-redef]

from mcp_eras.bridge.translate import eras

PROG = "mcp-bridge"
DIST = "mcp-eras"
ENV_PREFIX = "MCP_BRIDGE_"
ERA_CHOICES = ("auto", eras.LEGACY, eras.MODERN)
LOG_FORMATS = ("text", "json")
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "MCP_BRIDGE"}
"""-h everywhere; options without an explicit variable read MCP_BRIDGE_<COMMAND>_<OPTION> (probe, verify, reload)."""

log = logging.getLogger("mcp_bridge")


class CliError(Exception):
    """An ordinary failure: printed as one ``mcp-bridge: ...`` line, exit ``code`` (1 unless a usage mistake)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class _State:
    debug: bool = False


STATE = _State()


def env(name: str) -> str:
    """The environment variable of an option: ``MCP_BRIDGE_<NAME>``."""
    return ENV_PREFIX + name.upper().replace("-", "_")


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version(DIST)
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0+unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"{DIST} {version()}")
        raise typer.Exit(0)


def _set_debug(value: bool) -> bool:
    STATE.debug = STATE.debug or bool(value)
    return value


VersionOpt = Annotated[bool, typer.Option("--version", is_eager=True, callback=_show_version, expose_value=True,
                                          allow_from_autoenv=False, help="Print the version and exit.")]
LOGGING = "Logging"
"""The help panel of the logging options (``mcp_eras.bridge.cli_help``)."""
DebugOpt = Annotated[bool, typer.Option("--debug", envvar=env("debug"), callback=_set_debug, rich_help_panel=LOGGING,
                                        help="Debug logging, and tracebacks for errors.")]
LogLevelOpt = Annotated[str, typer.Option(envvar=env("log_level"), rich_help_panel=LOGGING, metavar="LEVEL",
                                          help="debug, info, warning or error.")]
LogFormatOpt = Annotated[str | None, typer.Option(envvar=env("log_format"), show_default="text; json in fleet mode",
                                                  rich_help_panel=LOGGING, metavar="FORMAT",
                                                  help="text, or json: one JSON object per line (on stderr).")]


def setup_logging(level: str, fmt: str | None = "text", debug: bool = False) -> None:
    """Logs go to stderr, as text or one JSON object per line."""
    if fmt not in (None, *LOG_FORMATS):
        raise CliError(f"--log-format must be text or json, got {fmt!r}", 2)
    chosen = logging.DEBUG if debug else getattr(logging, level.upper(), None)
    if not isinstance(chosen, int):
        raise CliError(f"--log-level must be debug, info, warning or error, got {level!r}", 2)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        from mcp_eras.bridge.cli_logs import JsonFormatter

        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(chosen)
    # One line per upstream HTTP request is noise at info level.
    logging.getLogger("httpx").setLevel(max(logging.WARNING, chosen))


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise CliError(f"{option} must be one of {', '.join(choices)}, got {value!r}", 2)


# --- binding -------------------------------------------------------------------------------------


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a one-line CliError (port in use, unknown host, no permission)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        why = "address already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise CliError(f"cannot listen on {host}:{port}: {why}") from None
    sock.set_inheritable(True)
    return sock


def server_config(app: Any, header_timeout: float = 10.0) -> Any:
    """The uvicorn configuration of every HTTP front. Idle keep-alive connections are closed by the header
    deadline (bridge.front.h11_guard, armed after each response), not by uvicorn's own 5 s: that equals httpx's
    default idle expiry, so under load a client reused a connection the bridge was closing at that moment (a
    ReadError on a POST nobody may retry). A server must idle out after its clients.
    Proxy headers off: nothing here reads the peer address, and a forwarded scheme or client must not be
    trusted by default; no Server header (it only names the software to a scanner). An app that offers
    ``state.fast_post`` gets its MCP endpoint's shortcut (bridge.front.fast_post) under httptools."""
    import uvicorn

    from mcp_eras.bridge import _perf
    from mcp_eras.bridge.front.h11_guard import header_timeout_protocol

    state = getattr(app, "state", None)
    fast = getattr(state, "fast_post", None)
    cap = getattr(state, "max_body_bytes", None)  # the app's body cap, for declared chunk sizes (bridge.front.strict_http)
    return uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5,
                          timeout_keep_alive=max(5, math.ceil(header_timeout)) + 1,
                          http=header_timeout_protocol(header_timeout, fast=fast, max_body_bytes=cap), loop=_perf.loop_name(),
                          proxy_headers=False, server_header=False)


def run_asgi(app: Any, host: str, port: int, announce: Callable[[str, int], None], header_timeout: float = 10.0) -> None:
    """Bind first, then say "listening" (``announce``), then serve until SIGINT/SIGTERM (uvicorn
    runs the app's lifespan shutdown, which stops the upstreams and their children). A request's headers
    must arrive within ``header_timeout`` seconds (bridge.front.h11_guard)."""
    import uvicorn

    from mcp_eras.bridge import _perf

    sock = bind(host, port)
    announce(host, sock.getsockname()[1])
    try:
        server = _draining(uvicorn.Server)(server_config(app, header_timeout))
        _perf.serving()
        server.run(sockets=[sock])
    finally:
        sock.close()


def _draining(base: Any) -> Any:
    class DrainingServer(base):  # type: ignore[misc, valid-type]
        """uvicorn, but before it waits for the open responses the app ends its long-lived ones (``app.state.drain``):
        a listen stream gets its completion result instead of being cut after the grace period."""

        async def shutdown(self, sockets: Any = None) -> None:
            drain = getattr(getattr(self.config.app, "state", None), "drain", None)
            if drain is not None:
                drain()
            await super().shutdown(sockets)

    return DrainingServer


# --- running a typer app with one-line errors ----------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def run(app: typer.Typer, argv: list[str] | None, prog: str = PROG,
        ordinary: tuple[type[BaseException], ...] = ()) -> int:
    """Run ``app``; returns the exit status. ``ordinary`` exception types print as one line (exit 1)."""
    args = list(sys.argv[1:] if argv is None else argv)
    STATE.debug = "--debug" in args or _truthy_env(env("debug"))
    try:
        result = app(args=args, prog_name=prog, standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except click_exc.UsageError as exc:
        message = _one_line(exc.format_message())
        if message:  # (no arguments at all: the help was printed already)
            hint = f" (see '{exc.ctx.command_path} -h')" if exc.ctx is not None else ""
            _say(prog, message + hint)
        return 2
    except click_exc.ClickException as exc:
        _say(prog, _one_line(exc.format_message()))
        return exc.exit_code
    except (KeyboardInterrupt, typer.Abort):
        return 130
    except CliError as exc:
        _debug_traceback()
        _say(prog, str(exc))
        return exc.code
    except ordinary as exc:
        _debug_traceback()
        _say(prog, _one_line(str(exc) or exc.__class__.__name__))
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback with --debug
        if STATE.debug:
            raise
        _say(prog, f"internal error: {exc.__class__.__name__}: {_one_line(str(exc))} (run with --debug for the traceback)")
        return 1
    return result if isinstance(result, int) else 0


def _truthy_env(name: str) -> bool:
    import os

    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _debug_traceback() -> None:
    if STATE.debug:
        traceback.print_exc(file=sys.stderr)


def _say(prog: str, message: str) -> None:
    sys.stderr.write(f"{prog}: {message}\n")
    sys.stderr.flush()
