"""Values of the ``serve`` options, checked: listen address, requestState key, ``-e``/``--header`` pairs,
upstream URL and command, the stdio child's environment. Each failure is a one-line ``CliError``.

Below ``mcp_eras.bridge.cli`` so that fleet mode (``fleet.scale``) reads a ``state_key`` the same way
without importing the command line.
"""

from __future__ import annotations

import base64
import os
import shutil
from urllib.parse import urlsplit

from mcp_eras.bridge.auth.runner import OAuthOptions
from mcp_eras.bridge.clikit import CliError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
SAFE_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "APPDATA")
"""What a stdio child sees of the bridge's environment with --no-pass-environment (besides -e)."""


def parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep:
        host, port = DEFAULT_HOST, listen
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise CliError(f"--listen wants HOST:PORT, got {listen!r}", 2)
    return host, int(port)


def state_key(value: str | None) -> bytes | None:
    """The requestState HMAC key from hex or base64 (None when not given); at least 16 bytes."""
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


def pairs(values: list[str], sep: str, option: str, shape: str) -> dict[str, str]:
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


def child_env(given: dict[str, str], pass_environment: bool) -> tuple[dict[str, str], bool]:
    """(env, inherit) for the stdio child: all of ours plus ``-e`` (default), or a safe few plus ``-e``."""
    if pass_environment:
        return given, True
    base = {k: os.environ[k] for k in SAFE_ENV if k in os.environ}
    return base | given, False


LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def sign_in_options(upstream: str | None, *, stdio: bool, enabled: bool, shared_login: bool, bind_host: str | None,
                    client_id: str | None, client_secret: str | None, client_metadata_url: str | None, scope: str | None,
                    redirect_port: int, token_store: str | None) -> OAuthOptions | None:
    """The ``--oauth-*`` options as the sign-in of an HTTP upstream, or None when the bridge signs in for nobody.

    On ``--stdio`` the bridge serves one local user and signs in as that user. On an HTTP front every caller would use
    the one sign-in (the bridge a confused deputy): only with ``--oauth-shared-login`` and a loopback bind."""
    if upstream is None or not enabled:
        return None
    if not stdio and not shared_login:
        return None
    if not stdio and bind_host is not None and bind_host not in LOOPBACK_HOSTS:
        raise CliError(f"--oauth-shared-login signs in once for every caller: bind to loopback, not {bind_host}", 2)
    if client_secret and not client_id:
        raise CliError("--oauth-client-secret needs --oauth-client-id", 2)
    if client_metadata_url and urlsplit(client_metadata_url).scheme != "https":
        raise CliError(f"--oauth-client-metadata-url must be an https URL, got {client_metadata_url!r}", 2)
    return OAuthOptions(client_id=client_id, client_secret=client_secret, client_metadata_url=client_metadata_url, scope=scope,
                        redirect_port=redirect_port, token_store=token_store)
