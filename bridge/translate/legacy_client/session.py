"""Direction B, pure: the rules of one 2025-11-25 session served from a 2026-07-28 upstream.

A ``SessionState`` is plain data (``to_json``/``from_json`` round-trip through JSON) and the functions
below are the session's rules: frames in, decisions out, no I/O, no clock (``now`` is an argument).
The shells (``bridge/front/legacy_*.py``) execute the decisions and run the timers.

Rules: the local request handlers are the table ``LOCAL_REQUESTS`` (method -> handler, spec section);
the transport-level answers (``admit_http``, ``before_initialize``) and the notification rules cite their
sections where they are decided.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc, progress
from mcp_eras.bridge.translate.eras import LEGACY_CLIENT_METHODS, LEGACY_VERSIONS
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message, RequestId
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import mrtr

ID_MEMORY = 4096
"""How many used request ids a session remembers for the reuse rule (older ones age out)."""

ID_MEMORY_CHARS = 256 * 1024
"""How many characters of used request ids a session remembers (with ``ID_MEMORY``: whichever is reached first;
older ids age out). With ``ID_MAX_CHARS`` a session keeps at least 256 ids and at most 256 KiB of them."""

ID_MAX_CHARS = 1024
"""Longest request id a 2025 session accepts (characters of a string id; numbers are short). 2025-11-25
basic/index.mdx §Requests: an id MUST NOT be reused within a session, so the session remembers the ids it has
seen; an id longer than this is refused (-32600, the limit named in ``data``) rather than remembered."""

ID_LIMIT = "request_id_chars"

INFLIGHT_MAX = 256
"""Requests of one session in flight at once (each holds a task, a stream and the questions it asks the client);
past it a request is refused until one ends (-32000, ``data.limit`` ``requests_in_flight``; HTTP 429), its id
left unused so that it may be sent again."""

INFLIGHT_LIMIT = "requests_in_flight"


def id_key(rid: Any) -> str:
    """A JSON-safe key for a request id that keeps ``1`` and ``"1"`` apart."""
    return f"{type(rid).__name__}:{rid}"


# ==============================================================================================
# State
# ==============================================================================================


@dataclass
class SessionState:
    """Everything one 2025 session fixes; JSON-serializable (the shared-state store keeps it as is)."""

    identity: lf.SessionIdentity
    idle_timeout: float
    deadline: float
    """Monotonic-clock time after which an idle session (nothing in flight) is expired."""
    session_id: str | None = None
    principal: str | None = None
    """Digest of the credentials that opened the session; other credentials never see it."""
    initialized: bool = False
    closed: bool = False
    subscribed: list[str] = field(default_factory=list)
    recent_ids: list[str] = field(default_factory=list)
    inflight: list[str] = field(default_factory=list)
    outstanding: dict[str, str] = field(default_factory=dict)
    """Bridge->client request id (always a string the bridge minted) -> key of the client request it serves."""
    next_out_id: int = 1
    progress: dict[str, float] = field(default_factory=dict)
    """Last progress value sent per progress token (2025 progress MUST increase)."""
    max_rounds: int = 16
    """MRTR rounds one request may take (``legacy_client.mrtr``)."""
    streaming: bool = False
    """The client can receive unsolicited messages now: a GET stream is connected (HTTP), or always (stdio)."""
    recent_index: set[str] | None = field(default=None, init=False, repr=False, compare=False)
    """``recent_ids`` as a set for the reuse check (derived: not in the JSON, rebuilt on first use)."""
    recent_chars: int = field(default=0, init=False, repr=False, compare=False)
    """Characters of ``recent_ids`` (derived with ``recent_index``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "identity": self.identity.to_json(), "idle_timeout": self.idle_timeout, "deadline": self.deadline,
            "session_id": self.session_id, "principal": self.principal, "initialized": self.initialized,
            "closed": self.closed, "subscribed": list(self.subscribed), "recent_ids": list(self.recent_ids),
            "inflight": list(self.inflight), "outstanding": dict(self.outstanding), "next_out_id": self.next_out_id,
            "progress": dict(self.progress), "max_rounds": self.max_rounds, "streaming": self.streaming,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionState:
        return cls(**{**data, "identity": lf.SessionIdentity.from_json(data["identity"])})


def open_session(identity: lf.SessionIdentity, discover: dict[str, Any], bridge_info: dict[str, str], *, now: float,
                 idle_timeout: float, session_id: str | None = None, principal: str | None = None, max_rounds: int = 16,
                 streaming: bool = False) -> tuple[SessionState, dict[str, Any]]:
    """A new session and its ``InitializeResult`` (answered locally from the upstream's ``DiscoverResult``:
    2025-11-25 basic/lifecycle.mdx §Initialization); FrameError when ``initialize`` cannot be honoured.
    ``identity`` is ``legacy_front.parse_initialize`` of the request's params (checked before any upstream work)."""
    result = lf.initialize_result(discover, identity, bridge_info)
    state = SessionState(identity=identity, idle_timeout=idle_timeout, deadline=now + idle_timeout,
                         session_id=session_id, principal=principal, max_rounds=max_rounds, streaming=streaming)
    return state, result


# ==============================================================================================
# Lifecycle: deadline, in-flight requests
# ==============================================================================================


def touch(state: SessionState, now: float) -> None:
    state.deadline = now + state.idle_timeout


def expired(state: SessionState, now: float) -> bool:
    return now > state.deadline and not state.inflight


def reap_interval(idle_timeout: float) -> float:
    """How often a shell looks for expired sessions (a quarter of the idle timeout, 0.5-30 s)."""
    return max(0.5, min(30.0, idle_timeout / 4))


def refuse_id(rid: RequestId) -> Refusal | None:
    """A request id too long to remember (``ID_MAX_CHARS``): refused before any work; None when it may be used."""
    if isinstance(rid, str) and len(rid) > ID_MAX_CHARS:
        return LONG_ID
    return None


def claim_id(state: SessionState, rid: RequestId) -> bool:
    """False when the client reuses a request id within the session (2025-11-25 basic/index.mdx §Requests).
    The session remembers the last ``ID_MEMORY`` ids, at most ``ID_MEMORY_CHARS`` characters of them."""
    key = id_key(rid)
    recent = state.recent_index
    if recent is None:
        recent = state.recent_index = set(state.recent_ids)
        state.recent_chars = sum(map(len, state.recent_ids))
    if key in recent or key in state.inflight:
        return False
    state.recent_ids.append(key)
    recent.add(key)
    state.recent_chars += len(key)
    while len(state.recent_ids) > ID_MEMORY or (state.recent_chars > ID_MEMORY_CHARS and len(state.recent_ids) > 1):
        old = state.recent_ids.pop(0)
        recent.discard(old)
        state.recent_chars -= len(old)
    return True


def begin(state: SessionState, rid: RequestId) -> str:
    key = id_key(rid)
    state.inflight.append(key)
    return key


def start_request(state: SessionState, rid: RequestId) -> str | Refusal:
    """Claim the id and mark the request in flight: its key, or the refusal (``LONG_ID``, ``REUSED_ID``)."""
    refusal = refuse_id(rid)
    if refusal is not None:
        return refusal
    if len(state.inflight) >= INFLIGHT_MAX:
        return BUSY
    if not claim_id(state, rid):
        return REUSED_ID
    key = state.recent_ids[-1]  # the key claim_id just remembered
    state.inflight.append(key)
    return key


def finish(state: SessionState, rid: RequestId) -> None:
    key = id_key(rid)
    if key in state.inflight:
        state.inflight.remove(key)
    for out_key, owner in list(state.outstanding.items()):
        if owner == key:
            del state.outstanding[out_key]


def close(state: SessionState) -> list[str]:
    """Mark closed; returns the in-flight request keys the shell must cancel."""
    state.closed = True
    keys, state.inflight = list(state.inflight), []
    state.outstanding.clear()
    return keys


# ==============================================================================================
# Admission: which answer a frame gets before any work
# ==============================================================================================


@dataclass(frozen=True)
class Refusal:
    """A refusal before any work: the HTTP status (unused on stdio) and the JSON-RPC error."""

    status: int
    code: int
    message: str
    expire: bool = False
    """The session is past its deadline: the shell ends it."""
    data: dict[str, Any] | None = None

    def response(self, rid: RequestId | None) -> Message:
        return jsonrpc.error_response(rid, self.code, self.message, self.data)


def admit_http(state: SessionState | None, *, has_session_header: bool, principal: str | None,
               protocol_version: str | None, now: float) -> Refusal | None:
    """The 2025 Streamable HTTP checks for a POST/GET/DELETE of an existing session (None: admitted; touched)."""
    if not has_session_header:
        return Refusal(errors.LEGACY_SESSION_REQUIRED_STATUS, errors.INVALID_REQUEST,
                       "Bad Request: Mcp-Session-Id header is required")
    if state is None or state.closed:
        return Refusal(errors.LEGACY_SESSION_NOT_FOUND_STATUS, errors.INVALID_REQUEST, "Session not found")
    if principal != state.principal:
        # Sessions are bound to the credentials that opened them; others must not learn they exist.
        return Refusal(errors.LEGACY_SESSION_NOT_FOUND_STATUS, errors.INVALID_REQUEST, "Session not found")
    if expired(state, now):
        return Refusal(errors.LEGACY_SESSION_NOT_FOUND_STATUS, errors.INVALID_REQUEST, "Session expired", expire=True)
    # 2025-11-25 basic/transports.mdx §Protocol Version Header: no header means 2025-03-26 is assumed; a header with an
    # invalid or unsupported version (an empty one too) MUST get 400 Bad Request.
    version = errors.LEGACY_ASSUMED_VERSION if protocol_version is None else protocol_version
    if version not in LEGACY_VERSIONS:
        return Refusal(errors.LEGACY_BAD_VERSION_STATUS, errors.INVALID_REQUEST,
                       f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
    touch(state, now)
    return None


def admit_initialize(protocol_version: str | None) -> Refusal | None:
    """An HTTP ``initialize`` that carries an empty ``MCP-Protocol-Version`` is refused (400): the header is optional
    on it, but an empty value is no version (2025-11-25 basic/transports.mdx §Protocol Version Header: an invalid
    version MUST get 400 Bad Request; the version itself is negotiated in the body, basic/lifecycle.mdx)."""
    if protocol_version is not None and not protocol_version.strip():
        return Refusal(errors.LEGACY_BAD_VERSION_STATUS, errors.INVALID_REQUEST,
                       "Bad Request: empty MCP-Protocol-Version header")
    return None


def before_initialize(msg: Message) -> Message:
    """The answer to a request that arrives before ``initialize`` was answered (stdio: no session yet)."""
    if msg.get("method") == "ping":
        return jsonrpc.result_response(msg["id"], {})
    return jsonrpc.error_response(msg["id"], errors.INVALID_REQUEST,
                                  "Invalid Request: the session is not initialized (send initialize first)")


REUSED_ID = Refusal(errors.LEGACY_REFUSED_STATUS, errors.INVALID_REQUEST,
                    "Invalid Request: request id already used in this session")
LONG_ID = Refusal(errors.LEGACY_REFUSED_STATUS, errors.INVALID_REQUEST,
                  f"Invalid Request: request id longer than {ID_MAX_CHARS} characters ({ID_LIMIT})",
                  data={"limit": ID_LIMIT, "max": ID_MAX_CHARS})
BUSY = Refusal(429, errors.LIMIT_REACHED,
               f"Too many requests in flight in this session ({INFLIGHT_LIMIT}={INFLIGHT_MAX})",
               data={"limit": INFLIGHT_LIMIT, "max": INFLIGHT_MAX})
ALREADY_INITIALIZED = Refusal(errors.LEGACY_REFUSED_STATUS, errors.INVALID_REQUEST, "Invalid Request: already initialized")


# ==============================================================================================
# Requests of a live session
# ==============================================================================================


@dataclass(slots=True)  # (a value, but not frozen: see legacy_call's actions)
class Answer:
    """Answer locally with this response."""

    response: Message


@dataclass(frozen=True)
class ChangeSubscriptions:
    """Make the upstream listen match ``filter``; then ``subscription_applied`` gives the answer."""

    uri: str
    subscribe: bool
    wanted: list[str]
    filter: dict[str, Any]


@dataclass(slots=True)  # (a value, but not frozen: see legacy_call's actions)
class Forward:
    """Send this canonical request upstream; ``rounds`` drives what follows (``legacy_client.mrtr``)."""

    canonical: Message
    rounds: mrtr.RoundsState


RequestDecision = Answer | ChangeSubscriptions | Forward


def _ping(state: SessionState, rid: RequestId, method: str, params: dict[str, Any]) -> RequestDecision:
    return Answer(jsonrpc.result_response(rid, {}))


def _initialize_again(state: SessionState, rid: RequestId, method: str, params: dict[str, Any]) -> RequestDecision:
    return Answer(jsonrpc.error_response(rid, errors.INVALID_REQUEST, "Invalid Request: the session is already initialized"))


def _set_level(state: SessionState, rid: RequestId, method: str, params: dict[str, Any]) -> RequestDecision:
    # Accepted even when discover does not list `logging` (deprecated in 2026): servers still log to requests
    # that carry a logLevel (2026-07-28 server/utilities/logging.mdx), and stamping it costs nothing.
    state.identity.log_level = lf.validate_log_level(params)
    return Answer(jsonrpc.result_response(rid, {}))


def _subscription(state: SessionState, rid: RequestId, method: str, params: dict[str, Any]) -> RequestDecision:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise FrameError(errors.INVALID_PARAMS, "Invalid params: uri must be a non-empty string")
    res_caps = state.identity.server_capabilities.get("resources")
    if not (isinstance(res_caps, dict) and res_caps.get("subscribe")):
        raise FrameError(errors.METHOD_NOT_FOUND, f"Method not found: {method} (the server does not support subscriptions)")
    wanted = set(state.subscribed)
    subscribe = method == "resources/subscribe"
    if subscribe:
        wanted.add(uri)
    else:
        wanted.discard(uri)
    ordered = sorted(wanted)
    return ChangeSubscriptions(uri, subscribe, ordered, _filter(state, ordered))


@dataclass(frozen=True)
class LocalRule:
    handler: Callable[[SessionState, RequestId, str, dict[str, Any]], RequestDecision]
    spec: str


LOCAL_REQUESTS: dict[str, LocalRule] = {
    # A 2025 session's requests that the bridge answers itself (2026-07-28 removed them: changelog.mdx §Major changes).
    "ping": LocalRule(_ping, "2025-11-25 basic/utilities/ping.mdx §Behavior Requirements (respond promptly, empty result)"),
    "initialize": LocalRule(_initialize_again, "2025-11-25 basic/lifecycle.mdx §Initialization (the first interaction, once)"),
    "logging/setLevel": LocalRule(_set_level, "2025-11-25 server/utilities/logging.mdx §Setting Log Level, §Error Handling (-32602)"),
    "resources/subscribe": LocalRule(_subscription, "2025-11-25 server/resources.mdx §Subscriptions, §Capabilities "
                                                    "-> 2026-07-28 basic/patterns/subscriptions.mdx §Notification Filter"),
    "resources/unsubscribe": LocalRule(_subscription, "2025-11-25 server/resources.mdx §Subscriptions "
                                                      "-> 2026-07-28 basic/patterns/subscriptions.mdx §Notification Filter"),
}


PARAM_SHAPES: dict[str, tuple[tuple[str, type, bool], ...]] = {
    # method -> (param, type, required): checked before forwarding, answered -32602 (malformed request).
    # 2025-11-25 server/tools.mdx §Calling Tools, §Error Handling ("requests that fail to satisfy CallToolRequest schema").
    "tools/call": (("name", str, True), ("arguments", dict, False)),
    # 2025-11-25 server/prompts.mdx §Getting a Prompt, §Error Handling (-32602).
    "prompts/get": (("name", str, True), ("arguments", dict, False)),
    # 2025-11-25 server/resources.mdx §Reading Resources, §Error Handling.
    "resources/read": (("uri", str, True),),
}


def _check_params(method: str, params: dict[str, Any]) -> None:
    for name, kind, required in PARAM_SHAPES.get(method, ()):
        if name not in params:
            if required:
                raise FrameError(errors.INVALID_PARAMS, f"Invalid params: {method} requires {name!r}")
            continue
        if not isinstance(params[name], kind):
            raise FrameError(errors.INVALID_PARAMS, f"Invalid params: {name!r} must be {'a string' if kind is str else 'an object'}")


def on_request(state: SessionState, msg: Message) -> RequestDecision:
    """What a (claimed, admitted) request of the session becomes: a local answer, a subscription change, or
    a canonical request for the upstream. Methods 2025 does not define get -32601 (JSON-RPC 2.0 §5.1)."""
    rid = msg["id"]
    method = msg["method"]
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    try:
        rule = LOCAL_REQUESTS.get(method)
        if rule is not None:
            return rule.handler(state, rid, method, params)
        if method not in LEGACY_CLIENT_METHODS:
            return Answer(jsonrpc.error_response(rid, errors.METHOD_NOT_FOUND, f"Method not found: {method}"))
        _check_params(method, params)
        canonical = lf.to_canonical_request(msg, state.identity)
        return Forward(canonical, mrtr.start(msg, canonical, state.max_rounds))
    except FrameError as exc:
        return Answer(jsonrpc.error_response(rid, exc.code, exc.message, exc.data))


def subscription_applied(state: SessionState, rid: RequestId, change: ChangeSubscriptions, acked: dict[str, Any] | None,
                         failure: FrameError | None = None) -> Message:
    """The answer to ``resources/(un)subscribe`` once the upstream acknowledged (or refused) the new filter."""
    if failure is not None:
        if failure.code == errors.METHOD_NOT_FOUND:
            return jsonrpc.error_response(rid, errors.METHOD_NOT_FOUND,
                                          "Method not found: resources/subscribe (the upstream serves no subscriptions)")
        if failure.code == errors.LIMIT_REACHED:
            return jsonrpc.error_response(rid, failure.code, failure.message, failure.data)
        return jsonrpc.error_response(rid, errors.INTERNAL_ERROR, f"Subscription not accepted upstream: {failure.message}")
    if change.subscribe and change.uri not in ((acked or {}).get("resourceSubscriptions") or []):
        # 2026-07-28 basic/patterns/subscriptions.mdx §Acknowledgment: the server may grant less than asked.
        return jsonrpc.error_response(rid, errors.INTERNAL_ERROR, "Subscription not accepted upstream", {"uri": change.uri})
    state.subscribed = list(change.wanted)
    return jsonrpc.result_response(rid, {})


def _filter(state: SessionState, uris: list[str]) -> dict[str, Any]:
    if not state.streaming and not uris:
        return {}  # nobody to tell and nothing subscribed: no upstream listen (it is a server resource)
    return lf.listen_filter(state.identity.server_capabilities, uris)


def listen_filter(state: SessionState) -> dict[str, Any]:
    """The filter the session's upstream listen needs now: the list_changed kinds it was promised while the client
    can receive them, plus its subscribed URIs (whose updates are kept for replay until a GET stream takes them)."""
    return _filter(state, state.subscribed)


def set_streaming(state: SessionState, streaming: bool) -> dict[str, Any]:
    """A GET stream connected (or its last consumer left): the listen filter the session needs now."""
    state.streaming = streaming
    return listen_filter(state)


# ==============================================================================================
# Caps on sessions
# ==============================================================================================


LIMIT_TOTAL = "legacy_sessions_max"
LIMIT_PER_PRINCIPAL = "legacy_sessions_per_principal"


def admit_new_session(principal: str | None, sessions_of_principal: int, sessions_total: int, *, max_total: int,
                      max_per_principal: int) -> Refusal | None:
    """Whether another 2025 session may open. Per principal: 429 (that caller should back off); in total: 503 (the
    bridge is full). Anonymous callers cannot be told apart, so only the total applies to them."""
    if principal is not None and sessions_of_principal >= max_per_principal:
        return Refusal(429, errors.LIMIT_REACHED, f"Too many sessions for these credentials ({LIMIT_PER_PRINCIPAL}={max_per_principal})",
                       data={"limit": LIMIT_PER_PRINCIPAL, "max": max_per_principal})
    if sessions_total >= max_total:
        return Refusal(503, errors.LIMIT_REACHED, f"Too many sessions on this bridge ({LIMIT_TOTAL}={max_total})",
                       data={"limit": LIMIT_TOTAL, "max": max_total})
    return None


@dataclass
class SessionCount:
    """The 2025 sessions one front holds per principal, and its refusals at a cap by limit name (``admit``)."""

    per_principal: dict[str | None, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)

    def admit(self, principal: str | None, total: int, *, max_total: int, max_per_principal: int) -> Refusal | None:
        """``admit_new_session`` over these counts (``total``: the sessions the front holds); a refusal is counted by
        the limit it names."""
        refusal = admit_new_session(principal, self.per_principal.get(principal, 0), total, max_total=max_total,
                                    max_per_principal=max_per_principal)
        if refusal is not None:
            limit = (refusal.data or {}).get("limit", "sessions")
            self.refused[limit] = self.refused.get(limit, 0) + 1
        return refusal

    def opened(self, principal: str | None) -> None:
        self.per_principal[principal] = self.per_principal.get(principal, 0) + 1

    def closed(self, principal: str | None) -> None:
        left = self.per_principal.get(principal, 0) - 1
        if left > 0:
            self.per_principal[principal] = left
        else:
            self.per_principal.pop(principal, None)


def wants_update(state: SessionState, uri: Any) -> bool:
    """Whether ``notifications/resources/updated`` for ``uri`` concerns this session's subscriptions."""
    if not isinstance(uri, str):
        return False
    if uri in state.subscribed:
        return True
    # 2025 allows updates for sub-resources of a subscribed URI: over-deliver rather than under-deliver.
    return any(uri.startswith(s.rstrip("/") + "/") for s in state.subscribed)


# ==============================================================================================
# Client notifications and responses; bridge->client requests
# ==============================================================================================


@dataclass(frozen=True)
class Cancel:
    """Stop the client request ``request`` and void the bridge->client requests ``questions`` it waits on."""

    request: str
    questions: list[str]
    """Ids of the bridge->client requests to void."""


@dataclass(frozen=True)
class RootsChanged:
    """The client's roots changed: the upstream sessions of its identity are told (2025-11-25 client/roots.mdx
    §Root List Changes), so a 2025 server asks for them again."""


def on_notification(state: SessionState, msg: Message) -> Cancel | RootsChanged | None:
    method = msg.get("method")
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if method == "notifications/initialized":
        state.initialized = True
    elif method == "notifications/cancelled" and "requestId" in params:
        key = id_key(params.get("requestId"))
        # Questions the cancelled request is waiting on are void now, even if their answers are in flight.
        return Cancel(key, [out for out, owner in state.outstanding.items() if owner == key])
    if method == "notifications/roots/list_changed" and state.initialized and "roots" in state.identity.client_capabilities:
        return RootsChanged()
    # notifications/progress from the client (for bridge requests): nothing upstream wants it.
    return None


def ask(state: SessionState, owner: RequestId) -> str:
    """Mint the id of a bridge->client request asked on behalf of client request ``owner``."""
    out_id = f"bridge-{state.next_out_id}"
    state.next_out_id += 1
    state.outstanding[out_id] = id_key(owner)
    return out_id


def on_response(state: SessionState, msg: Message) -> str | None:
    """The id of the bridge->client request a client response answers (None: unknown or already void).
    Questions nobody answered are forgotten when their request finishes."""
    out_id = msg.get("id")
    if not isinstance(out_id, str) or out_id not in state.outstanding:
        return None
    del state.outstanding[out_id]
    return out_id


# ==============================================================================================
# Upstream notifications for one request
# ==============================================================================================


def admit_progress(state: SessionState, note: Message) -> bool:
    """2025-11-25 basic/utilities/progress.mdx §Behavior Requirements: progress MUST increase with each notification,
    also across MRTR retries that the client never sees."""
    params = note.get("params")
    if not isinstance(params, dict):
        return False
    key = id_key(params.get("progressToken"))
    nxt = progress.advance(state.progress.get(key), params.get("progress"))
    if nxt is None:
        return False
    state.progress[key] = nxt
    return True


def forget_progress(state: SessionState, token: Any) -> None:
    state.progress.pop(id_key(token), None)


def admit_log(level: str | None, note: Message) -> bool:
    """A ``notifications/message`` reaches the client only at or above ``level``, the level it had set when the
    request started (2025-11-25 server/utilities/logging.mdx §Setting Log Level); none before any
    ``logging/setLevel`` (2026 logs are a per-request opt-in: 2026-07-28 server/utilities/logging.mdx)."""
    if level is None:
        return False
    params = note.get("params") if isinstance(note.get("params"), dict) else {}
    return lf.log_rank(params.get("level")) >= lf.log_rank(level)
