"""The normalisation ``verify`` and the shadow comparison share: what of an item or an answer must be
equal between an old server and its migrated twin. Era-specific envelope fields (``_meta``,
``resultType``, ``ttlMs``, ``cacheScope``, ``nextCursor``), the order of ``required``/``enum`` and
schema titles are not differences. Pure."""

from __future__ import annotations

import difflib
import json
from typing import Any

ENVELOPE_KEYS = {"_meta", "resultType", "ttlMs", "cacheScope", "nextCursor"}
SCHEMA_NOISE = {"$schema", "title"}
ITEM_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tools": ("name", ("name", "description", "inputSchema", "outputSchema", "annotations")),
    "prompts": ("name", ("name", "description", "arguments")),
    "resources": ("uri", ("uri", "name", "description", "mimeType")),
    "resourceTemplates": ("uriTemplate", ("uriTemplate", "name", "description", "mimeType")),
}


def normalize_schema(schema: Any) -> Any:
    """Order-free, noise-free JSON Schema: sorted ``required``/``enum``, no ``$schema``/``title``."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key in SCHEMA_NOISE and not isinstance(value, dict):
                continue
            if key in ("required", "enum") and isinstance(value, list):
                out[key] = sorted(value, key=lambda v: json.dumps(v, sort_keys=True))
            elif key == "properties" and isinstance(value, dict):
                out[key] = {k: normalize_schema(v) for k, v in sorted(value.items())}
            else:
                out[key] = normalize_schema(value)
        return out
    if isinstance(schema, list):
        return [normalize_schema(v) for v in schema]
    return schema


def normalize_item(section: str, item: dict[str, Any]) -> dict[str, Any]:
    _, keys = ITEM_KEYS[section]
    out: dict[str, Any] = {}
    for key in keys:
        if key not in item or item[key] is None:
            continue
        value = item[key]
        if key in ("inputSchema", "outputSchema"):
            value = normalize_schema(value)
        elif key == "arguments" and isinstance(value, list):
            value = sorted(({k: v for k, v in a.items() if v is not None and k != "_meta"} for a in value if isinstance(a, dict)),
                           key=lambda a: str(a.get("name")))
        elif key == "annotations" and isinstance(value, dict):
            value = {k: v for k, v in sorted(value.items()) if v is not None}
            if not value:
                continue
        out[key] = value
    return out


def normalize_result(value: Any) -> Any:
    """A call result without the era envelope; content order kept (it is meaningful)."""
    if isinstance(value, dict):
        return {k: normalize_result(v) for k, v in sorted(value.items()) if k not in ENVELOPE_KEYS}
    if isinstance(value, list):
        return [normalize_result(v) for v in value]
    return value


def normalize_error(error: dict[str, Any]) -> dict[str, Any]:
    return {"code": error.get("code"), "message": error.get("message")}


def diff_lines(old: Any, new: Any) -> list[str]:
    """A unified diff (OLD -> NEW) of two JSON values, pretty-printed with sorted keys."""
    a = json.dumps(old, indent=2, sort_keys=True, default=str).splitlines()
    b = json.dumps(new, indent=2, sort_keys=True, default=str).splitlines()
    return list(difflib.unified_diff(a, b, "OLD", "NEW", lineterm="", n=2))
