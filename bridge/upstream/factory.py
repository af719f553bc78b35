"""Build the right Upstream for a target: era probing (2026 backward-compatibility rules) and caching.

The probe sends ``server/discover`` with the 2026 ``_meta`` and hands the answer to the pure
classification (``mcp_eras.bridge.translate.probe``, its table cites the spec); 401/403 and connection
failures are not era evidence: the probe is retried later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import probe as era_probe
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.modern_http import forwarded_authorization
from mcp_eras.bridge.translate.modern_upstream import bridge_meta
from mcp_eras.bridge.translate.probe import classify_discover_answer
from mcp_eras.bridge.upstream import prespawn
from mcp_eras.bridge.upstream.http_pool import upstream_client
from mcp_eras.bridge.upstream.legacy import LegacyUpstream
from mcp_eras.bridge.upstream.legacy_transport import (
    Handshake,
    LegacyTransport,
    SseTransport,
    StdioTransport,
    StreamableHttpTransport,
)
from mcp_eras.bridge.upstream.process import SEND_WAIT_S, ChildProcess

log = logging.getLogger("mcp_bridge.probe")


@dataclass
class Target:
    """Where an upstream lives: a URL, or a command to run as a stdio child."""

    url: str | None = None
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    inherit_env: bool = True
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    name: str = "upstream"
    transport: str = "auto"
    """For URLs: auto | streamable-http | sse (the deprecated 2024-11-05 HTTP+SSE transport)."""
    auth: httpx.Auth | None = None
    """For URLs: how the bridge signs in to a protected server (``mcp_eras.bridge.auth.UpstreamOAuth``): every request of
    the upstream's HTTP clients, the era probe's included, carries its bearer token; None sends only ``headers``."""

    def __post_init__(self) -> None:
        if bool(self.url) == bool(self.command):
            raise ValueError("an upstream is either a URL or a command, exactly one")

    def describe(self) -> str:
        return self.url or " ".join(self.command)


@dataclass
class ProbeResult:
    era: eras.Era | None
    transport: str
    discover: Message | None = None
    detail: str = ""
    child: ChildProcess | None = None
    """stdio with ``keep_child``: the probed child, to serve from (one spawn)."""
    handshake: Handshake | None = None
    """stdio, legacy, with ``child``: the ``initialize`` it already answered (its first session adopts it)."""


def discover_request(settings: Settings, rid: str = "mcp-bridge-probe") -> Message:
    return jsonrpc.request(rid, "server/discover", {"_meta": bridge_meta(settings.bridge_info())})


async def probe_http(url: str, settings: Settings, headers: dict[str, str] | None = None,
                     auth: httpx.Auth | None = None) -> ProbeResult:
    req = discover_request(settings)
    h = {
        "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
        "MCP-Protocol-Version": eras.MODERN, "Mcp-Method": "server/discover", **(headers or {}),
    }
    async with httpx.AsyncClient(timeout=settings.probe_timeout, auth=auth) as client:
        try:
            resp = await client.post(url, content=jsonrpc.dumps(req), headers=h)
        except httpx.TimeoutException:
            return await _confirm_http(url, settings, headers, auth)
        except httpx.HTTPError as exc:
            raise UpstreamError(f"cannot reach {url}: {exc}") from None
        body = _answer(resp)
        era = classify_discover_answer(resp.status_code, body)
        if era is None:
            raise UpstreamError(f"{url} answered HTTP {resp.status_code}: authentication required")
        if era == eras.MODERN:
            return ProbeResult(era, "streamable-http", body.get("result") if isinstance(body, dict) else None)
        if resp.status_code in (404, 405) and not isinstance(body, dict):
            # Not a Streamable HTTP endpoint at all: maybe the deprecated HTTP+SSE transport.
            with contextlib.suppress(httpx.HTTPError):
                async with client.stream("GET", url, headers={"Accept": "text/event-stream"}) as sse:
                    if sse.status_code == 200 and sse.headers.get("content-type", "").startswith("text/event-stream"):
                        return ProbeResult(eras.LEGACY, "sse", detail="HTTP+SSE endpoint")
        return ProbeResult(eras.LEGACY, "streamable-http", detail=f"HTTP {resp.status_code}")


def _answer(resp: httpx.Response) -> Any:
    """The JSON-RPC frame of a POST's answer (a JSON body, or the last ``data:`` line of an SSE body), else None."""
    body: Any = None
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        for line in resp.text.splitlines():
            if line.startswith("data:"):
                with contextlib.suppress(Exception):
                    body = jsonrpc.loads(line[5:].strip())
    else:
        with contextlib.suppress(Exception):
            body = resp.json()
    return body


async def _confirm_http(url: str, settings: Settings, headers: dict[str, str] | None, auth: httpx.Auth | None = None) -> ProbeResult:
    """``server/discover`` went unanswered in time: ask ``initialize`` before judging the server legacy (a loaded
    2026 server refuses it naming its versions: ``era_probe.verdict_after_silence``). A legacy session opened only
    to ask is ended again (2025-11-25 basic/transports.mdx §Session Management: DELETE)."""
    req = jsonrpc.request(CONFIRM_ID, "initialize", era_probe.confirm_params(None, settings.bridge_info()))
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **(headers or {})}
    answer: Any = None
    async with httpx.AsyncClient(timeout=settings.connect_timeout, auth=auth) as client:
        with contextlib.suppress(httpx.HTTPError):
            resp = await client.post(url, content=jsonrpc.dumps(req), headers=h)
            answer = _answer(resp)
            if sid := resp.headers.get("mcp-session-id"):
                await client.delete(url, headers={**h, "Mcp-Session-Id": sid})
    era = era_probe.verdict_after_silence(answer)
    refused = "; initialize refused naming the 2026 protocol" if era == eras.MODERN else ""
    return ProbeResult(era, "streamable-http", detail=f"no answer to server/discover{refused}")


PROBE_ID = "mcp-bridge-probe"
EXIT_REPORT_S = 2.0
"""How long a send that failed on a dying probe child waits for its exit (to report its status and stderr)."""
CONFIRM_ID = "mcp-bridge-probe-initialize"


class StdioProbe:
    """The era probe of a stdio server, on the child that then serves (one spawn per upstream).

    ``ask()`` spawns the child and asks ``server/discover``; ``conclude()`` confirms a provisional legacy verdict
    with ``initialize`` on the same child (the first caller's identity: ``era_probe.confirm_params``) and hands the
    child over: to the modern upstream, or with its ``Handshake`` to the first 2025 session. The decisions are the
    pure table's (``probe``); this shell only waits and forwards."""

    def __init__(self, target: Target, settings: Settings) -> None:
        self.target = target
        self.settings = settings
        self.answers: asyncio.Queue[Message] = asyncio.Queue()
        self.state = era_probe.ProbeState()
        self.answer: Message | None = None
        self._exited = asyncio.Event()
        self.child = ChildProcess(target.command, on_message=self._on_message, on_exit=self._on_exit, env=target.env,
                                  inherit_env=target.inherit_env,
                                  cwd=target.cwd, name=f"{target.name}-probe", quiet=True, max_line_bytes=settings.max_line_bytes,
                                  backoff_initial=settings.respawn_backoff_initial, backoff_max=settings.respawn_backoff_max)

    async def _on_message(self, msg: Message) -> None:
        if jsonrpc.is_response(msg):
            self.answers.put_nowait(msg)

    async def _on_exit(self, _code: int) -> None:
        self._exited.set()

    def _exit_error(self) -> UpstreamError:
        """The child died before answering: its exit status and last stderr lines (shown whether the probe's stderr
        is or not), at once, instead of a verdict from its silence."""
        return UpstreamError(f"{self.target.name}: {self.child.exit_description()}")

    async def _send(self, msg: Message) -> None:
        """Send to the child; one that cannot take it because it is dying is reported by its exit (when that comes
        within ``EXIT_REPORT_S``)."""
        try:
            await self.child.send(msg)
        except UpstreamError:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exited.wait(), EXIT_REPORT_S)
            if self._exited.is_set():
                raise self._exit_error() from None
            raise

    async def _next_answer(self) -> Message:
        """The child's next answer; ``UpstreamError`` (``_exit_error``) when it exits before one."""
        if self.answers.empty() and self._exited.is_set():
            raise self._exit_error()
        get = asyncio.ensure_future(self.answers.get())
        exited = asyncio.ensure_future(self._exited.wait())
        try:
            done, _ = await asyncio.wait({get, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            get.cancel()
            exited.cancel()
        if get in done:
            return get.result()
        raise self._exit_error()

    async def ask(self) -> None:
        """Spawn and ask ``server/discover``; afterwards ``state`` holds the discover evidence."""
        await self.child.start()
        await self.child.wait_ready(self.settings.connect_timeout)
        await self._send(discover_request(self.settings, PROBE_ID))
        self.answer = await self._first_answer()
        era_probe.observe(self.state, era_probe.discover_signal(None, self.answer) if self.answer is not None else "no-answer")

    async def _first_answer(self) -> Message | None:
        """The child's answer to the probe, or None: the child may load silently for up to ``probe_start_timeout``;
        from its first output on (stdout or stderr) it has ``probe_timeout`` to answer (``era_probe.discover_deadline``)."""
        loop = asyncio.get_running_loop()
        get = asyncio.ensure_future(self._next_answer())  # raises when the child exits first
        seen = asyncio.ensure_future(self.child.output_seen.wait())
        try:
            done, _ = await asyncio.wait({get, seen}, timeout=self.settings.probe_start_timeout, return_when=asyncio.FIRST_COMPLETED)
            if get in done:
                return get.result()
            if not done:
                return None
            deadline = era_probe.discover_deadline(loop.time(), self.settings.probe_timeout)
            try:
                return await asyncio.wait_for(asyncio.shield(get), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return None
        finally:
            get.cancel()
            seen.cancel()

    async def _confirm(self, params: Message) -> Message | None:
        """``initialize`` on the same child: a modern-only server refuses it naming its versions (the re-probe); a
        late answer to ``server/discover`` counts too. Returns the InitializeResult when the handshake succeeded.
        A child that exits instead raises ``UpstreamError`` with its exit status and last stderr lines."""
        try:
            await self._send(jsonrpc.request(CONFIRM_ID, "initialize", params))
            async with asyncio.timeout(self.settings.probe_timeout):
                while True:
                    msg = await self._next_answer()
                    if msg.get("id") == PROBE_ID:
                        self.answer = msg
                        era_probe.observe(self.state, era_probe.discover_signal(None, msg))
                        if self.state.final:
                            return None
                    if msg.get("id") == CONFIRM_ID:
                        era_probe.observe(self.state, era_probe.initialize_signal(msg))
                        result = msg.get("result")
                        return result if isinstance(result, dict) else None
        except TimeoutError:
            return None
        except UpstreamError:
            if self._exited.is_set():
                raise self._exit_error() from None
            return None

    async def conclude(self, first_request: Message | None = None, keep_child: bool = False,
                       confirm: bool = True) -> ProbeResult:
        """The verdict. With ``keep_child`` the child is handed over in the result (modern, or legacy with the
        handshake done for ``first_request``'s identity); otherwise it is stopped. ``confirm=False`` (with
        ``keep_child``, when no caller's identity is known yet): a provisional legacy verdict is handed over with the
        uninitialized child, whose first session's own ``initialize`` is the confirmation (a refusal is an
        era-typical failure: the holder re-probes)."""
        handshake: Handshake | None = None
        deferred = keep_child and not confirm and era_probe.needs_confirmation(self.state)
        if era_probe.needs_confirmation(self.state) and not deferred:
            params = era_probe.confirm_params(first_request, self.settings.bridge_info())
            try:
                init = await self._confirm(params)
            except BaseException:
                await self.aclose()
                raise
            if init is not None:
                handshake = Handshake(params, init)
        era = self.state.era or eras.LEGACY
        discover = self.answer.get("result") if era == eras.MODERN and isinstance(self.answer, dict) else None
        result = ProbeResult(era, "stdio", discover if isinstance(discover, dict) else None, detail=", ".join(self.state.signals))
        if keep_child and (era == eras.MODERN or handshake is not None or deferred):
            self.child.on_exit = None  # its new holder watches it
            result.child, result.handshake = self.child, handshake if era == eras.LEGACY else None
        else:
            await self.aclose()
        return result

    async def aclose(self) -> None:
        await self.child.aclose()


async def probe_stdio(target: Target, settings: Settings, keep_child: bool = False,
                      first_request: Message | None = None, confirm: bool = True) -> ProbeResult:
    """Spawn the server once and ask ``server/discover`` (then ``initialize`` when that says legacy)."""
    stdio = StdioProbe(target, settings)
    try:
        await stdio.ask()
    except BaseException:
        await stdio.aclose()
        raise
    return await stdio.conclude(first_request, keep_child, confirm)


async def probe(target: Target, settings: Settings, keep_child: bool = False, confirm: bool = True) -> ProbeResult:
    if target.url:
        return await probe_http(target.url, settings, target.headers, target.auth)
    return await probe_stdio(target, settings, keep_child, confirm=confirm)


EARLY_EXIT_WINDOW = 0.3
"""Seconds a pre-started stdio child is watched for an immediate exit (a wrong path or argument) before ``start()``
returns: the fail-fast of a provisional session, without its handshake. The child loads meanwhile, so this costs
nothing when it takes longer to become responsive (an interpreter importing its SDK does)."""


async def _drop(_msg: Message) -> None:
    """Nothing is asked of a child before its session adopts it; a server speaking first is not answered."""


async def _started_or_close(child: ChildProcess, settings: Settings) -> None:
    """Start ``child``; raise ``UpstreamError`` (child closed) when it cannot start or exits within the window."""
    exited = asyncio.Event()

    async def on_exit(_code: int) -> None:
        exited.set()

    child.on_exit = on_exit
    try:
        await child.start()
        await child.wait_ready(settings.connect_timeout)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(exited.wait(), min(EARLY_EXIT_WINDOW, settings.connect_timeout))
        if exited.is_set():
            raise UpstreamError(f"upstream {child.name} exited at start: {child.exit_description()}")
    except BaseException:
        await child.aclose()
        raise
    child.on_exit = None


def legacy_upstream(target: Target, settings: Settings, transport: str | None = None,
                    adopt: ProbeResult | None = None) -> LegacyUpstream:
    """A 2025 upstream. ``adopt``: a stdio probe's result with its child; the first session runs on that child."""
    kind = transport or target.transport
    adopted: list[ChildProcess] = [adopt.child] if adopt is not None and adopt.child is not None else []
    handshake = adopt.handshake if adopt is not None else None
    client: httpx.AsyncClient | None = None
    if target.url:
        # Connections are not capped (every pooled session holds a GET stream) but all of them are
        # kept alive: a keep-alive cap below the concurrency churns TCP connections under load. The
        # pool wait is bounded anyway: an exhausted pool must surface as an error, never as a hang.
        client = upstream_client(httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout,
                                               pool=settings.connect_timeout), settings.upstream_keepalive_expiry,
                                auth=target.auth)

    def factory(ctx: CallContext) -> LegacyTransport:
        headers = dict(target.headers)
        caller = forwarded_authorization(ctx.authorization, ctx.subject)  # never the caller's token behind a resource server
        if caller:
            headers["Authorization"] = caller
        if target.url:
            assert client is not None
            if kind == "sse":
                return SseTransport(target.url, client, headers, timeout=settings.connect_timeout)
            return StreamableHttpTransport(target.url, client, headers, timeout=settings.request_timeout)
        child = adopted.pop() if adopted else None
        return StdioTransport(target.command, env=target.env, cwd=target.cwd, inherit_env=target.inherit_env, name=target.name,
                              max_line_bytes=settings.max_line_bytes, backoff_initial=settings.respawn_backoff_initial,
                              backoff_max=settings.respawn_backoff_max, child=child, handshake=handshake if child else None,
                              send_wait=min(SEND_WAIT_S, settings.request_timeout))

    async def prestart() -> None:
        """stdio: the child starts now, uninitialized; the first session adopts it and initializes it for its own
        caller (2025-11-25 basic/lifecycle.mdx §Initialization: once per connection), so one child, not two."""
        if adopted:  # the era probe's child, running already
            return
        child = ChildProcess(target.command, on_message=_drop, env=target.env, inherit_env=target.inherit_env, cwd=target.cwd,
                             name=target.name, max_line_bytes=settings.max_line_bytes,
                             backoff_initial=settings.respawn_backoff_initial, backoff_max=settings.respawn_backoff_max)
        await _started_or_close(child, settings)
        adopted.append(child)

    up = LegacyUpstream(factory, settings, name=target.name, prestart=None if target.url else prestart)
    if client is not None or target.command:
        original = up.aclose

        async def aclose() -> None:
            await original()
            for child in adopted:  # never claimed by a session
                await child.aclose()
            if client is not None:
                await client.aclose()

        up.aclose = aclose  # type: ignore[method-assign]
    return up


def modern_upstream(target: Target, settings: Settings, process: ChildProcess | None = None) -> Upstream:
    from mcp_eras.bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream

    if target.url:
        return ModernHttpUpstream(target.url, settings, headers=target.headers or None, auth=target.auth)
    return ModernStdioUpstream(target.command, settings, env=target.env or None, cwd=target.cwd, inherit_env=target.inherit_env,
                               name=target.name, process=process)


class AutoUpstream(Upstream):
    """Probes the target's era on first use and delegates to the upstream of that era.

    A stdio target is spawned once: ``start()`` asks the child ``server/discover``; a modern answer makes it the
    modern upstream's child at once, a provisional legacy one is confirmed with ``initialize`` on the first request,
    for that caller's identity, and the child becomes the first 2025 session (``StdioProbe``). The upstream of that
    era is its ``inner`` from then on."""

    wraps = True

    def __init__(self, target: Target, settings: Settings) -> None:
        self.target = target
        self.settings = settings
        self.inner: Upstream | None = None
        self.probed_at = 0.0
        self.probe_result: ProbeResult | None = None
        self._pending: StdioProbe | None = None
        self._lock = asyncio.Lock()
        self.era = eras.LEGACY
        self._failures = 0
        self._failure: UpstreamError | None = None
        """The last probe that failed (a child that died at start): callers that waited on it get it too, at once."""

    async def _ask(self) -> StdioProbe | None:
        """stdio: spawn and ask ``server/discover`` once (under the lock); the probe awaiting its verdict."""
        if self.target.url or self._pending is not None:
            return self._pending
        stdio = StdioProbe(self.target, self.settings)
        prespawn.discard()  # started early for another command line than the one the CLI settled on
        try:
            await stdio.ask()
        except BaseException:
            await stdio.aclose()
            raise
        self._pending = stdio
        return stdio

    async def _resolve(self, first_request: Message | None = None, ctx: CallContext | None = None) -> Upstream:
        if self.inner is not None:
            return self.inner
        failures = self._failures
        async with self._lock:
            if self.inner is not None:
                return self.inner
            if self._failures != failures and self._failure is not None:
                raise UpstreamError(str(self._failure))
            try:
                return await self._resolve_locked(first_request, ctx)
            except UpstreamError as exc:
                self._failure = exc
                self._failures += 1
                raise

    async def _resolve_locked(self, first_request: Message | None, ctx: CallContext | None) -> Upstream:
        stdio = await self._ask()
        if stdio is None:
            result = await probe(self.target, self.settings)
        else:
            identity = first_request if first_request is not None else ctx.identity_request() if ctx else None
            self._pending = None
            result = await stdio.conclude(identity, keep_child=True)
        self.probe_result = result
        self.probed_at = time.monotonic()
        log.info("upstream %s speaks %s (%s%s)", self.target.name, result.era, result.transport,
                 f"; {result.detail}" if result.detail else "")
        assert result.era is not None
        self.era = result.era
        if result.era == eras.MODERN:
            self.inner = modern_upstream(self.target, self.settings, result.child)
        else:
            self.inner = legacy_upstream(self.target, self.settings, result.transport if self.target.url else None,
                                         adopt=result)
        if result.child is None:
            await self.inner.start()  # fail fast (an adopted child is running and answered already)
        return self.inner

    async def start(self) -> None:
        if self.inner is not None:
            return
        if self.target.command:
            async with self._lock:
                stdio = await self._ask()
            if stdio is not None and not era_probe.needs_confirmation(stdio.state):
                await self._resolve()  # modern (or no confirmation possible): nothing waits for the caller
            return
        await self._resolve()

    async def discover(self, ctx: CallContext) -> Message:
        return await (await self._resolve(None, ctx)).discover(ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        try:
            inner = await self._resolve(request, ctx)
        except UpstreamError as exc:
            return jsonrpc.error_response(request.get("id"), jsonrpc.INTERNAL_ERROR, f"Upstream unavailable: {exc}")
        return await inner.call(request, ctx, emit)

    async def aclose(self) -> None:
        if self._pending is not None:
            await self._pending.aclose()
        if self.inner is not None:
            await self.inner.aclose()

    def status(self) -> dict[str, Any]:
        if self.inner is None:
            return {"era": None, "state": "not probed"}
        return {**self.inner.status(), "probed": self.probe_result.transport if self.probe_result else None}


def make_upstream(target: Target, settings: Settings) -> Upstream:
    if settings.upstream_era == eras.LEGACY:
        return legacy_upstream(target, settings)
    if settings.upstream_era == eras.MODERN:
        return modern_upstream(target, settings)
    return AutoUpstream(target, settings)
