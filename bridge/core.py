"""The pivot: every front talks to every upstream through one canonical 2026-07-28 interface.

    front (era adapter)  --canonical 2026 request-->  Upstream (era adapter)
                         <--notifications (emit)----
                         <--canonical 2026 response-

* A modern front validates client frames and hands them over as they are.
* A legacy front turns a 2025 session into canonical requests (``_meta`` stamped from the session).
* A modern upstream sends canonical frames to a 2026 server unchanged.
* A legacy upstream translates them to 2025 traffic over a pool of initialized sessions.

Canonical request: a JSON-RPC request dict whose ``params._meta`` carries
``io.modelcontextprotocol/protocolVersion``, ``clientCapabilities`` and (usually) ``clientInfo``.
Its ``id`` is the caller's; the upstream mints its own wire ids and answers with the caller's id.

Canonical response: a JSON-RPC response dict (``result`` with ``resultType``, or ``error``).

Request-scoped notifications (``notifications/progress``, ``notifications/message``) and, for
``subscriptions/listen``, the acknowledgement and the ``subscriptionId``-tagged change
notifications, are passed to ``emit`` in order before ``call`` returns.

Cancellation: cancelling the task that awaits ``call`` *is* the client's cancel (a closed 2026
response stream, or a ``notifications/cancelled``). The upstream tells its server and frees state.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, TypeVar

from mcp_eras.bridge.translate.eras import MODERN, Era
from mcp_eras.bridge.translate.jsonrpc import Message

Emit = Callable[[Message], Awaitable[None]]


async def discard(_msg: Message) -> None:
    """An ``emit`` for callers that want no notifications."""


@dataclass(frozen=True)
class CallContext:
    """Who is calling, as far as the upstream needs to know."""

    principal: str | None = None
    """Stable identity of the caller's credentials (a digest, never the secret), None when anonymous."""
    authorization: str | None = None
    """The caller's ``Authorization`` header, forwarded to HTTP upstreams (transparent deployment)."""
    trace: dict[str, str] = field(default_factory=dict)
    """W3C trace context headers (traceparent, tracestate, baggage) to carry across the translation."""
    client_era: Era = MODERN
    """The era of the client behind the front (for metrics and logs)."""
    identity: dict[str, Any] | None = None
    """The 2026 ``_meta`` identity (clientInfo, clientCapabilities) the caller's requests will carry, when it is known
    before its first request (a 2025 client's ``initialize``): a cold upstream opens its first session for it."""
    subject: str | None = None
    """When the front is an OAuth resource server: the validated token's issuer and subject (``iss`` + ``sub``), the
    caller's identity for sessions, policy and rate limits. None on a front that checks no token."""
    scopes: frozenset[str] = frozenset()
    """The scopes granted to the validated token (empty when the front checks no token)."""
    session_id: str | None = None
    """The caller's MCP session id where one exists: a 2025 client's ``Mcp-Session-Id`` on the 2025 Streamable HTTP
    front (2025-11-25 basic/transports.mdx §Session Management). None for a 2026 client (2026-07-28 is stateless) and
    on stdio; never made up. Telemetry reads it (``mcp.session.id``)."""
    subject_token: str | None = field(default=None, repr=False)
    """The validated access token itself, only for an RFC 8693 token exchange at the upstream's authorization server.
    Never sent to an upstream (2026-07-28 basic/authorization "Token Passthrough"), never logged."""

    def identity_request(self) -> dict[str, Any] | None:
        """``identity`` as a request carrying it (what upstream session pools key on), or None."""
        return {"method": "server/discover", "params": {"_meta": dict(self.identity)}} if self.identity else None

    @staticmethod
    def principal_of(authorization: str | None) -> str | None:
        if not authorization:
            return None
        return hashlib.sha256(authorization.encode()).hexdigest()[:32]


class UpstreamError(Exception):
    """The upstream could not be reached or died; becomes -32603 to the caller."""


class SessionRecord(Protocol):
    """What a layer reads of a 2025 session's pool record."""

    sid: str
    principal: str | None


class LegacySessionView(Protocol):
    """What a layer reads of one session of a 2025 upstream (``Upstream.live``): its state and what the server
    declared in its ``initialize`` answer (2025-11-25 basic/lifecycle.mdx §Initialization)."""

    rec: SessionRecord
    state: str
    server_caps: dict[str, Any]
    init_result: Message


TransportFactory = Callable[[CallContext], Any]
"""A 2025 upstream's transports: one new transport (``mcp_eras.bridge.upstream.legacy_transport``) per session."""

_NO_SESSIONS: Mapping[str, LegacySessionView] = MappingProxyType({})


class Upstream(ABC):
    """An MCP server of some era, seen through the canonical 2026-07-28 interface.

    Upstreams stack: a *layer* (``wraps``) serves through the upstream under it, ``inner``; a *real* upstream talks to
    a server and has no ``inner``. What a layer may need of the others is declared here, with the answer of an upstream
    that lacks it (None, empty, False), so a layer reads it directly instead of probing for it: ``layers(up)`` walks
    the stack, ``find(up, Kind)`` names the layer of a kind, ``served_by(up)`` the real upstream at the bottom."""

    era: Era
    inner: Upstream | None = None
    """The upstream this one serves through: None for a real upstream, and for an auto-probing one until its probe has
    chosen the real upstream."""
    wraps: ClassVar[bool] = False
    """Whether this upstream serves through ``inner`` (a layer, or an auto-probing upstream): then a None ``inner``
    means the real upstream is not known yet."""
    answers_refusals: ClassVar[bool] = False
    """Whether ``call`` itself answers a refusal (``FrameError``) or an unreachable upstream (``UpstreamError``) as the
    caller's error response, never raising them (a wrapper then need not catch them again)."""
    transport_factory: TransportFactory | None = None
    """A 2025 upstream's transports (its task sessions open through them too); None for any other upstream."""
    live: Mapping[str, LegacySessionView] = _NO_SESSIONS
    """A 2025 upstream's open sessions by session id; empty for any other upstream."""

    @abstractmethod
    async def start(self) -> None:
        """Connect / spawn (idempotent). Failures raise UpstreamError."""

    @abstractmethod
    async def discover(self, ctx: CallContext) -> Message:
        """The upstream's canonical ``DiscoverResult`` (a result dict with resultType, ttlMs, cacheScope)."""

    @abstractmethod
    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        """Serve one canonical request; return the canonical response (same id as ``request``)."""

    @abstractmethod
    async def aclose(self) -> None:
        """Stop children, close connections, answer parked calls."""

    def status(self) -> dict[str, Any]:
        """Health snapshot for /healthz."""
        return {"era": self.era}

    async def roots_changed(self, ctx: CallContext) -> None:
        """A 2025 client of identity ``ctx.identity`` said its roots changed (2025-11-25 client/roots.mdx §Root List
        Changes). 2026-07-28 has no such notification (a 2026 server asks for roots with ``input_required`` each time
        it needs them), so only a 2025 upstream acts on it; a layer passes it to what it wraps."""
        if self.inner is not None:
            await self.inner.roots_changed(ctx)


MAX_LAYERS = 32
"""Deeper stacks are not built (the deepest, a scaled-out fleet server's, has six); a walk stops there."""

U = TypeVar("U", bound=Upstream)


def layers(up: Upstream) -> Iterator[Upstream]:
    """``up`` and every upstream under it, outermost first."""
    current: Upstream | None = up
    for _ in range(MAX_LAYERS):
        if current is None:
            return
        yield current
        current = current.inner


def find(up: Upstream, kind: type[U]) -> U | None:
    """The outermost upstream of type ``kind`` in ``up``'s stack, or None."""
    for layer in layers(up):
        if isinstance(layer, kind):
            return layer
    return None


def served_by(up: Upstream) -> Upstream | None:
    """The real upstream at the bottom of ``up``'s stack; None while a layer does not know it yet (an auto-probing
    upstream before its probe, a fleet server before its first start)."""
    current: Upstream | None = up
    while current is not None and current.wraps:
        current = current.inner
    return current
