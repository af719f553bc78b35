"""What the observing layers conclude from what they saw, pure: the outcome of a relayed response (a metric label),
whether an error hints at a changed era, the trace context a 2025 upstream gets in ``_meta``, the health verdicts and
the Prometheus families of the cluster counters.

The shells (``mcp_eras.bridge.layers.observe``, ``mcp_eras.bridge.layers.managed``, the fleet's server) time the
calls, run the checks and render the text; the labels and verdicts are decided here.
"""

from __future__ import annotations

from typing import Any

from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.errors import OK_STATUS, SERVER_ERROR_STATUSES_FROM, UNAVAILABLE_STATUS
from mcp_eras.bridge.translate.jsonrpc import Message

ERA_TYPICAL_CODES = {-32600, -32601, -32603, -32000, -32001}
"""JSON-RPC errors a server gives when spoken to in the wrong era (missing session, unknown method...)."""

Sample = tuple[dict[str, str], float]
Family = tuple[str, str, str, list[Sample]]
"""One Prometheus metric family: (name, type, help, samples of (labels, value))."""


def outcome_of(response: Message) -> str:
    """``ok``, ``input_required`` (an MRTR round), or ``error`` (a JSON-RPC error response)."""
    if "error" in response:
        return "error"
    result = response.get("result")
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        return "input_required"
    return "ok"


def result_kind(response: Message) -> str:
    """ok | error | input_required | another ``resultType`` (e.g. incomplete: a listen stream that ended) for a
    canonical response; ``complete`` (or none) is ok (2026-07-28 ``resultType``)."""
    if "error" in response:
        return "error"
    result = response.get("result")
    if isinstance(result, dict):
        kind = result.get("resultType")
        if kind == "input_required":
            return "input_required"
        if isinstance(kind, str) and kind not in ("complete", ""):
            return kind
    return "ok"


def era_typical_failure(response: Message) -> bool:
    """Does this error response suggest the server no longer speaks the era we think it does?"""
    err = response.get("error")
    if not isinstance(err, dict):
        return False
    data = err.get("data")
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return True
    return err.get("code") in ERA_TYPICAL_CODES


def with_trace_meta(request: Message, trace: dict[str, str]) -> Message:
    """Copy W3C trace context into ``params._meta`` (keys not already there)."""
    if not trace:
        return request
    params = request.get("params")
    params = dict(params) if isinstance(params, dict) else {}
    meta = dict(params.get("_meta") or {})
    for key in eras.TRACE_META_KEYS:
        if key in trace and key not in meta:
            meta[key] = trace[key]
    params["_meta"] = meta
    return {**request, "params": params}


def trace_id(trace: dict[str, str]) -> str | None:
    """The trace id of a W3C ``traceparent`` (version-traceid-parentid-flags), None when it has another shape."""
    parts = trace.get("traceparent", "").split("-")
    return parts[1] if len(parts) == 4 else None


def server_state(started: bool, last_error: str | None) -> str:
    """A fleet server's state: ``ok`` or ``degraded`` (it failed last) once its upstream exists, else ``down`` after
    a failure or ``not started``."""
    if started:
        return "degraded" if last_error else "ok"
    return "down" if last_error else "not started"


# --- health ----------------------------------------------------------------------------------------


def check_due(last_at: float | None, now: float, interval: float) -> bool:
    """Whether the upstream is checked again, or the last verdict (taken at ``last_at``) still stands."""
    return last_at is None or now - last_at >= interval


def http_reachability(url: str, status: int) -> tuple[bool, str]:
    """An HTTP upstream is up when it answers a 2026 ``server/discover`` below 500 (a 2025 server answers
    400/404/405: up, just older)."""
    up = status < SERVER_ERROR_STATUSES_FROM
    return up, "" if up else f"{url} answered HTTP {status}"


def answer_reachability(response: Message) -> tuple[bool, str]:
    """A stdio upstream is up when a ``server/discover`` round trip through it is not an error."""
    if "error" in response:
        err = response["error"]
        return False, f"upstream answered {err.get('code')}: {err.get('message')}"
    return True, ""


def health_body(ok: bool, reason: str, target: str, status: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """/healthz: the body and its HTTP status (503 while the upstream cannot be reached)."""
    body: dict[str, Any] = {"status": "ok" if ok else "down", "target": target, "upstream": status}
    if not ok:
        body["reason"] = reason
    return body, OK_STATUS if ok else UNAVAILABLE_STATUS


def with_store(body: dict[str, Any], store: str, store_ok: bool) -> dict[str, Any]:
    """/healthz of a scaled-out instance: the shared store's state beside the upstream's; an instance whose upstream
    answers but whose store does not is ``degraded`` (still 200: the process is alive and answers what it holds)."""
    body["store"] = {"name": store, "ok": store_ok}
    if body.get("status") == "ok" and not store_ok:
        body["status"] = "degraded"
    return body


def ready_with_store(ok: bool, reason: str, store: str, store_ok: bool) -> tuple[bool, str]:
    """/readyz of a scaled-out instance: not ready while its shared store does not answer."""
    if ok and not store_ok:
        return False, f"shared store {store} unreachable"
    return ok, reason


def readiness(ok: bool, reason: str) -> tuple[str, int]:
    """/readyz: the text and its HTTP status."""
    return ("ready\n", OK_STATUS) if ok else (f"not ready: {reason}\n", UNAVAILABLE_STATUS)


def upstream_families(up: bool, era: str | None) -> list[Family]:
    """/metrics of single-server mode: whether the last check succeeded and the era the upstream speaks."""
    return [
        ("upstream_up", "gauge", "1 when the last reachability check of the upstream succeeded.", [({}, 1.0 if up else 0.0)]),
        ("upstream_era", "gauge", "The era the upstream speaks (1 for the detected era).", [({"era": str(era)}, 1.0)] if era else []),
    ]


def fleet_health_status(body: dict[str, Any], strict: bool) -> int:
    """Fleet /healthz: 200 with every server's state (the bridge is up); with ``?strict=1``, 503 while any
    server is not ``ok`` or cannot reach its shared store. Adds ``down`` (the servers that are not ``ok``) and
    ``store_down`` (those whose scale-out store does not answer), and sets ``status`` to what the answer says:
    ``ok`` or ``degraded`` -- never ``ok`` beside a 503."""
    servers = body.get("servers") or {}
    body["down"] = sorted(name for name, server in servers.items() if server.get("state") != "ok")
    body["store_down"] = store_down({name: (server.get("cluster") or {}).get("store_ok") for name, server in servers.items()})
    body["status"] = "degraded" if body["down"] or body["store_down"] else "ok"
    return UNAVAILABLE_STATUS if strict and body["status"] != "ok" else OK_STATUS


def store_down(store_ok: dict[str, bool | None]) -> list[str]:
    """The servers whose shared store (scale-out) did not answer its last heartbeat; None: no store."""
    return sorted(name for name, ok in store_ok.items() if ok is False)


DOWN_STATES = ("down", "not started")


def server_health(status: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """/servers/NAME/healthz: the server's status and 503 with a ``reason`` while it has no upstream (``down``,
    ``not started``) or its shared store does not answer; 200 while it serves (``ok``, or ``degraded``: up, but
    its last call failed)."""
    body = dict(status)
    reasons = []
    if status.get("state") in DOWN_STATES:
        reasons.append(f"{status.get('state')}: {status.get('last_error') or 'no upstream yet'}")
    if (status.get("cluster") or {}).get("store_ok") is False:
        reasons.append(f"shared store {status['cluster'].get('store')} unreachable")
    if not reasons:
        return body, OK_STATUS
    body["reason"] = "; ".join(reasons)
    return body, UNAVAILABLE_STATUS


def fleet_readiness(config_loaded: bool, starting: list[str], no_store: list[str] | None = None) -> tuple[str, int]:
    """Fleet /readyz: ready once the config is loaded, every server has made its first start attempt and every
    scale-out server reaches its shared store (``no_store``: those that do not)."""
    if not config_loaded:
        return "not ready: config not loaded\n", UNAVAILABLE_STATUS
    if starting:
        return f"not ready: starting {', '.join(sorted(starting))}\n", UNAVAILABLE_STATUS
    if no_store:
        return f"not ready: shared store unreachable for {', '.join(sorted(no_store))}\n", UNAVAILABLE_STATUS
    return "ready\n", OK_STATUS


# --- the cluster counters ----------------------------------------------------------------------------

CLUSTER_METRICS = (
    ("forwarded_out", "cluster_forwarded_total", "MRTR retries and task requests sent to the instance holding them."),
    ("forwarded_in", "cluster_forwarded_in_total", "Requests other instances forwarded to this one."),
    ("forward_failures", "cluster_forward_failures_total", "Forwards whose owner was gone or did not answer."),
    ("sessions_out", "cluster_sessions_relayed_total", "2025 session requests relayed to the session's instance."),
    ("sessions_adopted", "cluster_sessions_adopted_total", "2025 sessions taken over from a gone instance."),
    ("sessions_replayed", "cluster_events_replayed_total", "GET-stream events replayed from the store after an adoption."),
    ("tasks_taken_over", "cluster_tasks_taken_over_total", "Task records taken over from a gone instance."),
    ("store_errors", "cluster_store_errors_total", "Shared state store operations that failed."),
    ("store_reconnects", "cluster_store_reconnects_total", "Times the store answered again after failing."),
)
"""(counter key of an instance's cluster counters, metric name, help) for /metrics of a scaled-out instance."""


def cluster_families(counters: dict[str, tuple[str, dict[str, int]]]) -> list[Family]:
    """Prometheus families of the cluster counters, one sample per instance: ``counters`` maps a fleet server's
    name ("" in single-server mode) to (instance id, its counters)."""
    if not counters:
        return []
    out: list[Family] = []
    for key, metric, help_ in CLUSTER_METRICS:
        samples = [({"instance": inst, **({"server": name} if name else {})}, float(values.get(key, 0)))
                   for name, (inst, values) in counters.items()]
        out.append((metric, "counter", help_, samples))
    return out
