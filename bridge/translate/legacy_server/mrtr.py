"""Direction A, pure: the MRTR round machine for one upstream call (park, resume, ask again).

A 2025-era server asks its client mid-call with server->client requests (``elicitation/create``,
``sampling/createMessage``, ``roots/list``). A 2026 client cannot receive those; it gets them as the
``inputRequests`` of an ``input_required`` result and retries the original request with
``inputResponses`` (2026-07-28 basic/patterns/mrtr.mdx §Basic Workflow). This machine decides:

* which server requests of the call form one round (requests that arrive within ``COALESCE_MS`` of the
  previous one are asked together; the shell runs the deadline the machine names),
* whether the client may be asked at all (-32021 when it did not declare the capability),
* which answers go upstream on a retry and what must be asked again when some are missing,
* how a request nobody will answer is refused (the 2025 client's answer for "no").

No clock and no I/O: times arrive as ``now_ms`` arguments, decisions leave as return values, and the
state (``Rounds``) is plain data that round-trips through JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, USER_REJECTED, Message, RequestId

COALESCE_MS = 50
"""Server requests that arrive within this window of the previous one are asked in one round."""

MAX_HELD_INPUTS = 64
"""More concurrent server requests than this in one round are refused (a round is bounded)."""


# ---------------------------------------------------------------------------------------------
# Rules as tables
# ---------------------------------------------------------------------------------------------

def _sampling_need(params: dict[str, Any]) -> dict[str, Any]:
    # 2025-11-25 client/sampling.mdx §Capabilities: tool use needs `sampling.tools`. `includeContext`
    # needs only `sampling`: servers SHOULD NOT rely on `sampling.context` (same section), so a bridge
    # must not be stricter than the client it fronts.
    return {"tools": {}} if params.get("tools") is not None or params.get("toolChoice") is not None else {}


REQUIRED_CAPABILITY: dict[str, Any] = {
    # 2026-07-28 basic/patterns/mrtr.mdx §Server Requirements (Basic Workflow): servers MUST NOT send an
    # inputRequest the client has not declared support for.
    "roots/list": lambda _p: {"roots": {}},  # 2025-11-25 client/roots.mdx §Capabilities
    "sampling/createMessage": lambda p: {"sampling": _sampling_need(p)},
    # 2025-11-25 client/elicitation.mdx §Capabilities: `elicitation: {}` means form mode only, so form
    # needs just `elicitation` (as the spec's MissingRequiredClientCapabilityError example says).
    "elicitation/create": lambda p: {"elicitation": {} if p.get("mode", "form") == "form" else {p["mode"]: {}}},
}

REFUSAL: dict[str, tuple[Message | None, Message | None]] = {
    # The answer a 2025 client gives when it will not provide the input: (result, error).
    "elicitation/create": ({"action": "cancel"}, None),  # 2025-11-25 client/elicitation.mdx §Response Actions
    # 2025-11-25 client/sampling.mdx §Error Handling
    "sampling/createMessage": (None, {"code": USER_REJECTED, "message": "User rejected sampling request"}),
    "roots/list": (None, {"code": INTERNAL_ERROR, "message": "No roots available"}),  # client/roots.mdx §Error Handling
}


def required_capability(method: str, params: Any) -> dict[str, Any] | None:
    """The ClientCapabilities a 2026 client must have declared for the server to ask this input."""
    rule = REQUIRED_CAPABILITY.get(method)
    return rule(params if isinstance(params, dict) else {}) if rule is not None else None


def has_capability(declared: dict[str, Any], required: dict[str, Any]) -> bool:
    for key, sub in required.items():
        have = declared.get(key)
        if not isinstance(have, dict):
            return False
        if any(sub_key not in have for sub_key in sub):
            return False
    return True


def missing_capability(declared: dict[str, Any], requests: list[Message]) -> dict[str, Any] | None:
    for req in requests:
        need = required_capability(req.get("method", ""), req.get("params"))
        if need is not None and not has_capability(declared, need):
            return need
    return None


def refusal(method: str) -> tuple[Message | None, Message | None]:
    return REFUSAL.get(method, (None, {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}))


def refusal_frame(server_id: RequestId, method: str) -> Message:
    """The 2025 response that declines one server->client request."""
    result, error = refusal(method)
    if result is not None:
        return jsonrpc.result_response(server_id, result)
    assert error is not None
    return jsonrpc.error_response(server_id, error["code"], error["message"])


def undeclared_frame(server_id: RequestId, method: str) -> Message:
    """The answer of a client that did not declare the capability a server->client request needs: it
    does not implement the method (2025-11-25 client/roots.mdx §Error Handling: "Client does not
    support roots: -32601"; likewise for sampling and elicitation, which the client never offered)."""
    return jsonrpc.error_response(server_id, METHOD_NOT_FOUND, f"Method not found: {method}")


def unasked_frame(server_id: RequestId, method: str) -> Message:
    """The answer to a session-level request no client request arrived to carry before its deadline:
    an error (2025-11-25 client/roots.mdx §Error Handling: internal error), never an empty answer
    that would read as "the client has no roots" or "the user declined"."""
    return jsonrpc.error_response(server_id, INTERNAL_ERROR,
                                  f"No client request arrived in time to carry {method} to the client")


def input_request(method: str, params: Any) -> tuple[dict[str, Any], str | None]:
    """A legacy server->client request as a 2026 ``inputRequests`` entry; also returns its elicitationId.

    2026-07-28 basic/patterns/mrtr.mdx §InputRequests: the values are request objects without id.
    """
    params = dict(params) if isinstance(params, dict) else {}
    elicitation_id = params.pop("elicitationId", None) if method == "elicitation/create" else None
    params.pop("_meta", None)
    params.pop("task", None)
    entry: dict[str, Any] = {"method": method}
    if method != "roots/list":
        entry["params"] = params
    return entry, elicitation_id if isinstance(elicitation_id, str) else None


def input_response_to_legacy(response: Any) -> Any:
    """An ``inputResponses`` value as the result of the upstream's server->client request."""
    if not isinstance(response, dict):
        return response
    return {k: v for k, v in response.items() if k != "resultType"}


def missing_capability_error(client_id: RequestId, need: dict[str, Any]) -> Message:
    # 2026-07-28 basic/index.mdx §Error Codes: -32021 MissingRequiredClientCapability.
    return jsonrpc.error_response(
        client_id, MISSING_CLIENT_CAPABILITY, f"Server requires the {next(iter(need))} capability for this request",
        {"requiredCapabilities": need},
    )


# ---------------------------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------------------------

@dataclass
class Decision:
    """What closing a round decided: park with ``input_requests``, or fail with ``error`` after
    sending ``refusals`` upstream. ``wake_at`` asks the shell to call ``close`` again later."""

    input_requests: dict[str, Any] | None = None
    error: Message | None = None
    refusals: list[Message] = field(default_factory=list)
    wake_at: int | None = None


@dataclass
class Rounds:
    """The MRTR state of one upstream call. ``pending``: key -> [server id, method, inputRequests entry]."""

    round: int = 0
    pending: dict[str, list[Any]] = field(default_factory=dict)
    batch: list[Message] = field(default_factory=list)
    wake_at: int | None = None

    # --- events --------------------------------------------------------------------------------

    def on_input(self, request: Message, now_ms: int) -> int | None:
        """A server->client request arrived. Returns the deadline at which the round closes (the shell
        calls ``close(now_ms)`` then), or None when the round was already full (refuse it)."""
        if len(self.batch) + len(self.pending) >= MAX_HELD_INPUTS:
            return None
        self.batch.append(request)
        self.wake_at = now_ms + COALESCE_MS
        return self.wake_at

    def coalescing(self) -> bool:
        return bool(self.batch)

    def close(self, declared: dict[str, Any], client_id: RequestId, now_ms: int | None = None) -> Decision:
        """Close the round (``now_ms`` None: close it now, e.g. because the call's response came)."""
        if now_ms is not None and self.wake_at is not None and now_ms < self.wake_at:
            return Decision(wake_at=self.wake_at)
        batch, self.batch, self.wake_at = self.batch, [], None
        need = missing_capability(declared, batch)
        if need is not None:
            refusals = [refusal_frame(r["id"], r["method"]) for r in batch]
            refusals += [refusal_frame(sid, method) for sid, method, _e in self.pending.values()]
            self.pending.clear()
            return Decision(error=missing_capability_error(client_id, need), refusals=refusals)
        for req in batch:
            entry, _eid = input_request(req["method"], req.get("params"))
            self.pending[f"s{req['id']}"] = [req["id"], req["method"], entry]
        self.round += 1
        return Decision(input_requests={key: entry for key, (_sid, _m, entry) in self.pending.items()})

    def withdraw(self, server_id: Any) -> None:
        """The server cancelled one of its requests (2025-11-25 basic/utilities/cancellation.mdx)."""
        self.batch = [r for r in self.batch if r.get("id") != server_id]
        for key in [k for k, (sid, _m, _e) in self.pending.items() if sid == server_id]:
            del self.pending[key]

    def answer(self, responses: Any) -> tuple[list[Message], dict[str, Any] | None]:
        """The client retried with ``inputResponses``: the upstream answers to send, and the input
        requests to ask again (None when every pending request got its answer).

        2026-07-28 basic/patterns/mrtr.mdx §Error Handling: unknown keys are ignored; when some are
        missing the server SHOULD answer with a new InputRequiredResult for exactly those.
        """
        responses = responses if isinstance(responses, dict) else {}
        frames = []
        for key, (sid, _method, _entry) in list(self.pending.items()):
            value = responses.get(key)
            if isinstance(value, dict):
                del self.pending[key]
                frames.append(jsonrpc.result_response(sid, input_response_to_legacy(value)))
        if not self.pending:
            return frames, None
        self.round += 1
        return frames, {key: entry for key, (_sid, _m, entry) in self.pending.items()}

    def refuse_all(self) -> list[Message]:
        """The call is given up: decline everything still asked (upstream handlers unblock)."""
        frames = [refusal_frame(r["id"], r["method"]) for r in self.batch]
        frames += [refusal_frame(sid, method) for sid, method, _e in self.pending.values()]
        self.batch, self.pending, self.wake_at = [], {}, None
        return frames

    # --- plain data ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rounds:
        return cls(**data)
