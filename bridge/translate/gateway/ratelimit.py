"""Rate limits per caller and server (issue 34), as pure code: the token bucket, the rate spec, which requests
count and the refusal at the limit. The stores keep the buckets (``mcp_eras.bridge.store``; the Redis store runs the
same bucket as one Lua script), the layer ``mcp_eras.bridge.layers.ratelimit`` asks them.

A bucket holds up to ``burst`` tokens and gains ``rate`` tokens a second; a request takes ``cost`` tokens (1) or is
refused and told when enough will be there (``retry_after`` seconds). State is plain data, ``(tokens, stamp)``, with
``stamp`` in seconds of whatever clock the caller uses (the Redis store uses the Redis server's ``TIME``, so every
replica reads one clock).

At the limit the caller gets the bridge's limit error (-32000, ``errors.LIMIT_REACHED``) with data
``{"limit": "rate", "retry_after": seconds}``: on the 2026-07-28 HTTP front that is HTTP 429 with ``Retry-After``
(RFC 6585 §4, RFC 9110 §10.2.3); in a 2025-11-25 session it is an ordinary JSON-RPC error (a 2025 session's errors
travel with 200: 2025-11-25 basic/transports.mdx §Session Management item 4 would read a 4xx as the session ending).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.translate.errors import LIMIT_REACHED
from mcp_eras.bridge.translate.jsonrpc import Message, error_response

Bucket = tuple[float, float]
"""``(tokens, stamp)``: the tokens left at ``stamp`` (seconds)."""

RATE_LIMIT = "rate"
"""``data.limit`` of a refusal at the limit."""
BUCKETS_LIMIT = "rate_buckets"
"""``data.limit`` when the in-memory store holds as many buckets as it may and none of them is idle."""

_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0}
_SPEC = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*([a-z]+)\s*$")
MAX_RATE = 1_000_000.0
"""Tokens a second a spec may give (more is a typo, not a limit)."""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    state: Bucket
    retry_after: float
    """Seconds until the request would be allowed (0 when it is)."""


def take(state: Bucket | None, now: float, cost: float, rate: float, burst: float) -> Decision:
    """One request of ``cost`` tokens at ``now`` against a bucket in ``state`` (None: a new bucket, full).

    A clock that went back (another replica's stamp a little ahead) adds nothing and takes nothing away."""
    tokens, stamp = state if state is not None else (burst, now)
    elapsed = max(0.0, now - stamp)
    tokens = min(burst, tokens + elapsed * rate)
    stamp = max(stamp, now)
    if tokens >= cost:
        return Decision(True, (tokens - cost, stamp), 0.0)
    return Decision(False, (tokens, stamp), (cost - tokens) / rate)


def idle(state: Bucket, now: float, rate: float, burst: float) -> bool:
    """Whether the bucket is full again by ``now`` (forgetting it changes nothing)."""
    tokens, stamp = state
    return tokens + max(0.0, now - stamp) * rate >= burst


def full_after(rate: float, burst: float) -> float:
    """Seconds an empty bucket takes to fill: a stored bucket may lapse that long after its last use."""
    return burst / rate


def parse_rate(spec: str) -> float:
    """``"N/s"``, ``"N/min"`` or ``"N/h"`` (also ``sec``, ``second``, ``m``, ``minute``, ``hour``) as tokens a second.
    ValueError names what is wrong."""
    match = _SPEC.match(spec.lower())
    if match is None or match.group(2) not in _UNITS:
        raise ValueError(f"a rate is N/s, N/min or N/h, got {spec!r}")
    rate = float(match.group(1)) / _UNITS[match.group(2)]
    if not 0 < rate <= MAX_RATE:
        raise ValueError(f"a rate must be above 0 and at most {MAX_RATE:g}/s, got {spec!r}")
    return rate


@dataclass(frozen=True)
class RateLimit:
    """One server's limit: ``rate`` tokens a second, at most ``burst`` at once. ``spec`` is the rate as given."""

    rate: float
    burst: float
    spec: str

    @classmethod
    def of(cls, spec: str, burst: float | None = None) -> RateLimit:
        """The limit of a spec and a burst (default: one second's worth of the rate, at least 1)."""
        rate = parse_rate(spec)
        size = float(burst) if burst is not None else max(1.0, math.ceil(rate))
        if size < 1:
            raise ValueError(f"a burst must be at least 1 (one request), got {burst}")
        return cls(rate, size, spec.strip())


def limit_of(rate: str | None, burst: float | None) -> RateLimit | None:
    """The limit of a server's ``rate``/``burst`` (None: no limit). A burst without a rate is an error."""
    if rate is None:
        if burst is not None:
            raise ValueError("a burst needs a rate")
        return None
    return RateLimit.of(rate, burst)


# --- which requests count -----------------------------------------------------------------------------------------

HOUSEKEEPING = frozenset({"initialize", "ping"})
"""Requests of a session's own upkeep (2025-11-25 basic/lifecycle.mdx, basic/utilities/ping.mdx): never counted."""
LEGACY_SESSION_REQUESTS = frozenset({"server/discover", "subscriptions/listen"})
"""What the bridge itself sends for a 2025 session (its ``initialize`` as ``server/discover``, the session's shared
listen): not the caller's requests, so not counted."""


def counts(request: Message, legacy_client: bool) -> bool:
    """Whether ``request`` takes a token. Not counted: notifications, session housekeeping, the bridge's own requests
    for a 2025 session (``legacy_client``), and a retry carrying ``requestState`` (2026-07-28 basic/patterns/mrtr.mdx:
    the same call, continued; it was counted when it first came)."""
    method = request.get("method")
    if not isinstance(method, str) or "id" not in request or method.startswith("notifications/") or method in HOUSEKEEPING:
        return False
    if legacy_client and method in LEGACY_SESSION_REQUESTS:
        return False
    params = request.get("params")
    return not (isinstance(params, dict) and params.get("requestState") is not None)


def bucket_key(server: str, principal: str | None) -> str:
    """The bucket of a caller at a server. Anonymous callers (no principal) share one bucket per server: the layer
    sees no client address, and a per-address bucket would be one NAT or proxy away from useless anyway."""
    return f"{server or '-'}:{principal or '-anonymous'}"


# --- the refusals ------------------------------------------------------------------------------------------------


def retry_seconds(retry_after: float) -> int:
    """``Retry-After`` as whole seconds (RFC 9110 §10.2.3 delay-seconds), never 0 while refused."""
    return max(1, math.ceil(retry_after - 1e-9))


def limited(rid: Any, limit: RateLimit, retry_after: float) -> Message:
    """The answer at the limit (the upstream never sees the request)."""
    return error_response(rid, LIMIT_REACHED, f"Rate limit reached ({limit.spec}, burst {limit.burst:g}); retry later",
                          {"limit": RATE_LIMIT, "retry_after": retry_seconds(retry_after)})


def buckets_full(rid: Any, cap: int) -> Message:
    return error_response(rid, LIMIT_REACHED, f"Too many rate-limited callers on this bridge ({cap} buckets)",
                          {"limit": BUCKETS_LIMIT})


def retry_after_header(response: Message) -> dict[str, str] | None:
    """``{"Retry-After": N}`` for a rate refusal (RFC 6585 §4: the response MAY include it; we always do)."""
    err = response.get("error")
    data = err.get("data") if isinstance(err, dict) else None
    if isinstance(data, dict) and data.get("limit") == RATE_LIMIT and isinstance(data.get("retry_after"), int):
        return {"Retry-After": str(data["retry_after"])}
    return None

