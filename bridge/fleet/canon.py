"""Talking to an upstream of either era with canonical 2026-07-28 requests (for probe and verify)."""

from __future__ import annotations

import itertools
from typing import Any

from mcp_eras.bridge.core import CallContext, Upstream, discard
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message

CLIENT_INFO = {"name": "mcp-bridge-fleet", "version": "0.1.0"}
MAX_PAGES = 100

_ids = itertools.count(1)


class CallFailed(Exception):
    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.method = method
        self.error = error


def request(method: str, params: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None) -> Message:
    body = dict(params or {})
    body["_meta"] = {
        **(body.get("_meta") or {}),
        eras.META_PROTOCOL_VERSION: eras.MODERN,
        eras.META_CLIENT_CAPABILITIES: capabilities or {},
        eras.META_CLIENT_INFO: CLIENT_INFO,
    }
    return jsonrpc.request(f"fleet-{next(_ids)}", method, body)


async def call(up: Upstream, method: str, params: dict[str, Any] | None = None, ctx: CallContext | None = None) -> Message:
    """The canonical response (result or error) of one request."""
    return await up.call(request(method, params), ctx or CallContext(), discard)


async def result(up: Upstream, method: str, params: dict[str, Any] | None = None, ctx: CallContext | None = None) -> dict[str, Any]:
    response = await call(up, method, params, ctx)
    if "error" in response:
        raise CallFailed(method, response["error"])
    res = response.get("result")
    return res if isinstance(res, dict) else {}


async def list_all(up: Upstream, method: str, key: str, ctx: CallContext | None = None) -> list[dict[str, Any]]:
    """Every item of a paginated list method."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        res = await result(up, method, {"cursor": cursor} if cursor else None, ctx)
        items.extend(x for x in res.get(key, []) if isinstance(x, dict))
        cursor = res.get("nextCursor")
        if not cursor:
            break
    return items


LISTS = {
    "tools": ("tools/list", "tools"),
    "prompts": ("prompts/list", "prompts"),
    "resources": ("resources/list", "resources"),
    "resourceTemplates": ("resources/templates/list", "resourceTemplates"),
}
"""Inventory kind -> (method, result key); a kind is listed only when its capability is declared."""

CAPABILITY_OF = {"tools": "tools", "prompts": "prompts", "resources": "resources", "resourceTemplates": "resources"}
