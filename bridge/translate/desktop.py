"""Desktop hosts' MCP config files, read as they are (pure: no I/O).

Claude Desktop (``claude_desktop_config.json``), Cursor (``.cursor/mcp.json``), Cline
(``cline_mcp_settings.json``) and Windsurf (``mcp_config.json``) keep servers under ``mcpServers``;
VS Code (``.vscode/mcp.json``) under ``servers``. Each host adds keys of its own (``globalShortcut``,
``autoApprove``, ``alwaysAllow``, ``timeout``, ``inputs``, ...): the bridge ignores those with one
warning per key, honours ``command``/``args``/``env``/``cwd``/``url``/``headers``/``type``/``transport``/
``disabled``, and reads the hosts' spellings of the same things (Windsurf's ``serverUrl``, Cline's
``transportType``). Any other key of a server entry is an error naming the key and the bridge key it is most
likely a typo of (``argz``, ``enviroment``, ``evn``): a misspelt ``env`` must not start a server without its
environment.
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
    "timeout": "Cline", "disabledTools": "Windsurf", "networkTimeout": "Cline", "watchPaths": "Roo",
    "trust": "Gemini CLI", "includeTools": "Gemini CLI", "excludeTools": "Gemini CLI",
}
SYNONYMS = {"environment": "env", "arguments": "args", "argv": "args", "cmd": "command", "directory": "cwd",
            "workdir": "cwd", "working_directory": "cwd", "endpoint": "url", "header": "headers", "enabled": "disabled"}
"""Longer words people write for a bridge key: a typo of one of them suggests the key."""


def suggest(key: str, known: Collection[str]) -> str | None:
    """The bridge key ``key`` is most likely a typo of (``evn`` -> ``env``, ``enviroment`` -> ``env``), or None."""
    words = difflib.get_close_matches(key.lower(), SYNONYMS, n=1, cutoff=0.8)
    if words and SYNONYMS[words[0]] in known:
        return SYNONYMS[words[0]]
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.65) or difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.65)
    return near[0] if near else None


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
            elif key in KNOWN_HOSTS:
                ignored.setdefault(key, []).append(name)
            else:
                out[key] = value  # a typo (argz, enviroment) or a key of no known host: the model reports it with its line
        servers[name] = out
    for key, names in sorted(ignored.items()):
        where = locate([table, names[0], key])
        warnings.append(f"{source}:{where}: ignoring {_label(key)} of server(s) {', '.join(names)}: not a bridge setting")
    return {"servers": servers, **({"bridge": data["bridge"]} if "bridge" in data else {})}, warnings
