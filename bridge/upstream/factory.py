"""Build the right Upstream for a target: era probing (2026 backward-compatibility rules) and caching.

The probe sends ``server/discover`` with the 2026 ``_meta`` and hands the answer to the pure
classification (``bridge.translate.era_probe``, its table cites the spec); 401/403 and connection
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

from bridge import eras, jsonrpc
from bridge.config import Settings
from bridge.core import CallContext, Emit, Upstream, UpstreamError
from bridge.jsonrpc import Message
from bridge.translate.era_probe import classify_discover_answer
from bridge.translate.modern_upstream import bridge_meta
from bridge.upstream.legacy import LegacyUpstream
from bridge.upstream.legacy_transport import LegacyTransport, SseTransport, StdioTransport, StreamableHttpTransport

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


async def probe_stdio(target: Target, settings: Settings) -> ProbeResult:
    """Run a throwaway child, ask ``server/discover``, and stop it (a confused legacy process is not reused)."""
    answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()

    async def on_message(msg: Message) -> None:
        if jsonrpc.is_response(msg) and not answer.done():
            answer.set_result(msg)

    from bridge.upstream.process import ChildProcess

    child = ChildProcess(target.command, on_message=on_message, env=target.env, inherit_env=target.inherit_env,
                         cwd=target.cwd, name=f"{target.name}-probe", quiet=True)
    try:
        await child.start()
        await child.wait_ready(settings.probe_timeout)
        await child.send(discover_request(settings))
        try:
            msg = await asyncio.wait_for(answer, settings.probe_timeout)
        except TimeoutError:
            return ProbeResult(eras.LEGACY, "stdio", detail="no answer to server/discover")
        era = classify_discover_answer(None, msg) or eras.LEGACY
        return ProbeResult(era, "stdio", msg.get("result") if era == eras.MODERN else None)
    finally:
        await child.aclose()


async def probe(target: Target, settings: Settings) -> ProbeResult:
    if target.url:
        return await probe_http(target.url, settings, target.headers)
    return await probe_stdio(target, settings)


def legacy_upstream(target: Target, settings: Settings, transport: str | None = None) -> LegacyUpstream:
    kind = transport or target.transport
    client: httpx.AsyncClient | None = None
    if target.url:
        # Connections are not capped (every pooled session holds a GET stream) but all of them are
        # kept alive: a keep-alive cap below the concurrency churns TCP connections under load. The
        # pool wait is bounded anyway: an exhausted pool must surface as an error, never as a hang.
        client = httpx.AsyncClient(timeout=httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout,
                                                         pool=settings.connect_timeout),
                                   limits=httpx.Limits(max_connections=None, max_keepalive_connections=256))

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


def modern_upstream(target: Target, settings: Settings) -> Upstream:
    from bridge.upstream.modern import ModernHttpUpstream, ModernStdioUpstream

    if target.url:
        return ModernHttpUpstream(target.url, settings, headers=target.headers or None)
    return ModernStdioUpstream(target.command, settings, env=target.env or None, cwd=target.cwd, inherit_env=target.inherit_env,
                               name=target.name)


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
            result = await probe(self.target, self.settings)
            self.probe_result = result
            self.probed_at = time.monotonic()
            log.info("upstream %s speaks %s (%s%s)", self.target.name, result.era, result.transport,
                     f"; {result.detail}" if result.detail else "")
            assert result.era is not None
            self.era = result.era
            if result.era == eras.MODERN:
                self.delegate = modern_upstream(self.target, self.settings)
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
