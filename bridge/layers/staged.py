"""Staged upgrades on live traffic, the I/O half: one server's ``shadow`` mirror, ``canary`` split and
automatic rollback, as an ``Upstream`` in front of the server's ``ManagedUpstream``.

* **Shadow.** A side-effect-free request (``staging.mirrorable``) is answered by the server as always;
  a copy goes to the twin in a background task, bounded by ``shadow_concurrency`` (a copy over the
  cap is skipped and counted) and ``shadow_timeout``. The caller's answer never waits for, or sees,
  the copy. The two answers are compared (``staging.compare``); a divergence is counted and kept
  with its diff for ``/fleet/divergences``.
* **Canary.** Callers are split by their principal (``staging.side_for``); a 2025 session keeps the side
  it started on. Canary answers that are errors count against the canary; a failed side-effect-free
  request is answered again by the old server. Side-effect-free canary requests are compared with the
  old server's answer (in the background, same cap) when ``rollback.max_divergence`` is set.
* **Rollback.** After every counted answer the sliding window is judged (``staging.rollback_reason``);
  a verdict sets the weight to 0, logs why and counts it. Only a changed ``canary`` config or
  ``mcp-bridge canary NAME --weight W`` arms it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import itertools
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.core import CallContext, Emit, Upstream, discard
from mcp_eras.bridge.fleet import canon, staging
from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message

log = logging.getLogger("mcp_bridge.fleet")

MIRROR_ERA = "shadow"
"""``client_era`` of mirrored copies in the twin's metrics (they are not client traffic)."""
INTERNAL_ERA = "fleet"
PINS_MAX = 10_000
"""2025 sessions whose canary side is remembered; past it the least recently used is forgotten."""
DIVERGENCES_KEPT = 200

_session: ContextVar[str | None] = ContextVar("mcp_bridge_fleet_session", default=None)
_mirror_ids = itertools.count(1)


def bind_session(session_id: str | None) -> Token[str | None]:
    """Tell the staging layer which 2025 session the current request belongs to (``Mcp-Session-Id``)."""
    return _session.set(session_id)


def unbind_session(token: Token[str | None]) -> None:
    _session.reset(token)


def register_metrics(metrics: Metrics) -> None:
    labels = ("server", "twin", "method", "tool")
    metrics.counter("shadow_mirrored_total", "Requests copied to a twin, by server, twin, method and tool.", labels)
    metrics.counter("shadow_matched_total", "Mirrored requests whose answers matched.", labels)
    metrics.counter("shadow_diverged_total", "Mirrored requests whose answers differed.", labels)
    metrics.counter("shadow_skipped_total", "Copies not compared: busy (at the cap), timeout, cancelled.", ("server", "reason"))
    metrics.counter("canary_requests_total", "Requests by side of the canary split (primary or canary).", ("server", "side"))
    metrics.counter("canary_fallbacks_total", "Failed side-effect-free canary requests answered again by the old server.",
                    ("server",))
    metrics.counter("canary_rollbacks_total", "Canaries returned to weight 0, by server and reason.", ("server", "reason"))


@dataclass(frozen=True)
class StageConfig:
    shadow: str | None = None
    shadow_tools: frozenset[str] = frozenset()
    shadow_ignore: tuple[str, ...] = ()
    concurrency: int = 16
    timeout: float = 10.0
    canary_to: str | None = None
    weight: float = 0.0
    policy: staging.RollbackPolicy = staging.RollbackPolicy()

    @classmethod
    def of(cls, server: fc.ServerConfig) -> StageConfig | None:
        if server.shadow is None and server.canary is None:
            return None
        rb = server.rollback or fc.RollbackConfig()
        return cls(server.shadow, frozenset(server.shadow_tools), tuple(server.shadow_ignore), server.shadow_concurrency,
                   server.shadow_timeout, server.canary.to if server.canary else None,
                   server.canary.weight if server.canary else 0.0,
                   staging.RollbackPolicy(rb.max_error_rate, rb.min_requests, rb.max_divergence, rb.window))


class Stage:
    """Runtime state of one server's staging (replaced config keeps the state unless the canary changed)."""

    def __init__(self, cfg: StageConfig) -> None:
        self.cfg = cfg
        self.weight = cfg.weight
        self.rolled_back: str | None = None
        self.rolled_back_at: float | None = None
        self.window = staging.Window(cfg.policy.window)
        self.pins: OrderedDict[str, staging.Side] = OrderedDict()
        self.read_only: frozenset[str] = frozenset()
        self.learned = False
        self.mirrors = 0

    def apply(self, cfg: StageConfig) -> None:
        canary_changed = (cfg.canary_to, cfg.weight) != (self.cfg.canary_to, self.cfg.weight)
        policy_changed = cfg.policy != self.cfg.policy
        self.cfg = cfg
        if canary_changed:
            self.set_weight(cfg.weight)
        elif policy_changed:
            self.window = staging.Window(cfg.policy.window)

    def set_weight(self, weight: float) -> None:
        """An operator's weight: arms the canary again with a fresh window and no pins."""
        self.weight = weight
        self.rolled_back = self.rolled_back_at = None
        self.window = staging.Window(self.cfg.policy.window)
        self.pins.clear()

    @property
    def state(self) -> str:
        if self.cfg.canary_to is None:
            return "off"
        if self.rolled_back:
            return "rolled back"
        return "active" if self.weight > 0 else "idle"

    def side(self, ctx: CallContext, session_id: str | None) -> staging.Side:
        if self.cfg.canary_to is None or self.weight <= 0:
            return "primary"
        key = staging.sticky_key(ctx.principal, session_id)
        if session_id is None:
            return staging.side_for(key, self.weight)
        pinned = self.pins.get(session_id)
        side = staging.session_side(self.weight, key, pinned)
        self.pins[session_id] = side
        self.pins.move_to_end(session_id)
        while len(self.pins) > PINS_MAX:
            self.pins.popitem(last=False)
        return side


class StagedUpstream(Upstream):
    """The server's upstream as the fronts see it: the ``ManagedUpstream`` itself when nothing is staged."""

    wraps = True

    def __init__(self, name: str, primary: Upstream, peer: Callable[[str], Upstream | None], metrics: Metrics,
                 divergences: deque[staging.Divergence]) -> None:
        self.name = name
        self.primary = primary
        self.peer = peer
        self.metrics = metrics
        self.divergences = divergences
        self.stage: Stage | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # --- Upstream ---------------------------------------------------------------------------------------

    @property
    def era(self) -> Any:  # type: ignore[override]
        return self.primary.era

    @property  # type: ignore[override]
    def inner(self) -> Upstream:  # type: ignore[override]
        """The server's own upstream (``primary``); a canary or a twin is another server's, not under this one."""
        return self.primary

    async def start(self) -> None:
        await self.primary.start()

    async def discover(self, ctx: CallContext) -> Message:
        return await self.primary.discover(ctx)

    def status(self) -> dict[str, Any]:
        return self.primary.status()

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def configure(self, cfg: StageConfig | None) -> None:
        if cfg is None:
            self.stage = None
        elif self.stage is None:
            self.stage = Stage(cfg)
        else:
            self.stage.apply(cfg)

    # --- calls ------------------------------------------------------------------------------------------

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        stage = self.stage
        if stage is None:
            return await self.primary.call(request, ctx, emit)
        method = str(request.get("method"))
        side = stage.side(ctx, _session.get())
        canary = self.peer(stage.cfg.canary_to) if side == "canary" and stage.cfg.canary_to else None
        if canary is None:
            side = "primary"
        counted = method != "subscriptions/listen" and stage.cfg.canary_to is not None
        if counted:
            self.metrics.inc("canary_requests_total", {"server": self.name, "side": side})
        if not stage.learned:
            stage.learned = True
            self._spawn(self._learn(stage))
        safe = staging.mirrorable(request, stage.read_only, stage.cfg.shadow_tools)
        if side == "canary":
            assert canary is not None and stage.cfg.canary_to is not None
            return await self._canary_call(stage, canary, request, ctx, emit, safe)
        twin_name = stage.cfg.shadow
        twin = self.peer(twin_name) if twin_name and safe else None
        real = self._mirror(stage, twin_name, twin, request, ctx, reverse=False) if twin is not None and twin_name else None
        response = await self._answer(self.primary, request, ctx, emit, real)
        if method == "tools/list":
            self._learn_from(stage, request, response)
        if counted:
            self._count(stage, primary=1, primary_errors=int(staging.is_failure(response)))
        return response

    async def _canary_call(self, stage: Stage, canary: Upstream, request: Message, ctx: CallContext, emit: Emit,
                           safe: bool) -> Message:
        assert stage.cfg.canary_to is not None
        real = None
        if safe and stage.cfg.policy.max_divergence is not None:
            real = self._mirror(stage, stage.cfg.canary_to, self.primary, request, ctx, reverse=True)
        try:
            response = await self._answer(canary, request, ctx, emit, real)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a failing canary is counted, never propagated
            response = jsonrpc.error_response(request.get("id"), jsonrpc.INTERNAL_ERROR,
                                              f"Upstream {stage.cfg.canary_to} failed: {exc.__class__.__name__}")
        failed = staging.is_failure(response)
        self._count(stage, canary=1, canary_errors=int(failed))
        if failed and safe:
            self.metrics.inc("canary_fallbacks_total", {"server": self.name})
            return await self.primary.call(request, ctx, emit)
        return response

    @staticmethod
    async def _answer(up: Upstream, request: Message, ctx: CallContext, emit: Emit,
                      real: asyncio.Future[Message] | None) -> Message:
        """The caller's answer; also handed to the waiting mirror (if any), whatever happens."""
        try:
            response = await up.call(request, ctx, emit)
        except BaseException:
            if real is not None and not real.done():
                real.cancel()
            raise
        if real is not None and not real.done():
            real.set_result(response)
        return response

    def _count(self, stage: Stage, **counts: int) -> None:
        if stage.rolled_back:
            return
        now = time.monotonic()
        stage.window.add(now, **counts)
        reason = staging.rollback_reason(stage.window.totals(now), stage.cfg.policy)
        if reason is None or stage.weight <= 0:
            return
        totals = stage.window.totals(now)
        stage.weight = 0.0
        stage.rolled_back, stage.rolled_back_at = reason, time.time()
        kind = "divergence" if reason.startswith("divergence") else "errors"
        self.metrics.inc("canary_rollbacks_total", {"server": self.name, "reason": kind})
        log.warning("server %s: canary %s rolled back to weight 0: %s", self.name, stage.cfg.canary_to, reason,
                    extra={"event": "canary_rollback", "server": self.name, "canary": stage.cfg.canary_to,
                           "reason": reason, "window": totals})

    # --- mirroring --------------------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _mirror(self, stage: Stage, other_name: str, other: Upstream, request: Message, ctx: CallContext,
                reverse: bool) -> asyncio.Future[Message] | None:
        """Start the copy; returns the future the caller's answer goes into (None when at the cap)."""
        if stage.mirrors >= stage.cfg.concurrency:
            self.metrics.inc("shadow_skipped_total", {"server": self.name, "reason": "busy"})
            return None
        stage.mirrors += 1
        real: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._spawn(self._compare(stage, other_name, other, copy.deepcopy(request), ctx, real, reverse))
        return real

    async def _compare(self, stage: Stage, other_name: str, other: Upstream, request: Message, ctx: CallContext,
                       real: asyncio.Future[Message], reverse: bool) -> None:
        method = str(request.get("method"))
        labels = {"server": self.name, "twin": other_name, "method": method, "tool": staging.tool_name(request)}
        request["id"] = f"shadow-{next(_mirror_ids)}"
        try:
            try:
                copied = await asyncio.wait_for(other.call(request, dataclasses.replace(ctx, client_era=MIRROR_ERA), discard),
                                                stage.cfg.timeout)
            except TimeoutError:
                self.metrics.inc("shadow_skipped_total", {"server": self.name, "reason": "timeout"})
                return
            except Exception as exc:  # noqa: BLE001 - the twin's failure is a finding, not a crash
                copied = jsonrpc.error_response(request["id"], jsonrpc.INTERNAL_ERROR, f"{exc.__class__.__name__}: {exc}")
            try:
                answer = await real
            except asyncio.CancelledError:
                self.metrics.inc("shadow_skipped_total", {"server": self.name, "reason": "cancelled"})
                return
            old, new = (copied, answer) if reverse else (answer, copied)
            try:
                diff = staging.compare(method, old, new, stage.cfg.shadow_ignore)
            except Exception:  # noqa: BLE001 - an answer the comparison cannot read is not the caller's problem
                log.exception("server %s: cannot compare %s answers", self.name, method)
                self.metrics.inc("shadow_skipped_total", {"server": self.name, "reason": "error"})
                return
            self.metrics.inc("shadow_mirrored_total", labels)
            self.metrics.inc("shadow_diverged_total" if diff else "shadow_matched_total", labels)
            if reverse:
                self._count(stage, compared=1, diverged=int(diff is not None))
            if diff is not None:
                self.divergences.append(staging.Divergence(time.time(), self.name, other_name, method, labels["tool"],
                                                           staging.request_summary(request), diff))
                log.info("server %s: %s answered %s differently", self.name, other_name, method,
                         extra={"event": "divergence", "server": self.name, "twin": other_name, "method": method,
                                "tool": labels["tool"]})
        finally:
            stage.mirrors -= 1

    # --- read-only tools --------------------------------------------------------------------------------

    def _learn_from(self, stage: Stage, request: Message, response: Message) -> None:
        result = response.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return
        found = staging.read_only_tools(result["tools"])
        params = request.get("params")
        first_page = not (isinstance(params, dict) and params.get("cursor"))
        stage.read_only = found if first_page else stage.read_only | found

    async def _learn(self, stage: Stage) -> None:
        """Which tools the old server annotates read-only (a background ``tools/list`` at first use)."""
        with contextlib.suppress(Exception):
            tools = await canon.list_all(self.primary, "tools/list", "tools", CallContext(client_era=INTERNAL_ERA))
            stage.read_only = stage.read_only | staging.read_only_tools(tools)

    # --- status -----------------------------------------------------------------------------------------

    def stage_status(self) -> dict[str, Any] | None:
        stage = self.stage
        if stage is None:
            return None
        out: dict[str, Any] = {}
        if stage.cfg.shadow is not None:
            where = {"server": self.name, "twin": stage.cfg.shadow}
            mirrored = sum(self.metrics.totals("shadow_mirrored_total", "server", **where).values())
            matched = sum(self.metrics.totals("shadow_matched_total", "server", **where).values())
            out["shadow"] = {"twin": stage.cfg.shadow, "mirrored": int(mirrored), "matched": int(matched),
                             "diverged": int(mirrored - matched),
                             "match_rate": round(matched / mirrored, 4) if mirrored else None,
                             "skipped": {k: int(v) for k, v in sorted(self.metrics.totals("shadow_skipped_total", "reason",
                                                                                              server=self.name).items())},
                             "pending": stage.mirrors,
                             "read_only_tools": sorted(stage.read_only | stage.cfg.shadow_tools)}
        if stage.cfg.canary_to is not None:
            sides = self.metrics.totals("canary_requests_total", "side", server=self.name)
            total = sum(sides.values())
            totals = stage.window.totals(time.monotonic())
            out["canary"] = {"to": stage.cfg.canary_to, "weight": stage.weight, "configured_weight": stage.cfg.weight,
                             "state": stage.state, "rollback_reason": stage.rolled_back, "rolled_back_at": stage.rolled_back_at,
                             "share": round(sides.get("canary", 0) / total, 4) if total else None,
                             "requests": {k: int(v) for k, v in sorted(sides.items())}, "window": totals}
        return out
