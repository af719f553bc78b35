"""Direction A, pure: one canonical 2026 request served by a 2025-era server, as a sans-I/O machine.

Events in (the upstream's frames for this call, the round deadline, the client's retry, a cancel),
steps out in the MRTR vocabulary both directions share (``mcp_eras.bridge.translate.mrtr_steps``): frames for
the server (``ToServer``), notifications for the client (``ToClient``), a deadline to run (``Wake``), a round
to ask the client (``AskClient``: the call parks until the retry), the final response (``Finish``). The shell
(``mcp_eras.bridge.upstream.legacy``) executes the steps; it never looks inside a frame.
``LegacyCall`` is plain data: ``to_json``/``from_json`` round-trip it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc, progress
from mcp_eras.bridge.translate.eras import MRTR_METHODS, request_meta
from mcp_eras.bridge.translate.jsonrpc import INVALID_PARAMS, Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server.mrtr import Rounds, refusal_frame
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, Step, ToClient, ToServer, Wake

MAX_HELD_NOTES = 256
"""Request-scoped notifications kept while a call is parked (delivered on the retry's stream)."""


@dataclass
class LegacyCall:
    """One upstream request in flight, possibly spanning several client requests (MRTR rounds)."""

    upstream_id: int
    method: str
    client_id: RequestId | None = None
    caps: dict[str, Any] = field(default_factory=dict)
    params: Any = None
    client_token: str | int | None = None
    log_level: str | None = None
    last_progress: float | None = None
    phase: str = "running"
    """running | parked | done"""
    held: list[Message] = field(default_factory=list)
    early: Message | None = None
    """The upstream's response when it arrived while a round was closing (delivered on the retry)."""
    rounds: Rounds = field(default_factory=Rounds)
    server_info: dict[str, Any] | None = None
    ttl_ms: int = 0
    cache_scope: str = "private"
    deferred: Message | None = None
    """The upstream request itself while it waits for the session-start requests asked before it (``settle_first``)."""
    settle_ms: int = 0
    release_at: int | None = None
    """When ``deferred`` goes upstream: ``settle_ms`` after the last answer went (the server applies them first)."""

    # --- start -----------------------------------------------------------------------------------

    @classmethod
    def begin(cls, request: Message, upstream_id: int, *, server_info: dict[str, Any] | None = None, ttl_ms: int = 0,
              cache_scope: str = "private", meta: dict[str, Any] | None = None) -> tuple[LegacyCall, list[Step]]:
        """``meta``: the request's ``_meta`` when already looked up."""
        client_id, params, caps, client_token, log_level = _riding(request, meta)  # (``_bind``, made with the call)
        call = cls(upstream_id, request["method"], client_id, caps, params, client_token, log_level,
                   server_info=server_info, ttl_ms=ttl_ms, cache_scope=cache_scope)
        # 2025-11-25 basic/utilities/progress.mdx §Progress Flow: the token is the bridge's own (its
        # upstream id); the client's token is restored on the way back.
        token = upstream_id if call.client_token is not None else None
        return call, [ToServer(tx.to_legacy_request(request, upstream_id, token))]

    def settle_first(self, begun: list[Step], held: list[Message], now_ms: int, settle_ms: int = 0) -> list[Step]:
        """The session asked its client something before this call could carry it (a 2025 server may send
        ``roots/list`` right after ``notifications/initialized``, 2025-11-25 client/roots.mdx §Listing Roots; the
        pool held it, ``Pool.hold``). What the server does with the answer can decide what the call may do (the
        directories a file server grants), so the client is asked first and the call (``begun``, the steps of
        ``begin``) goes upstream only after the answers (2026-07-28 basic/patterns/mrtr.mdx §Basic Workflow: one
        ``input_required`` round). The spec gives no signal that the server has applied an answer (server-filesystem
        resolves the roots' directories after answering), so the call follows ``settle_ms`` after the answers.
        A request the client cannot be asked is declined and the call goes on."""
        if not held:
            return begun
        refused: list[Step] = []
        for frame in held:
            if self.rounds.on_input(frame, now_ms) is None:
                refused.append(ToServer(refusal_frame(frame["id"], frame["method"])))
        decision = self.rounds.close(self.caps, self.client_id)
        if decision.input_requests is None:  # nothing the client could be asked: declined, the call goes on
            return refused + [ToServer(f) for f in decision.refusals] + begun
        first = begun[0]
        assert isinstance(first, ToServer)
        self.deferred, self.phase, self.settle_ms = first.frame, "parked", settle_ms
        return refused + [AskClient(decision.input_requests)]

    def _bind(self, request: Message) -> None:
        """The client request currently riding this upstream call (changes on each MRTR retry)."""
        self.client_id, self.params, self.caps, self.client_token, self.log_level = _riding(request)
        self.last_progress = None

    # --- events ------------------------------------------------------------------------------------

    def on_upstream(self, msg: Message, now_ms: int) -> list[Step]:
        """A frame the session attributed to this call: its response, a server request, a notification."""
        if self.phase == "done":
            return []
        if jsonrpc.is_response(msg):
            if self.rounds.coalescing() or self.phase == "parked":
                self.early = msg
                return self._close_round(None) if self.rounds.coalescing() else []
            return self._finish(msg)
        if jsonrpc.is_request(msg):
            if self.method not in MRTR_METHODS:
                # 2026-07-28 basic/patterns/mrtr.mdx §Supported Requests: only tools/call, prompts/get and
                # resources/read may answer input_required; anything else is declined upstream.
                return [ToServer(refusal_frame(msg["id"], msg["method"]))]
            at = self.rounds.on_input(msg, now_ms)
            return [Wake(at)] if at is not None else [ToServer(refusal_frame(msg["id"], msg["method"]))]
        if msg.get("method") == "notifications/cancelled":
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            self.rounds.withdraw(params.get("requestId"))
            return []
        if self.phase == "parked":
            if len(self.held) < MAX_HELD_NOTES:
                self.held.append(msg)
            return []
        return self._note(msg)

    def on_timer(self, now_ms: int) -> list[Step]:
        if self.phase != "running":
            return []
        if self.deferred is not None and self.release_at is not None:
            if now_ms < self.release_at:
                return [Wake(self.release_at)]
            return self._release()
        if not self.rounds.coalescing():
            return []
        return self._close_round(now_ms)

    def _release(self) -> list[Step]:
        frame, self.deferred, self.release_at = self.deferred, None, None
        return [ToServer(frame)] if frame is not None else []

    def resume(self, request: Message, now_ms: int | None = None) -> list[Step]:
        """The client's retry with ``inputResponses`` (its requestState already verified by the shell)."""
        if self.phase != "parked":
            return [Finish(_invalid_state(request.get("id")))]
        responses = (request.get("params") or {}).get("inputResponses")
        if responses is not None and not isinstance(responses, dict):
            # 2026-07-28 basic/patterns/mrtr.mdx §Error Handling: a malformed InputResponses is a protocol error.
            actions = self.cancel("malformed inputResponses")
            return actions + [Finish(jsonrpc.error_response(request.get("id"), INVALID_PARAMS,
                                                           "Invalid params: inputResponses must be an object"))]
        self._bind(request)
        self.phase = "running"
        frames, again = self.rounds.answer(responses)
        actions: list[Step] = [ToServer(f) for f in frames]
        if again is not None:
            self.phase = "parked"
            return actions + [AskClient(again)]
        if self.deferred is not None:  # the session-start requests are answered: now (or soon) the call goes upstream
            if self.settle_ms > 0 and now_ms is not None:
                self.release_at = now_ms + self.settle_ms
                return actions + [Wake(self.release_at)]
            return actions + self._release()
        held, self.held = self.held, []
        for note in held:
            actions += self._note(note)
        if self.early is not None:
            early, self.early = self.early, None
            actions += self._finish(early)
        return actions

    def cancel(self, reason: str) -> list[Step]:
        """The bridge gives up on the call (client cancel, timeout, parked call expired)."""
        if self.phase == "done":
            return []
        self.phase = "done"
        # 2025-11-25 basic/utilities/cancellation.mdx §Cancellation Flow: tell the server explicitly.
        frames = self.rounds.refuse_all()
        if self.deferred is not None:  # the server never saw the call: nothing to cancel
            return [ToServer(f) for f in frames]
        frames.append(jsonrpc.notification("notifications/cancelled", {"requestId": self.upstream_id, "reason": reason}))
        return [ToServer(f) for f in frames]

    # --- internals ---------------------------------------------------------------------------------

    def _close_round(self, now_ms: int | None) -> list[Step]:
        decision = self.rounds.close(self.caps, self.client_id, now_ms)
        if decision.wake_at is not None:
            return [Wake(decision.wake_at)]
        if decision.error is not None:
            actions: list[Step] = [ToServer(f) for f in decision.refusals]
            actions += self.cancel("client lacks a required capability")
            return actions + [Finish(decision.error)]
        assert decision.input_requests is not None
        self.phase = "parked"
        return [AskClient(decision.input_requests)]

    def _note(self, msg: Message) -> list[Step]:
        method = msg.get("method")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "notifications/progress":
            # 2025-11-25 basic/utilities/progress.mdx §Progress Flow: progress MUST increase; a
            # notification that does not is dropped (after a retry the count starts afresh).
            nxt = progress.advance(self.last_progress, params.get("progress"))
            if self.client_token is None or nxt is None:
                return []
            self.last_progress = nxt
            return [ToClient(tx.progress_to_client(msg, self.client_token))]
        if method == "notifications/message" and tx.log_passes(params.get("level"), self.log_level):
            # 2026-07-28 server/utilities/logging.mdx: logs only to a request that opted in (logLevel).
            return [ToClient(tx.strip_notification_meta(msg))]
        return []

    def _finish(self, msg: Message) -> list[Step]:
        self.phase = "done"
        if "error" in msg:
            error = errors.to_modern_error(msg["error"], self.method, self.params)
            return [Finish({"jsonrpc": "2.0", "id": self.client_id, "error": error})]
        result = tx.to_modern_result(self.method, msg.get("result"), server_info=self.server_info, ttl_ms=self.ttl_ms,
                                     cache_scope=self.cache_scope, cacheable=self.rounds.round == 0)
        return [Finish(jsonrpc.result_response(self.client_id, result))]

    # --- plain data --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "rounds"}
        data["rounds"] = self.rounds.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LegacyCall:
        return cls(**{**data, "rounds": Rounds.from_json(data["rounds"])})


def _riding(request: Message, meta: dict[str, Any] | None = None
            ) -> tuple[RequestId | None, Any, dict[str, Any], str | int | None, str | None]:
    """What a call keeps of the client request riding it: its id, params, declared capabilities, progress token and
    log level (``meta``: its ``_meta``, when already looked up)."""
    if meta is None:
        meta = request_meta(request) or {}
    return request.get("id"), request.get("params"), tx.capabilities_in(meta), tx.progress_token_in(meta), tx.log_level_in(meta)


def _invalid_state(client_id: RequestId | None) -> Message:
    return jsonrpc.error_response(client_id, INVALID_PARAMS, "Invalid requestState: unknown, already used or expired",
                                  {"reason": "unknown"})
