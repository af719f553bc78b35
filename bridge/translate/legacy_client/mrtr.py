"""Direction B, pure: the MRTR round driver of a 2025 request served by a 2026-07-28 upstream.

A 2026 server that needs client input answers ``input_required`` (2026-07-28 basic/patterns/mrtr.mdx
§InputRequiredResult); a 2025 client only knows server->client requests. The driver turns each round's
``inputRequests`` into real 2025 requests (2025-11-25 client/elicitation.mdx, client/sampling.mdx,
client/roots.mdx), collects the client's answers, and retries the original request with
``inputResponses`` and the byte-identical ``requestState`` (2026-07-28 basic/patterns/mrtr.mdx
§Request State), until the upstream answers ``complete``, up to a round cap.

``RoundsState`` is plain data (``to_json``/``from_json``); ``on_upstream`` and ``on_answers`` return the
steps the shell executes, in the vocabulary both MRTR directions share (``mcp_eras.bridge.translate.mrtr_steps``):
notifications for the client (``ToClient``), then ``AskClient`` (the round's 2025 requests by input key),
``Resume`` (call the upstream again, after a delay) or ``Finish``. Ids and elicitation ids come in as arguments
(callables), never from a clock or RNG in here.

Rules, each with its section:

* only tools/call, prompts/get and resources/read carry input_required
  (2026-07-28 basic/patterns/mrtr.mdx §Supported Requests);
* input is asked only within the client's declared capabilities (2026-07-28 basic/patterns/mrtr.mdx
  §Server Requirements (Basic Workflow); 2025-11-25 basic/lifecycle.mdx §Capability Negotiation);
* a retry has the same params, ``inputResponses`` keyed as asked and ``requestState`` echoed verbatim
  (2026-07-28 basic/patterns/mrtr.mdx §Client Requirements (Basic Workflow));
* a round with only ``requestState`` is retried after a growing delay (2026-07-28 basic/patterns/mrtr.mdx
  §InputRequiredResult);
* URL elicitations get an ``elicitationId``; accepted ones are completed with
  ``notifications/elicitation/complete`` once the upstream stops asking (2025-11-25 client/elicitation.mdx
  §URL Mode Elicitation Requests, §Completion Notifications for URL Mode Elicitation);
* a declined or failed elicitation is ``{"action": "cancel"}``; a failed sampling or roots request ends the
  call (2025-11-25 client/elicitation.mdx §Response Actions);
* past ``max_rounds`` rounds the call ends with -32603 naming the cap (every loop is bounded).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc, trace_context
from mcp_eras.bridge.translate.eras import INPUT_REQUEST_METHODS, MRTR_METHODS
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, GiveUp, Resume, Step, to_client

REQUEST_STATE_ONLY_DELAY = 0.05
"""Seconds per round before retrying a round that carries only requestState (load shedding), capped at 1 s."""

@dataclass
class PendingInput:
    """One input request of an ``input_required`` round, sent to the legacy client as a real request."""

    key: str
    method: str
    request: Message
    """The 2025 server->client JSON-RPC request (bridge-minted id)."""
    elicitation_id: str | None = None


def input_round(
    result: dict[str, Any],
    client_caps: dict[str, Any],
    mint_id: Callable[[], RequestId],
    mint_elicitation_id: Callable[[], str],
) -> list[PendingInput]:
    """An ``InputRequiredResult``'s ``inputRequests`` as legacy server->client requests.

    Raises GiveUp when the result is malformed or asks for something the client did not declare
    (2026 servers MUST NOT do that; relaying it would break the 2025 client's expectations).
    """
    requests = result.get("inputRequests")
    if requests is None:
        requests = {}
    if not isinstance(requests, dict):
        raise GiveUp("Upstream input_required result has malformed inputRequests")
    if not requests and not isinstance(result.get("requestState"), str):
        raise GiveUp("Upstream input_required result carries neither inputRequests nor requestState")
    out: list[PendingInput] = []
    for key, req in requests.items():
        if not isinstance(req, dict) or req.get("method") not in INPUT_REQUEST_METHODS:
            raise GiveUp(f"Upstream input request {key!r} is not an elicitation, sampling or roots request")
        if not lf.client_declares(client_caps, req):
            raise GiveUp(
                f"Upstream asked for input {key!r} ({req['method']}) that the client did not declare a capability for",
                {"inputRequest": req},
            )
        method = req["method"]
        params = dict(req["params"]) if isinstance(req.get("params"), dict) else None  # only a top-level key is added
        elicitation_id = None
        if method == "elicitation/create" and params is not None and params.get("mode") == "url":
            elicitation_id = mint_elicitation_id()
            params["elicitationId"] = elicitation_id
        out.append(PendingInput(key=key, method=method, request=jsonrpc.request(mint_id(), method, params),
                                elicitation_id=elicitation_id))
    return out


def input_response(pending: PendingInput, response: Message) -> Any:
    """A legacy client's answer to one input request as the 2026 ``InputResponse`` value.

    Elicitation errors become ``{"action": "cancel"}``; sampling and roots errors raise GiveUp.
    """
    if "error" in response:
        if pending.method == "elicitation/create":
            return {"action": "cancel"}
        err = response["error"]
        raise GiveUp(f"The client failed input request {pending.key!r} ({pending.method})", {"inputKey": pending.key, "error": err})
    result = response.get("result")
    if not isinstance(result, dict):
        raise GiveUp(f"The client answered input request {pending.key!r} with a malformed result")
    value = {k: v for k, v in result.items() if k != "resultType"}
    if pending.method in ("elicitation/create", "roots/list"):
        value.pop("_meta", None)
    return value


def retry_request(canonical: Message, id: RequestId, input_responses: dict[str, Any], request_state: Any) -> Message:
    """The next MRTR round: original params, fresh id, ``inputResponses`` and the byte-identical ``requestState``."""
    params = {k: v for k, v in canonical["params"].items() if k not in ("inputResponses", "requestState")}
    if input_responses:
        params["inputResponses"] = input_responses
    if isinstance(request_state, str):
        params["requestState"] = request_state
    return jsonrpc.request(id, canonical["method"], params)


def accepted_url_elicitations(round_inputs: list[PendingInput], responses: dict[str, Any]) -> dict[str, str]:
    """``{input key: elicitationId}`` for the URL elicitations of a round that the client accepted."""
    out: dict[str, str] = {}
    for p in round_inputs:
        answer = responses.get(p.key)
        if p.elicitation_id and isinstance(answer, dict) and answer.get("action") == "accept":
            out[p.key] = p.elicitation_id
    return out


def finished_url_elicitations(accepted: dict[str, str], response: Message) -> list[tuple[str, str]]:
    """Accepted URL elicitations the upstream no longer asks for after a retry (all of them once it stops asking)."""
    if not accepted:
        return []
    still: set[str] = set()
    if lf.result_type(response) == "input_required":
        requests = response["result"].get("inputRequests")
        if isinstance(requests, dict):
            still = {k for k, v in requests.items() if isinstance(v, dict) and v.get("method") == "elicitation/create"
                     and isinstance(v.get("params"), dict) and v["params"].get("mode") == "url"}
    return [(key, eid) for key, eid in accepted.items() if key not in still]


def elicitation_complete(elicitation_id: str) -> Message:
    return jsonrpc.notification("notifications/elicitation/complete", {"elicitationId": elicitation_id})


def cancel_notification(request_id: RequestId, reason: str | None = None) -> Message:
    params: dict[str, Any] = {"requestId": request_id}
    if reason:
        params["reason"] = reason
    return jsonrpc.notification("notifications/cancelled", params)


def is_mrtr_method(method: str) -> bool:
    """2026-07-28 basic/patterns/mrtr.mdx §Supported Requests."""
    return method in MRTR_METHODS


# ==============================================================================================
# The round driver
# ==============================================================================================


@dataclass
class RoundsState:
    """One 2025 request's walk through the upstream's rounds; JSON-serializable."""

    method: str
    legacy_id: RequestId
    canonical: Message
    """The canonical request of round one (retries are built from it, never from a previous retry)."""
    legacy_params: dict[str, Any] | None
    max_rounds: int
    rounds: int = 0
    accepted_urls: dict[str, str] = field(default_factory=dict)
    """Input key -> elicitationId of URL elicitations the client accepted and the upstream still may ask."""
    pending: list[PendingInput] = field(default_factory=list)
    request_state: Any = None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "pending": [asdict(p) for p in self.pending]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundsState:
        return cls(**{**data, "pending": [PendingInput(**p) for p in data.get("pending") or []]})


def start(msg: Message, canonical: Message, max_rounds: int) -> RoundsState:
    """The rounds of one request. ``msg`` and ``canonical`` are kept, not copied: nothing changes them in place
    (this module builds every retry anew from ``canonical``; ``legacy_params`` is only read, to word errors)."""
    params = msg.get("params")
    return RoundsState(method=msg["method"], legacy_id=msg["id"], canonical=canonical,
                       legacy_params=params if isinstance(params, dict) else None, max_rounds=max_rounds)


def _completions(state: RoundsState, response: Message) -> list[Message]:
    # The upstream moved past a URL elicitation once it stops asking it: tell the client it completed.
    notes = []
    for key, eid in finished_url_elicitations(state.accepted_urls, response):
        state.accepted_urls.pop(key, None)
        notes.append(elicitation_complete(eid))
    return notes


def on_upstream(state: RoundsState, response: Message, client_caps: dict[str, Any],
                mint_id: Callable[[], RequestId], mint_elicitation_id: Callable[[], str]) -> list[Step]:
    """The steps after the upstream answered round ``state.rounds``: notifications for the client, then the step
    that asks the client (``AskClient``), calls the upstream again (``Resume``) or ends the request (``Finish``)."""
    steps = to_client(_completions(state, response))
    rid = state.legacy_id
    state.pending = []
    if lf.result_type(response) != "input_required":
        steps.append(Finish(lf.to_legacy_response(state.method, response, rid, state.legacy_params)))
        return steps
    try:
        if not is_mrtr_method(state.method):
            raise GiveUp(f"Upstream returned input_required for {state.method}, which cannot carry it")
        state.rounds += 1
        if state.rounds > state.max_rounds:
            raise GiveUp(f"Upstream still requires input after {state.max_rounds} rounds; giving up", {"maxRounds": state.max_rounds})
        result = response["result"]
        state.pending = input_round(result, client_caps, mint_id, mint_elicitation_id)
        trace_context.onto_client_requests([p.request for p in state.pending], state.canonical)  # (same trace: issue #32)
    except GiveUp as give_up:
        steps.append(give_up.finish(rid))
        return steps
    state.request_state = result.get("requestState")
    if not state.pending:
        delay = min(REQUEST_STATE_ONLY_DELAY * state.rounds, 1.0)
        steps.append(Resume(retry_request(state.canonical, rid, {}, state.request_state), delay))
    else:
        steps.append(AskClient({p.key: p.request for p in state.pending}))
    return steps


def on_answers(state: RoundsState, answers: dict[str, Message]) -> list[Step]:
    """The client answered (or failed) every question of the round, by input key: the retry, or the end."""
    try:
        responses = {p.key: input_response(p, answers[p.key]) for p in state.pending}
    except GiveUp as give_up:
        return [give_up.finish(state.legacy_id)]
    state.accepted_urls.update(accepted_url_elicitations(state.pending, responses))
    return [Resume(retry_request(state.canonical, state.legacy_id, responses, state.request_state))]


def unanswered(out_id: RequestId) -> Message:
    """What stands in for a client that did not answer a question in time (the round then aborts or cancels)."""
    return jsonrpc.error_response(out_id, errors.INTERNAL_ERROR, "The client did not answer in time")
