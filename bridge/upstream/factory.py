"""Build the right Upstream for a target: era probing (2026 backward-compatibility rules) and caching.

The probe sends ``server/discover`` with the 2026 ``_meta`` and hands the answer to the pure
classification (``mcp_eras.bridge.translate.era_probe``, its table cites the spec); 401/403 and connection
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

from mcp_eras.bridge import eras, jsonrpc
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError
from mcp_eras.bridge.jsonrpc import Message
from mcp_eras.bridge.translate import era_probe
from mcp_eras.bridge.translate.era_probe import classify_discover_answer
from mcp_eras.bridge.translate.modern_upstream import bridge_meta
from mcp_eras.bridge.upstream.http_pool import upstream_client
from mcp_eras.bridge.upstream.legacy import LegacyUpstream
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport, SseTransport, StdioTransport, StreamableHttpTransport
from mcp_eras.bridge.upstream.process import ChildProcess

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
    """stdio, modern, ``keep_child``: the probed child, to serve from (one spawn)."""


def discover_request(settings: Settings, rid: str = "mcp-bridge-probe") -> Message:
    return jsonrpc.request(rid, "server/discover", {"_meta": bridge_meta(settings.bridge_info())})


async def probe_http(url: str, settings: Settings, headers: dict[str, str] | None = None) -> ProbeResult:
    req = discover_request(settings)
    h = {
        "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
        "MCP-Protocol-Version": eras.MODERN, "Mcp-Method": "server/discover", **(headers or {}),
    }
    async with httpx.AsyncClient(timeout=settings.probe_timeout) as client:
        try:
            resp = await client.post(url, content=jsonrpc.dumps(req), headers=h)
        except httpx.TimeoutException:
            return ProbeResult(eras.LEGACY, "streamable-http", detail="no answer to server/discover")
        except httpx.HTTPError as exc:
            raise UpstreamError(f"cannot reach {url}: {exc}") from None
        body: Any = None
        if resp.headers.get("content-type", "").startswith("text/event-stream"):
            for line in resp.text.splitlines():
                if line.startswith("data:"):
                    with contextlib.suppress(Exception):
                        body = jsonrpc.loads(line[5:].strip())
        else:
            with contextlib.suppress(Exception):
                body = resp.json()
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


PROBE_ID = "mcp-bridge-probe"
CONFIRM_ID = "mcp-bridge-probe-initialize"


async def _first_answer(child: ChildProcess, answers: asyncio.Queue[Message], settings: Settings) -> Message | None:
    """The child's answer to the probe, or None: the child may load silently for up to ``probe_start_timeout``;
    from its first output on (stdout or stderr) it has ``probe_timeout`` to answer (``era_probe.discover_deadline``)."""
    loop = asyncio.get_running_loop()
    get = asyncio.ensure_future(answers.get())
    seen = asyncio.ensure_future(child.output_seen.wait())
    try:
        done, _ = await asyncio.wait({get, seen}, timeout=settings.probe_start_timeout, return_when=asyncio.FIRST_COMPLETED)
        if get in done:
            return get.result()
        if not done:
            return None
        deadline = era_probe.discover_deadline(loop.time(), settings.probe_timeout)
        try:
            return await asyncio.wait_for(asyncio.shield(get), max(0.0, deadline - loop.time()))
        except TimeoutError:
            return None
    finally:
        get.cancel()
        seen.cancel()


async def _confirm_legacy(child: ChildProcess, answers: asyncio.Queue[Message], settings: Settings,
                          state: era_probe.ProbeState) -> Message | None:
    """A provisional legacy verdict is checked on the same child with ``initialize``: a modern-only server refuses
    it naming its versions (the re-probe); a late answer to ``server/discover`` counts too. Returns that answer."""
    init = jsonrpc.request(CONFIRM_ID, "initialize", {"protocolVersion": eras.LEGACY, "capabilities": {},
                                                      "clientInfo": settings.bridge_info()})
    try:
        await child.send(init)
        async with asyncio.timeout(settings.probe_timeout):
            while True:
                msg = await answers.get()
                if msg.get("id") == PROBE_ID:
                    era_probe.observe(state, era_probe.discover_signal(None, msg))
                    return msg
                if msg.get("id") == CONFIRM_ID:
                    era_probe.observe(state, era_probe.initialize_signal(msg))
                    return None
    except (TimeoutError, UpstreamError):
        return None


async def probe_stdio(target: Target, settings: Settings, keep_child: bool = False) -> ProbeResult:
    """Spawn the server once and ask ``server/discover`` (then ``initialize`` when that says legacy). With
    ``keep_child`` a modern server's child is handed over in ``ProbeResult.child`` (no second spawn); otherwise,
    and always for legacy servers (they were asked an era-ambiguous question), it is stopped."""
    answers: asyncio.Queue[Message] = asyncio.Queue()

    async def on_message(msg: Message) -> None:
        if jsonrpc.is_response(msg):
            answers.put_nowait(msg)

    child = ChildProcess(target.command, on_message=on_message, env=target.env, inherit_env=target.inherit_env,
                         cwd=target.cwd, name=f"{target.name}-probe", quiet=True)
    state = era_probe.ProbeState()
    handed_over = False
    try:
        await child.start()
        await child.wait_ready(settings.connect_timeout)
        await child.send(discover_request(settings, PROBE_ID))
        answer = await _first_answer(child, answers, settings)
        era_probe.observe(state, era_probe.discover_signal(None, answer) if answer is not None else "no-answer")
        if state.era == eras.LEGACY and not state.final:
            answer = await _confirm_legacy(child, answers, settings, state) or answer
        era = state.era or eras.LEGACY
        discover = answer.get("result") if era == eras.MODERN and isinstance(answer, dict) else None
        result = ProbeResult(era, "stdio", discover if isinstance(discover, dict) else None, detail=", ".join(state.signals))
        if era == eras.MODERN and keep_child:
            result.child, handed_over = child, True
        return result
    finally:
        if not handed_over:
            await child.aclose()


async def probe(target: Target, settings: Settings, keep_child: bool = False) -> ProbeResult:
    if target.url:
        return await probe_http(target.url, settings, target.headers)
    return await probe_stdio(target, settings, keep_child)


def legacy_upstream(target: Target, settings: Settings, transport: str | None = None) -> LegacyUpstream:
    kind = transport or target.transport
    client: httpx.AsyncClient | None = None
    if target.url:
        # Connections are not capped (every pooled session holds a GET stream) but all of them are
        # kept alive: a keep-alive cap below the concurrency churns TCP connections under load. The
        # pool wait is bounded anyway: an exhausted pool must surface as an error, never as a hang.
        client = upstream_client(httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout,
                                               pool=settings.connect_timeout), settings.upstream_keepalive_expiry)

    def factory(ctx: CallContext) -> LegacyTransport:
        headers = dict(target.headers)
        if ctx.authorization:
            headers["Authorization"] = ctx.authorization
        if target.url:
            assert client is not None
            if kind == "sse":
                return SseTransport(target.url, client, headers, timeout=settings.connect_timeout)
            return StreamableHttpTransport(target.url, client, headers, timeout=settings.request_timeout)
        return StdioTransport(target.command, env=target.env, cwd=target.cwd, inherit_env=target.inherit_env, name=target.name,
                              max_line_bytes=settings.max_line_bytes, backoff_initial=settings.respawn_backoff_initial,
                              backoff_max=settings.respawn_backoff_max)

    up = LegacyUpstream(factory, settings, name=target.name)
    if client is not None:
        original = up.aclose

        async def aclose() -> None:
            await original()
            await client.aclose()

        up.aclose = aclose  # type: ignore[method-assign]
    return up


def modern_upstream(target: Target, settings: Settings, process: ChildProcess | None = None) -> Upstream:
    from mcp_eras.bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream

    if target.url:
        return ModernHttpUpstream(target.url, settings, headers=target.headers or None)
    return ModernStdioUpstream(target.command, settings, env=target.env or None, cwd=target.cwd, inherit_env=target.inherit_env,
                               name=target.name, process=process)


class AutoUpstream(Upstream):
    """Probes the target's era on first use, delegates, and re-probes when the answer expires or
    the delegate fails in an era-typical way (a server upgraded in place is noticed)."""

    def __init__(self, target: Target, settings: Settings) -> None:
        self.target = target
        self.settings = settings
        self.delegate: Upstream | None = None
        self.probed_at = 0.0
        self.probe_result: ProbeResult | None = None
        self._lock = asyncio.Lock()
        self.era = eras.LEGACY

    async def _resolve(self) -> Upstream:
        if self.delegate is not None:
            return self.delegate
        async with self._lock:
            if self.delegate is not None:
                return self.delegate
            result = await probe(self.target, self.settings, keep_child=True)
            self.probe_result = result
            self.probed_at = time.monotonic()
            log.info("upstream %s speaks %s (%s%s)", self.target.name, result.era, result.transport,
                     f"; {result.detail}" if result.detail else "")
            assert result.era is not None
            self.era = result.era
            if result.era == eras.MODERN:
                self.delegate = modern_upstream(self.target, self.settings, result.child)
            else:
                self.delegate = legacy_upstream(self.target, self.settings, result.transport if self.target.url else None)
            await self.delegate.start()
            return self.delegate

    async def start(self) -> None:
        await self._resolve()

    async def discover(self, ctx: CallContext) -> Message:
        return await (await self._resolve()).discover(ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        try:
            delegate = await self._resolve()
        except UpstreamError as exc:
            return jsonrpc.error_response(request.get("id"), jsonrpc.INTERNAL_ERROR, f"Upstream unavailable: {exc}")
        return await delegate.call(request, ctx, emit)

    async def aclose(self) -> None:
        if self.delegate is not None:
            await self.delegate.aclose()

    def status(self) -> dict[str, Any]:
        if self.delegate is None:
            return {"era": None, "state": "not probed"}
        return {**self.delegate.status(), "probed": self.probe_result.transport if self.probe_result else None}


def make_upstream(target: Target, settings: Settings) -> Upstream:
    if settings.upstream_era == eras.LEGACY:
        return legacy_upstream(target, settings)
    if settings.upstream_era == eras.MODERN:
        return modern_upstream(target, settings)
    return AutoUpstream(target, settings)
