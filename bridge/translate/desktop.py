"""Desktop hosts' MCP config files, read as they are (pure: no I/O).

Claude Desktop (``claude_desktop_config.json``), Cursor (``.cursor/mcp.json``), Cline
(``cline_mcp_settings.json``) and Windsurf (``mcp_config.json``) keep servers under ``mcpServers``;
VS Code (``.vscode/mcp.json``) under ``servers``. Each host adds keys of its own (``globalShortcut``,
``autoApprove``, ``alwaysAllow``, ``timeout``, ``inputs``, ...): the bridge ignores those with one
warning per key, honours ``command``/``args``/``env``/``cwd``/``url``/``headers``/``type``/``transport``/
``disabled``, and reads the hosts' spellings of the same things (Windsurf's ``serverUrl``, Cline's
``transportType``). An unknown key that looks like a typo of a bridge key (``argz``) stays an error.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from typing import Any

ALIASES = {"serverUrl": "url", "transportType": "type"}
"""Host spellings of keys the bridge knows (Windsurf: serverUrl; Cline: transportType)."""
TYPE_SPELLINGS = {"streamableHttp": "streamable-http", "streamable_http": "streamable-http"}
KNOWN_HOSTS = {
    "globalShortcut": "Claude Desktop", "preferences": "Claude Desktop", "inputs": "VS Code", "envFile": "VS Code/Cursor",
    "dev": "VS Code", "gallery": "VS Code", "autoApprove": "Cline/Windsurf", "alwaysAllow": "Cline/Roo",
    "timeout": "Cline", "disabledTools": "Windsurf", "networkTimeout": "Cline",
}


def _label(key: str) -> str:
    host = KNOWN_HOSTS.get(key)
    return f"{key!r} ({host})" if host else repr(key)


def normalize(data: Any, server_keys: Collection[str], locate: Callable[[list[str]], int] = lambda _: 1,
              source: str = "<config>") -> tuple[dict[str, Any], list[str]]:
    """``{"servers": ..., "bridge": ...}`` for the fleet model, and the warnings (one per ignored key).

    Raises ``ValueError`` (message with ``source:line``) when there is no server table at all.
    """
    shape = f"{source}:1: a JSON fleet config is an object with an 'mcpServers' object (VS Code: a non-empty 'servers' object)"
    if not isinstance(data, dict):
        raise ValueError(shape)
    if isinstance(data.get("mcpServers"), dict):
        table = "mcpServers"
        if "servers" in data:
            raise ValueError(f"{source}:{locate(['servers'])}: unknown top-level key 'servers' next to 'mcpServers' "
                             "(a VS Code file has only 'servers')")
    elif isinstance(data.get("servers"), dict) and data["servers"]:
        table = "servers"
    else:
        raise ValueError(shape)
    warnings: list[str] = []
    for key in sorted(set(data) - {table, "bridge"}):
        warnings.append(f"{source}:{locate([key])}: ignoring top-level key {_label(key)}: not a bridge setting")
    ignored: dict[str, list[str]] = {}
    servers: dict[str, Any] = {}
    for name, server in data[table].items():
        if not isinstance(server, dict):
            servers[name] = server  # the model says what is wrong with it
            continue
        out: dict[str, Any] = {}
        for key, value in server.items():
            key = ALIASES.get(key, key)
            if key in server_keys:
                out[key] = TYPE_SPELLINGS.get(value, value) if key == "type" and isinstance(value, str) else value
            elif any(abs(len(key) - len(near)) <= 2 for near in difflib.get_close_matches(key, server_keys, cutoff=0.75)):
                out[key] = value  # a typo of a bridge key (argz, comand): the model reports it with its line
            else:
                ignored.setdefault(key, []).append(name)
        servers[name] = out
    for key, names in sorted(ignored.items()):
        where = locate([table, names[0], key])
        warnings.append(f"{source}:{where}: ignoring {_label(key)} of server(s) {', '.join(names)}: not a bridge setting")
    return {"servers": servers, **({"bridge": data["bridge"]} if "bridge" in data else {})}, warnings
