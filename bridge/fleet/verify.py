"""``mcp-bridge verify OLD NEW``: does a migrated server answer like the old one?

Both sides are reached through ``make_upstream(Target(...), Settings())`` and canonical 2026
requests, so either may be of either era. Compared: tools (names, descriptions, input and output
schemas, annotations), prompts (with arguments), resources and resource templates, and the results of
a user-given list of calls (plus, on request, the tools annotated read-only that need no arguments).

Era-specific envelope fields (``_meta``, ``resultType``, ``ttlMs``, ``cacheScope``) and the order of
lists and of ``required`` are not differences.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream
from mcp_eras.bridge.fleet import canon
from mcp_eras.bridge.fleet.normalize import (  # noqa: F401 - re-exported: verify's normalisation is shared with shadow
    ENVELOPE_KEYS,
    ITEM_KEYS,
    SCHEMA_NOISE,
    diff_lines,
    normalize_error,
    normalize_item,
    normalize_result,
    normalize_schema,
)
from mcp_eras.bridge.upstream.factory import Target, make_upstream


@dataclass
class Difference:
    section: str
    item: str
    kind: str
    """only-old | only-new | changed | error"""
    old: Any = None
    new: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "item": self.item, "kind": self.kind, "old": self.old, "new": self.new}


@dataclass
class Report:
    old: str
    new: str
    compared: dict[str, int] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "ok": self.ok, "compared": self.compared,
                "differences": [d.to_json() for d in self.differences]}


# ---------------------------------------------------------------------------------------------------
# Pure: normalization and comparison
# ---------------------------------------------------------------------------------------------------


def compare_lists(section: str, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[Difference]:
    key, _ = ITEM_KEYS[section]
    a = {str(i.get(key)): normalize_item(section, i) for i in old}
    b = {str(i.get(key)): normalize_item(section, i) for i in new}
    diffs: list[Difference] = []
    for name in sorted(a.keys() | b.keys()):
        if name not in b:
            diffs.append(Difference(section, name, "only-old", a[name], None))
        elif name not in a:
            diffs.append(Difference(section, name, "only-new", None, b[name]))
        elif a[name] != b[name]:
            diffs.append(Difference(section, name, "changed", a[name], b[name]))
    return diffs


def load_calls(path: str | Path) -> list[dict[str, Any]]:
    """A JSON array or JSON Lines of ``{"method": ..., "params": {...}}`` or ``{"tool": NAME, "arguments": {...}}``."""
    text = Path(path).read_text(encoding="utf-8").strip()
    raw = json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    calls = []
    for i, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: call {i} is not an object")
        if "tool" in entry:
            calls.append({"method": "tools/call", "params": {"name": entry["tool"], "arguments": entry.get("arguments") or {}}})
        elif isinstance(entry.get("method"), str):
            calls.append({"method": entry["method"], "params": entry.get("params") or {}})
        else:
            raise ValueError(f"{path}: call {i} needs 'method' (with 'params') or 'tool' (with 'arguments')")
    return calls


def call_label(call: dict[str, Any]) -> str:
    params = call.get("params") or {}
    subject = params.get("name") or params.get("uri") or ""
    args = params.get("arguments")
    return f"{call['method']} {subject}{' ' + json.dumps(args, sort_keys=True) if args else ''}".strip()


def read_only_calls(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls for tools annotated ``readOnlyHint`` that take no required arguments."""
    out = []
    for tool in sorted(tools, key=lambda t: str(t.get("name"))):
        ann = tool.get("annotations") or {}
        required = (tool.get("inputSchema") or {}).get("required") or []
        if ann.get("readOnlyHint") is True and not required:
            out.append({"method": "tools/call", "params": {"name": tool["name"], "arguments": {}}})
    return out


def render_text(report: Report) -> str:
    lines = [f"OLD: {report.old}", f"NEW: {report.new}",
             "compared: " + ", ".join(f"{k} {v}" for k, v in report.compared.items())]
    if report.ok:
        lines.append("EQUIVALENT: no differences")
        return "\n".join(lines)
    lines.append(f"DIVERGENT: {len(report.differences)} difference(s)")
    for d in report.differences:
        if d.kind == "only-old":
            lines.append(f"- {d.section} {d.item!r}: only in OLD")
        elif d.kind == "only-new":
            lines.append(f"+ {d.section} {d.item!r}: only in NEW")
        else:
            lines.append(f"~ {d.section} {d.item!r}: {d.kind}")
            lines.extend("    " + row for row in diff_lines(d.old, d.new))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Shell
# ---------------------------------------------------------------------------------------------------


def parse_target(spec: str | list[str], name: str) -> Target:
    """A URL, or a command line (a string split shell-style, or an argv list)."""
    import shlex

    if isinstance(spec, str) and spec.startswith(("http://", "https://")):
        return Target(url=spec, name=name)
    argv = shlex.split(spec) if isinstance(spec, str) else list(spec)
    return Target(command=argv, name=name)


async def _inventory(up: Upstream) -> dict[str, list[dict[str, Any]] | str]:
    caps = (await up.discover(CallContext())).get("capabilities") or {}
    out: dict[str, list[dict[str, Any]] | str] = {}
    for kind, (method, key) in canon.LISTS.items():
        if canon.CAPABILITY_OF[kind] not in caps:
            out[kind] = []
            continue
        try:
            out[kind] = await canon.list_all(up, method, key)
        except canon.CallFailed as exc:
            out[kind] = [] if exc.error.get("code") == -32601 else str(exc)
    return out


async def _outcome(up: Upstream, call: dict[str, Any]) -> Any:
    response = await canon.call(up, call["method"], call.get("params"))
    if "error" in response:
        return {"error": normalize_error(response["error"])}
    return {"result": normalize_result(response.get("result"))}


async def verify(old: Target, new: Target, calls: list[dict[str, Any]] | None = None, include_read_only: bool = False,
                 settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    report = Report(old.describe(), new.describe())
    up_old, up_new = make_upstream(old, settings), make_upstream(new, settings)
    try:
        await asyncio.gather(up_old.start(), up_new.start())
        inv_old, inv_new = await asyncio.gather(_inventory(up_old), _inventory(up_new))
        for section in ITEM_KEYS:
            a, b = inv_old[section], inv_new[section]
            if isinstance(a, str) or isinstance(b, str):
                report.differences.append(Difference(section, "(list)", "error", a if isinstance(a, str) else None,
                                                     b if isinstance(b, str) else None))
                continue
            report.compared[section] = len(a)
            report.differences.extend(compare_lists(section, a, b))
        plan = list(calls or [])
        if include_read_only:
            tools_old = inv_old["tools"] if isinstance(inv_old["tools"], list) else []
            seen = {json.dumps(c, sort_keys=True) for c in plan}
            plan += [c for c in read_only_calls(tools_old) if json.dumps(c, sort_keys=True) not in seen]
        for call in plan:
            a, b = await asyncio.gather(_outcome(up_old, call), _outcome(up_new, call))
            if a != b:
                report.differences.append(Difference("calls", call_label(call), "changed", a, b))
        report.compared["calls"] = len(plan)
    finally:
        for up in (up_old, up_new):
            with contextlib.suppress(Exception):
                await up.aclose()
    return report
