"""A server's gateway layer (issue 34): per-tool policy, the caller for upstream credentials, and the audit line.

For each canonical request, in either client era (a 2025 client's requests reach it translated):

* the caller is the validated subject when the front is an OAuth resource server: the layers and the upstream
  under this one see a principal derived from it (a 2025 upstream's sessions, task bindings and caches are then
  keyed by who the caller is, not by a digest of whichever token it holds now);
* a ``tools/call`` outside the server's policy (``translate.gateway.policy.decide``) is answered with the named
  refusal here and never reaches the upstream; a ``tools/list`` result shows only the tools the caller may call
  (``list_changed`` notifications pass unchanged: the next listing is filtered again);
* the call runs ``calling_as`` the caller, so a ``token_exchange`` credential is the caller's own
  (``mcp_eras.bridge.gateway.upstream_auth``);
* one audit line is written per call (``mcp_eras.bridge.gateway.audit``), whatever its outcome.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.gateway.audit import AuditLog
from mcp_eras.bridge.gateway.upstream_auth import CALLER, calling_as, enter
from mcp_eras.bridge.translate.gateway import policy as gp
from mcp_eras.bridge.translate.jsonrpc import Message


def subject_context(ctx: CallContext) -> CallContext:
    """``ctx`` with the principal derived from the validated subject (unchanged when the front checks no token)."""
    if ctx.subject is None:
        return ctx
    principal = _principal(ctx.subject)
    return ctx if ctx.principal == principal else dataclasses.replace(ctx, principal=principal)


@functools.lru_cache(maxsize=4096)
def _principal(subject: str) -> str:
    return CallContext.principal_of(subject) or ""


class GatewayUpstream(Upstream):
    """Policy, caller and audit around one server's upstream; everything else is delegated unchanged."""

    wraps = True

    def __init__(self, inner: Upstream, server: str, policy: gp.ToolPolicy | None = None, audit: AuditLog | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inner: Upstream = inner
        self.server = server
        self.clock = clock
        self.policy = gp.ToolPolicy()
        self.audit: AuditLog | None = None
        self.configure(policy, audit)

    def configure(self, policy: gp.ToolPolicy | None, audit: AuditLog | None) -> None:
        """Set the policy and the audit log (a fleet reload changes them in place)."""
        self.policy = policy or gp.ToolPolicy()
        self.audit = audit

    @property
    def active(self) -> bool:
        """Whether this layer does anything for a caller the front checked no token of."""
        return self.policy.active or self.audit is not None

    @property  # type: ignore[override]
    def era(self) -> Any:
        return self.inner.era

    async def start(self) -> None:
        await self.inner.start()

    async def aclose(self) -> None:
        await self.inner.aclose()

    def status(self) -> dict[str, Any]:
        return self.inner.status()

    async def discover(self, ctx: CallContext) -> Message:
        ctx = subject_context(ctx)
        with calling_as(ctx):
            return await self.inner.discover(ctx)

    async def roots_changed(self, ctx: CallContext) -> None:
        ctx = subject_context(ctx)
        with calling_as(ctx):
            await self.inner.roots_changed(ctx)

    def refuse_early(self, request: Message, ctx: CallContext) -> Message | None:
        """The refusal of a ``tools/call`` for a scope the caller lacks, decided before the call starts
        (``gp.scope_refusal``) so the HTTP front can answer it with 403 and its challenge; audited here, once (the
        call then never reaches ``call``). None for any other request."""
        ctx = subject_context(ctx)
        started = self.clock()
        refused = gp.scope_refusal(self.policy, ctx.scopes, request)
        if refused is not None:
            self._audit(request, ctx, "denied", started)
        return refused

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        if ctx.subject is None and not self.active:
            return await self.inner.call(request, ctx, emit)  # transparent and unconfigured: nothing to do
        ctx = subject_context(ctx)
        started = self.clock()
        method = request.get("method")
        tool = gp.called_tool(request)
        outcome = "failed"
        try:
            if tool is not None and isinstance(decision := gp.decide(self.policy, ctx.scopes, tool), gp.Deny):
                response = gp.refusal(request.get("id"), tool, decision)
            else:
                caller = enter(ctx)
                try:
                    response = await self.inner.call(request, ctx, emit)
                finally:
                    CALLER.reset(caller)
                if method == "tools/list" and isinstance(response.get("result"), dict):
                    response = {**response, "result": gp.filter_listing(self.policy, ctx.scopes, response["result"])}
            outcome = gp.audit_outcome(response)
            return response
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            self._audit(request, ctx, outcome, started)

    def _audit(self, request: Message, ctx: CallContext, outcome: str, started: float) -> None:
        """The call's one audit line (when this server audits)."""
        if self.audit is None:
            return
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        self.audit.write(gp.audit_record(
            principal=ctx.subject or ctx.principal, server=self.server, method=str(request.get("method")),
            tool=gp.called_tool(request), client_era=str(ctx.client_era), upstream_era=str(self.inner.era) if self.inner.era else None,
            outcome=outcome, duration=self.clock() - started, arguments=params.get("arguments"),
            with_arguments=self.audit.with_arguments))

