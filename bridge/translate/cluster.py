"""The forwarding between bridge instances, pure: which instance holds a parked call, how a forwarded request is
signed, checked and framed, what a gone owner means, and the counters an instance shows.

A parked direction-A call lives on the instance that holds its upstream request; the sealed ``requestState`` of its
``input_required`` result names that instance. A retry reaching another instance is posted to the owner's internal
endpoint: a JSON body (the request, the caller's identity and era, the sender, the time) signed with HMAC-SHA256
(RFC 2104) under a key derived one-way from the state key; the owner answers with newline-delimited JSON, one
``{"note": ...}`` per notification and one final ``{"done": ...}``. An owner that cannot be reached is the
documented invalid-state error: 2026-07-28 ``basic/patterns/mrtr.mdx`` §Request State, -32602 with reason ``lost``.

The shell (``mcp_eras.bridge.layers.cluster``) reads the registry and the clock, posts and streams.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.errors import BAD_REQUEST_STATUS, CONTENT_TOO_LARGE_STATUS, FORBIDDEN_STATUS
from mcp_eras.bridge.translate.gateway import ratelimit
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, Message

FORWARD_PATH = "/internal/forward"
AUTH_HEADER = "x-mcp-bridge-forward"
FORWARD_SKEW_MS = 30_000
"""A forwarded body older (or newer) than this is refused (replay window)."""
FORWARD_OVERHEAD_BYTES = 65536
"""What a forwarded body may hold beyond the largest request body a front accepts (the envelope)."""
MAX_HEARTBEAT_BACKOFF_S = 2.0
"""The longest wait between two heartbeats while the store fails: a store that returns is seen (and this instance
registered and its holdings published again) within about this long."""
PROBE_WINDOW_S = 30.0
"""Seconds after this instance last saw the store fail or forget it during which a 2025 session unknown to the store is
looked for on every other instance (the store may have lost it: restarted empty, writes refused; its holder publishes
it again within a few heartbeats of the store's return)."""
PROBE_RATE = 5.0
PROBE_BURST = 10.0
"""Outside that window, probe rounds a second (and burst) for unknown sessions: a session the store does not know is
almost always over, and each round asks every other instance, so a client sending made-up session ids would make
every request N-1 internal ones."""


def may_probe(bucket: ratelimit.Bucket | None, now: float, last_fault: float | None) -> tuple[bool, ratelimit.Bucket | None]:
    """Whether to ask the other instances for a session unknown to the store, and the probe bucket after it."""
    if last_fault is not None and 0.0 <= now - last_fault <= PROBE_WINDOW_S:
        return True, bucket
    decision = ratelimit.take(bucket, now, 1.0, PROBE_RATE, PROBE_BURST)
    return decision.allowed, decision.state


MAX_KNOWN_PEERS = 256
"""Instances whose last registry record an instance remembers (the address book used while the registry lacks
them: after a store restart or while its writes are refused)."""


def forward_key(state_key: bytes) -> bytes:
    """The inter-instance key: one-way from the state key, so it never reveals the sealing key."""
    return hmac.new(state_key, b"mcp-bridge/internal-forward/v1", hashlib.sha256).digest()


def sign(key: bytes, body: bytes) -> str:
    """The signature header of a forwarded body: HMAC-SHA256 (RFC 2104) in hex."""
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def lost(rid: Any, why: str) -> Message:
    """The answer to a retry whose owner is gone (2026-07-28 basic/patterns/mrtr.mdx §Request State: -32602)."""
    return jsonrpc.error_response(rid, INVALID_PARAMS, f"Invalid requestState: lost ({why})", {"reason": "lost"})


def store_down(rid: Any, why: str, store: str) -> Message:
    """The answer when the shared store cannot be read: -32603 naming the store."""
    return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Internal error: {why}", {"store": store})


def sealed_state(request: Message) -> Any:
    """The ``requestState`` of an MRTR retry (the token naming the instance that parked the call); None for any
    other request, which runs where it lands."""
    params = request.get("params")
    if request.get("method") not in eras.MRTR_METHODS or not isinstance(params, dict) or "requestState" not in params:
        return None
    return params["requestState"]


def runs_here(owner: str | None, instance_id: str) -> bool:
    """Whether a request whose state names ``owner`` (None: no state) runs on this instance."""
    return owner is None or owner == instance_id


def owner_gone(owner: str, record: Any) -> str | None:
    """Why the registry ``record`` of ``owner`` cannot take a forward (no record, no URL); None when it can."""
    if record is None or not isinstance(record.get("url"), str):
        return f"bridge instance {owner} is gone"
    return None


def remember(known: dict[str, dict[str, Any]], listed: dict[str, Any], cap: int = MAX_KNOWN_PEERS) -> None:
    """Merge the registry ``listed`` into the address book ``known`` (in place): the newest record of each instance
    with a URL wins; beyond ``cap`` the ones heard of least recently are let go."""
    for name, record in listed.items():
        if isinstance(record, dict) and isinstance(record.get("url"), str):
            known.pop(name, None)
            known[name] = record
    while len(known) > cap:
        known.pop(next(iter(known)))


def must_republish(record_was_there: bool, failed_before: bool) -> bool:
    """Whether a heartbeat calls for publishing again what this instance holds (its sessions, task records): its
    registry record was missing (lapsed, or the store restarted empty) or the beats before it failed (writes made
    meanwhile were refused)."""
    return not record_was_there or failed_before


def refused(owner: str, status: int) -> str:
    return f"bridge instance {owner} refused the forward ({status})"


def no_answer(owner: str) -> str:
    return f"bridge instance {owner} did not answer"


def forward_body(request: Message, caller: dict[str, Any], sender: str, at_ms: int) -> bytes:
    """The body posted to the owner: the request, the caller (``principal``, ``authorization``, ``trace``,
    ``client_era``, and behind a resource-server front its validated ``subject``, ``scopes`` and ``subject_token``),
    the sending instance and when it sent."""
    return orjson.dumps({"request": request, **caller, "from": sender, "at_ms": at_ms})


@dataclass(frozen=True)
class Forwarded:
    """A forwarded request the owner accepted: the request and the caller it runs for."""

    request: Message
    principal: str | None = None
    authorization: str | None = None
    trace: dict[str, str] = field(default_factory=dict)
    client_era: str = eras.MODERN
    subject: str | None = None
    scopes: frozenset[str] = frozenset()
    subject_token: str | None = field(default=None, repr=False)


def caller_fields(principal: str | None, authorization: str | None, trace: dict[str, str], client_era: str,
                  subject: str | None, scopes: frozenset[str], subject_token: str | None) -> dict[str, Any]:
    """The caller as the forward body carries it: the owner's policy sees the scopes the front validated, and a token
    exchange there has the caller's token (the body is signed: ``sign``)."""
    fields: dict[str, Any] = {"principal": principal, "authorization": authorization, "trace": trace, "client_era": client_era}
    if subject is not None:
        fields.update(subject=subject, scopes=sorted(scopes), subject_token=subject_token)
    return fields


def read_forward(body: bytes, signature: str, key: bytes, now_ms: int, max_body_bytes: int) -> Forwarded | int:
    """The owner's check of a forwarded body: the request to run, or the HTTP status refusing it (too large, a
    signature that does not match, a body that does not parse, a time outside the replay window)."""
    if len(body) > max_body_bytes + FORWARD_OVERHEAD_BYTES:
        return CONTENT_TOO_LARGE_STATUS
    if not hmac.compare_digest(signature, sign(key, body)):
        return FORBIDDEN_STATUS
    try:
        data = orjson.loads(body)
        msg, at_ms = data["request"], int(data["at_ms"])
        scopes = data.get("scopes") or []
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            return BAD_REQUEST_STATUS
        forwarded = Forwarded(msg, data.get("principal"), data.get("authorization"), dict(data.get("trace") or {}),
                              data.get("client_era") or eras.MODERN, data.get("subject"), frozenset(scopes),
                              data.get("subject_token"))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return BAD_REQUEST_STATUS
    if abs(now_ms - at_ms) > FORWARD_SKEW_MS or not isinstance(msg, dict):
        return BAD_REQUEST_STATUS
    return forwarded


def note_line(note: Message) -> bytes:
    """One NDJSON line of the forward stream: a notification of the running call."""
    return orjson.dumps({"note": note}) + b"\n"


def done_line(response: Message) -> bytes:
    """The last NDJSON line of the forward stream: the call's response."""
    return orjson.dumps({"done": response}) + b"\n"


def is_done_line(line: bytes) -> bool:
    return line.startswith(b'{"done"')


def read_line(line: str) -> tuple[str, Message] | None:
    """One line of the forward stream as ("note" | "done", message); None for an empty line. A malformed line
    raises (``orjson.JSONDecodeError``, ``KeyError``, ``TypeError``): the stream is broken, the owner lost."""
    if not line:
        return None
    frame = orjson.loads(line)
    if "done" in frame:
        return "done", frame["done"]
    return "note", frame["note"]


def discover_scopes(principal: str | None) -> tuple[str, str]:
    """Where a shared DiscoverResult may be cached, looked up in this order: the caller's own, then the public one."""
    return f"private:{principal or '-'}", "public"


def discover_cache(result: Message, scopes: tuple[str, str]) -> tuple[str, int] | None:
    """(scope, ttl ms) to share a DiscoverResult under: only with a positive ``ttlMs``, public only when its
    ``cacheScope`` says so (2026-07-28 server/discover); None: not shared."""
    ttl = result.get("ttlMs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
        return None
    return (scopes[1] if result.get("cacheScope") == "public" else scopes[0]), ttl


def heartbeat_backoff(interval: float, backoff: float, ok: bool) -> float:
    """The wait before the next heartbeat: the interval after a success, doubled (up to 5 s) after each failure."""
    return interval if ok else min(MAX_HEARTBEAT_BACKOFF_S, backoff * 2)


def counters(forwarded: dict[str, int], relayed: dict[str, Any], task_counts: list[dict[str, int]]) -> dict[str, int]:
    """An instance's cluster counters (``/metrics``): forwards out/in and their failures, store errors and
    reconnects, the 2025 sessions' relay counters and the task routers' counters summed."""
    out = {f"forwarded_{k}" if k in ("out", "in") else k: v for k, v in forwarded.items()}
    out["forward_failures"] = out.pop("lost")
    out.update({f"sessions_{k}": int(v) for k, v in relayed.items()})
    for counts in task_counts:
        for k, v in counts.items():
            out[f"tasks_{k}"] = out.get(f"tasks_{k}", 0) + v
    return out
