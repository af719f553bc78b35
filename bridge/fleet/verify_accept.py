"""``mcp-bridge verify --accept FILE``: known, expected differences (an SDK's error-code change, a
reworded description) that do not fail a verification. Pure: parsing and matching only.

FILE is a JSON array (or JSON Lines) of entries::

    {"section": "calls", "item": "tools/call fail", "kind": "changed", "reason": "v2 reports -32602"}

``section`` and ``item`` are required (``item`` may be a shell-style pattern: ``tools/call *``);
``kind`` (only-old | only-new | changed | error) and ``old``/``new`` (the exact values in the report)
narrow the match when given. ``reason`` is for people.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

KINDS = ("only-old", "only-new", "changed", "error")


def load(path: str | Path) -> list[dict[str, Any]]:
    text = Path(path).read_text(encoding="utf-8").strip()
    raw = json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    for i, entry in enumerate(raw, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("section"), str) or not isinstance(entry.get("item"), str):
            raise ValueError(f"{path}: entry {i} needs 'section' and 'item' (strings)")
        if "kind" in entry and entry["kind"] not in KINDS:
            raise ValueError(f"{path}: entry {i}: 'kind' must be one of {', '.join(KINDS)}")
    return raw


def matches(entry: dict[str, Any], diff: dict[str, Any]) -> bool:
    if entry["section"] != diff["section"] or not fnmatch.fnmatchcase(diff["item"], entry["item"]):
        return False
    return all(key not in entry or entry[key] == diff[key] for key in ("kind", "old", "new"))


def split(differences: list[Any], entries: list[dict[str, Any]]) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """(still differences, accepted ones, entries that matched nothing). Differences are objects with
    ``to_json()`` (``mcp_eras.bridge.fleet.verify.Difference``)."""
    left, accepted, used = [], [], set()
    for diff in differences:
        as_json = diff.to_json()
        hit = next((i for i, entry in enumerate(entries) if matches(entry, as_json)), None)
        if hit is None:
            left.append(diff)
        else:
            accepted.append(diff)
            used.add(hit)
    return left, accepted, [e for i, e in enumerate(entries) if i not in used]
