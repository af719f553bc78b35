"""2026 Streamable HTTP routing headers a *client* must send (Dir B upstream side), pure.

``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*`` mirror body values; values that are not plain visible
ASCII travel as ``=?base64?<base64 of UTF-8>?=``. Tool input schemas declare mirrored arguments with
``x-mcp-header``; a tool whose annotations break the rules must be dropped from ``tools/list``.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from mcp_eras.bridge.translate.eras import NAMED_METHODS

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$")
MAX_SAFE_INT = 2**53 - 1


def encode_value(value: str) -> str:
    """A header value for ``value``: as is when it is safe visible ASCII, else the base64 sentinel form."""
    if value and _SAFE.match(value) and not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def decode_value(value: str) -> str:
    """Undo the base64 sentinel (receivers MUST decode before comparing: 2026-07-28
    basic/transports/streamable-http.mdx §Value Encoding); raises ValueError when invalid."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= len("=?base64??="):
        return base64.b64decode(value[len("=?base64?") : -len("?=")], validate=True).decode("utf-8")
    return value


def header_param_names(tool: dict[str, Any]) -> dict[tuple[str, ...], str] | None:
    """``{argument path: header suffix}`` for a tool's ``x-mcp-header`` annotations; None when they are invalid.

    Annotations count only on properties reached through a chain of ``properties`` keys, on
    integer/string/boolean schemas, with a non-empty token name unique case-insensitively.
    """
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return {}
    found: dict[tuple[str, ...], str] = {}
    seen: set[str] = set()

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> bool:
        props = node.get("properties")
        if not isinstance(props, dict):
            return True
        for name, sub in props.items():
            if not isinstance(sub, dict):
                continue
            here = (*path, name)
            if "x-mcp-header" in sub:
                header = sub["x-mcp-header"]
                if not isinstance(header, str) or not header or not _TOKEN.match(header):
                    return False
                if sub.get("type") not in ("string", "integer", "boolean"):
                    return False
                if header.lower() in seen:
                    return False
                seen.add(header.lower())
                found[here] = header
            if not walk(sub, here):
                return False
        return True

    if not walk(schema, ()):
        return None
    return found


def lookup(arguments: Any, path: tuple[str, ...]) -> Any:
    node = arguments
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def param_headers(annotations: dict[tuple[str, ...], str], arguments: Any) -> dict[str, str]:
    """``Mcp-Param-*`` headers for one ``tools/call``'s arguments (absent/null values are omitted)."""
    out: dict[str, str] = {}
    for path, name in annotations.items():
        value = lookup(arguments, path)
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            if abs(value) > MAX_SAFE_INT:
                continue
            text = str(value)
        elif isinstance(value, float) and value.is_integer():
            text = str(int(value))
        elif isinstance(value, str):
            text = value
        else:
            continue
        out["Mcp-Param-" + name] = encode_value(text)
    return out


def routing_headers(request: dict[str, Any]) -> dict[str, str]:
    """``Mcp-Method`` and (for named methods) ``Mcp-Name`` for one request."""
    method = request.get("method", "")
    headers = {"Mcp-Method": method}
    field = NAMED_METHODS.get(method)
    params = request.get("params")
    if field and isinstance(params, dict) and isinstance(params.get(field), str):
        headers["Mcp-Name"] = encode_value(params[field])
    return headers
