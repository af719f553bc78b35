"""The fleet's admin token and the client side of its admin endpoints (``mcp-bridge reload`` and
``mcp-bridge canary NAME --weight W``).

Token, in order: ``$MCP_BRIDGE_ADMIN_TOKEN``, ``[bridge] admin_token``, else generated when the fleet
starts and written (mode 0600) to ``[bridge] admin_token_file`` or the config path + ``.admin-token``;
clients read the same places. Without a token the admin endpoints refuse everything.
"""

from __future__ import annotations

import logging
import os
import secrets
from http import HTTPStatus
from pathlib import Path
from typing import Any

from mcp_eras.bridge.fleet import config as fc

log = logging.getLogger("mcp_bridge.fleet")

ENV = "MCP_BRIDGE_ADMIN_TOKEN"
DEFAULT_URL = "http://127.0.0.1:8808"


def token_file(config_path: str | os.PathLike[str], defaults: fc.Defaults) -> Path:
    if defaults.admin_token_file:
        path = Path(defaults.admin_token_file)
        return path if path.is_absolute() else Path(config_path).parent / path
    return Path(f"{config_path}.admin-token")


def configured_token(defaults: fc.Defaults, environ: dict[str, str] | None = None) -> str | None:
    environ = dict(os.environ) if environ is None else environ
    return environ.get(ENV) or defaults.admin_token or None


def write_token(path: Path, token: str) -> None:
    """Write ``token`` readable by the owner only (created 0600; an existing file is narrowed first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, token.encode() + b"\n")
    finally:
        os.close(fd)


def server_token(config_path: str | os.PathLike[str], defaults: fc.Defaults, current: str | None) -> str | None:
    """The token a starting (or reloading) fleet accepts; None (admin closed) if it cannot be stored."""
    token = configured_token(defaults)
    if token:
        return token
    if current:
        return current
    token = secrets.token_urlsafe(32)
    path = token_file(config_path, defaults)
    try:
        write_token(path, token)
    except OSError as exc:
        log.error("admin endpoints disabled: cannot write the admin token file %s: %s", path, exc,
                  extra={"event": "admin_token_unwritable"})
        return None
    log.info("admin token written to %s", path, extra={"event": "admin_token", "path": str(path)})
    return token


def client_token(config_path: str | None, explicit: str | None = None) -> str | None:
    """What a CLI command sends: --token, else the environment, else the config's token or token file."""
    if explicit:
        return explicit
    if os.environ.get(ENV):
        return os.environ[ENV]
    if not config_path:
        return None
    defaults = fc.load(config_path).bridge
    if defaults.admin_token:
        return defaults.admin_token
    try:
        return token_file(config_path, defaults).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def base_url(url: str | None, config_path: str | None) -> str:
    if url:
        return url.rstrip("/")
    if config_path:
        listen = fc.load(config_path).bridge.listen
        if listen:
            return f"http://{listen}"
    return DEFAULT_URL


def headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def post(url: str, path: str, token: str | None, payload: dict[str, Any] | None = None,
         timeout: float = 60.0) -> tuple[int, dict[str, Any]]:
    """POST to an admin endpoint; (HTTP status, JSON body). Raises ``httpx.HTTPError`` when unreachable."""
    import httpx

    resp = httpx.post(url.rstrip("/") + path, json=payload, headers=headers(token), timeout=timeout)
    try:
        body = resp.json()
    except ValueError:
        body = {"ok": False, "error": resp.text}
    if not isinstance(body, dict):
        body = {"ok": False, "error": str(body)}
    return resp.status_code, body


def set_canary_weight(name: str, weight: float, url: str | None = None, config_path: str | None = None,
                      token: str | None = None) -> tuple[int, dict[str, Any]]:
    """``mcp-bridge canary NAME --weight W``: through ``POST /admin/canary`` of the running fleet."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError("--weight must be between 0 and 1")
    return post(base_url(url, config_path), "/admin/canary", client_token(config_path, token), {"server": name, "weight": weight})


def canary_command(name: str, weight: float, url: str | None, config_path: str | None, token: str | None) -> tuple[int, str]:
    """The ``canary`` CLI command: (exit status, text to print: JSON on success, a message on failure)."""
    import json

    import httpx

    try:
        status, body = set_canary_weight(name, weight, url, config_path, token)
    except (ValueError, fc.ConfigError) as exc:
        return 2, f"mcp-bridge: {exc}"
    except httpx.HTTPError as exc:
        return 1, f"mcp-bridge: cannot reach the fleet: {exc}"
    if status != HTTPStatus.OK or not body.get("ok"):
        return 1, f"mcp-bridge: canary change refused ({status}): {body.get('error')}"
    return 0, json.dumps(body, indent=2)


def reload_headers(config_path: str | None) -> dict[str, str]:
    """Headers for ``mcp-bridge reload``: the admin token when one can be found."""
    try:
        return headers(client_token(config_path))
    except fc.ConfigError:
        return headers(os.environ.get(ENV))
