"""Staged upgrades, the decisions: which requests may be mirrored, which side of a canary a caller is
on, when a canary must be rolled back, and whether two answers diverge.

Pure: no I/O, no clock, no event loop. Time comes in as ``now`` (seconds, any monotonic origin) and
state is plain data (``Window.to_json``/``from_json`` round-trip). The fleet's serve shell
(``mcp_eras.bridge.layers.staged``) moves the requests and runs the timers.

Side-effect-free requests (mirrorable): the list methods, ``resources/read``, ``prompts/get``,
``completion/complete`` and ``tools/call`` of a tool the *old* server annotates
``readOnlyHint: true`` (2025-11-25 and 2026-07-28 ``schema.ts`` ``ToolAnnotations``) or that the
operator names in ``shadow_tools``. Answers are compared with ``verify``'s normalisation: the era
envelope (``_meta``, ``resultType``, ...) and the order of listed items do not count, nor do the paths
of the operator's accept list (``shadow_ignore``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mcp_eras.bridge.fleet import normalize

Side = Literal["primary", "canary"]

LIST_METHODS: dict[str, str] = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}
"""List method -> result key (and ``normalize.ITEM_KEYS`` section)."""
MIRRORABLE_METHODS = frozenset({*LIST_METHODS, "resources/read", "prompts/get", "completion/complete"})
VOLATILE_KEYS = frozenset({"requestState"})
"""Opaque per-answer values never equal across two servers (2026-07-28 basic/patterns/mrtr.mdx §Request State)."""
DIFF_LINES_MAX = 80


# ---------------------------------------------------------------------------------------------------
# Which requests are mirrorable
# ---------------------------------------------------------------------------------------------------


def read_only_tools(tools: list[Any]) -> frozenset[str]:
    """Names of the tools annotated ``readOnlyHint: true`` in a ``tools/list`` result's ``tools``."""
    out = set()
    for tool in tools:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            ann = tool.get("annotations")
            if isinstance(ann, dict) and ann.get("readOnlyHint") is True:
                out.add(tool["name"])
    return frozenset(out)


def tool_name(request: dict[str, Any]) -> str:
    """The tool of a ``tools/call`` request ("" for other methods or a malformed name)."""
    if request.get("method") != "tools/call":
        return ""
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else ""


def mirrorable(request: dict[str, Any], read_only: frozenset[str] | set[str], shadow_tools: frozenset[str] | set[str]) -> bool:
    """May a copy of this request be sent to a twin without side effects?"""
    method = request.get("method")
    if method in MIRRORABLE_METHODS:
        return True
    if method == "tools/call":
        name = tool_name(request)
        return bool(name) and (name in read_only or name in shadow_tools)
    return False


# ---------------------------------------------------------------------------------------------------
# Canary assignment
# ---------------------------------------------------------------------------------------------------


def bucket(key: str) -> float:
    """A stable point in [0, 1) for a caller key (SHA-256, so the split is uniform and unguessable)."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / float(1 << 64)


def side_for(key: str, weight: float) -> Side:
    """The canary takes the callers whose bucket is below ``weight``: raising the weight only moves
    callers from the old server to the canary, never back."""
    return "canary" if weight > 0 and bucket(key) < weight else "primary"


def sticky_key(principal: str | None, session_id: str | None) -> str:
    """Who a caller is, for the split: its credentials' digest, else its 2025 session, else one
    shared anonymous key."""
    if principal:
        return f"p:{principal}"
    if session_id:
        return f"s:{session_id}"
    return "anonymous"


# ---------------------------------------------------------------------------------------------------
# Rollback over a sliding window
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollbackPolicy:
    max_error_rate: float = 0.05
    """Canary error rate allowed above the old server's over the same window."""
    min_requests: int = 50
    """Canary requests in the window before any verdict."""
    max_divergence: float | None = None
    """Share of compared canary answers allowed to differ from the old server's (None: not checked)."""
    window: float = 60.0
    """Seconds the window spans."""


COUNTS = ("canary", "canary_errors", "primary", "primary_errors", "compared", "diverged")


@dataclass
class Window:
    """Per-``step`` buckets of counts over the last ``span`` seconds."""

    span: float = 60.0
    step: float = 1.0
    buckets: dict[int, list[int]] = field(default_factory=dict)

    def _slot(self, now: float) -> int:
        return int(now // self.step)

    def _oldest(self, now: float) -> int:
        return self._slot(now) - max(1, int(self.span // self.step)) + 1

    def add(self, now: float, **counts: int) -> None:
        oldest = self._oldest(now)
        for key in [k for k in self.buckets if k < oldest]:
            del self.buckets[key]
        row = self.buckets.setdefault(self._slot(now), [0] * len(COUNTS))
        for name, value in counts.items():
            row[COUNTS.index(name)] += value

    def totals(self, now: float) -> dict[str, int]:
        oldest, newest = self._oldest(now), self._slot(now)
        sums = [0] * len(COUNTS)
        for key, row in self.buckets.items():
            if oldest <= key <= newest:
                sums = [a + b for a, b in zip(sums, row, strict=True)]
        return dict(zip(COUNTS, sums, strict=True))

    def clear(self) -> None:
        self.buckets.clear()

    def to_json(self) -> dict[str, Any]:
        return {"span": self.span, "step": self.step, "buckets": {str(k): v for k, v in self.buckets.items()}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Window:
        return cls(float(data["span"]), float(data["step"]), {int(k): list(v) for k, v in data["buckets"].items()})


def rate(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def rollback_reason(totals: dict[str, int], policy: RollbackPolicy) -> str | None:
    """Why the canary must go back to weight 0 (None: keep it). Errors are judged against the old
    server's error rate in the same window; divergence against the compared canary answers."""
    if totals["canary"] < policy.min_requests:
        return None
    canary_rate = rate(totals["canary_errors"], totals["canary"])
    primary_rate = rate(totals["primary_errors"], totals["primary"])
    if canary_rate - primary_rate > policy.max_error_rate:
        return (f"error rate {canary_rate:.1%} over {totals['canary']} canary requests "
                f"(old server {primary_rate:.1%}, allowed +{policy.max_error_rate:.1%})")
    if policy.max_divergence is not None and totals["compared"] >= 1:
        divergence = rate(totals["diverged"], totals["compared"])
        if divergence > policy.max_divergence:
            return (f"divergence {divergence:.1%} over {totals['compared']} compared answers "
                    f"(allowed {policy.max_divergence:.1%})")
    return None


# ---------------------------------------------------------------------------------------------------
# Comparing two answers
# ---------------------------------------------------------------------------------------------------


def is_failure(response: dict[str, Any]) -> bool:
    """A JSON-RPC error, or a tool result flagged ``isError``."""
    if "error" in response:
        return True
    result = response.get("result")
    return isinstance(result, dict) and result.get("isError") is True


def drop_paths(value: Any, paths: list[list[str]]) -> Any:
    """``value`` without the accept-list paths (dotted; ``*`` matches any key or index)."""
    if not paths:
        return value
    here = {p[0] for p in paths if len(p) == 1}
    deeper = [p for p in paths if len(p) > 1]

    def child(key: str) -> list[list[str]]:
        return [p[1:] for p in deeper if p[0] in ("*", key)]

    if isinstance(value, dict):
        return {k: drop_paths(v, child(k)) for k, v in value.items() if k not in here and "*" not in here}
    if isinstance(value, list):
        return [drop_paths(v, child(str(i))) for i, v in enumerate(value) if str(i) not in here and "*" not in here]
    return value


def _strip_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_volatile(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip_volatile(v) for v in value]
    return value


def comparable(method: str, response: dict[str, Any], ignore: list[str] | tuple[str, ...] = ()) -> Any:
    """The part of an answer that must match: ``verify``'s normalisation, then the accept list."""
    if "error" in response:
        err = response["error"]
        return {"error": normalize.normalize_error(err if isinstance(err, dict) else {})}
    result = response.get("result")
    section = LIST_METHODS.get(method)
    if section is not None and isinstance(result, dict) and isinstance(result.get(section), list):
        key, _ = normalize.ITEM_KEYS[section]
        items = [i for i in result[section] if isinstance(i, dict)]
        out: Any = {section: [normalize.normalize_item(section, i) for i in sorted(items, key=lambda i: str(i.get(key)))]}
    else:
        out = normalize.normalize_result(result)
    return drop_paths(_strip_volatile(out), [p.split(".") for p in ignore])


@dataclass(frozen=True)
class Divergence:
    at: float
    """Wall-clock seconds (given by the shell)."""
    server: str
    twin: str
    method: str
    tool: str
    params: Any
    diff: list[str]
    """A unified diff of the compared forms (``old`` is the server that answered the caller)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def compare(method: str, old: dict[str, Any], new: dict[str, Any], ignore: list[str] | tuple[str, ...] = ()) -> list[str] | None:
    """None when the answers match; else a readable unified diff (old -> new)."""
    a, b = comparable(method, old, ignore), comparable(method, new, ignore)
    if a == b:
        return None
    lines = normalize.diff_lines(a, b)
    if len(lines) > DIFF_LINES_MAX:
        lines = [*lines[:DIFF_LINES_MAX], f"... {len(lines) - DIFF_LINES_MAX} more lines"]
    return lines


def request_summary(request: dict[str, Any], limit: int = 2000) -> Any:
    """The request's params without ``_meta``, cut to ``limit`` characters of JSON (for the divergence log)."""
    params = request.get("params")
    if not isinstance(params, dict):
        return params
    shown = {k: v for k, v in params.items() if k != "_meta"}
    text = json.dumps(shown, sort_keys=True, default=str)
    return shown if len(text) <= limit else text[:limit] + "..."


def session_side(weight: float, key: str, pinned: Side | None) -> Side:
    """A 2025 session stays on the side it started on while the canary is on (weight > 0); a caller
    without a pin follows its key."""
    if weight <= 0:
        return "primary"
    return pinned if pinned is not None else side_for(key, weight)
