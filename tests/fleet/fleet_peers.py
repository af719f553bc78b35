"""Real peers for the fleet tests: sample servers of both eras and transports, a fleet bridge
subprocess, and a small raw 2026-07-28 HTTP client for load (many concurrent calls)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

import peers

LEGACY_SERVER = peers.SAMPLES / "legacy" / "everything_server.py"
MODERN_SERVER = peers.SAMPLES / "modern" / "everything_server.py"
VARIANT_SERVER = peers.SAMPLES / "fleet" / "variant_server.py"
MODERN_TWIN = peers.SAMPLES / "fleet" / "modern_twin.py"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ADMIN_TOKEN = "fleet-test-admin-token"
"""Given to every test bridge (and CLI run) as $MCP_BRIDGE_ADMIN_TOKEN."""
ADMIN_ENV = {"MCP_BRIDGE_ADMIN_TOKEN": ADMIN_TOKEN}
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


needs_modern_upstream = pytest.mark.skipif(not _importable("mcp_eras.bridge.upstream.modern"),
                                           reason="mcp_eras.bridge.upstream.modern (2026 upstreams) is not in this build yet")
needs_legacy_front = pytest.mark.skipif(not _importable("mcp_eras.bridge.front.legacy"),
                                        reason="mcp_eras.bridge.front.legacy (the 2025 front) is not in this build yet")


def legacy_cmd(*args: str) -> list[str]:
    return [peers.legacy_python(), str(LEGACY_SERVER), *args]


def modern_cmd(*args: str) -> list[str]:
    return [peers.MODERN_PYTHON, str(MODERN_SERVER), *args]


def drift_cmd(*kinds: str) -> list[str]:
    return [peers.legacy_python(), str(VARIANT_SERVER), "--drift", *kinds]


def twin_cmd(*args: str) -> dict[str, Any]:
    """A fleet server entry for the modern (mcp 2.3.0) twin with test hooks (see modern_twin.py)."""
    return {"command": peers.MODERN_PYTHON, "args": [str(MODERN_TWIN), *args]}


def variant(*args: str) -> dict[str, Any]:
    """A fleet server entry for the legacy (mcp 1.29) variant server with test hooks."""
    return {"command": peers.legacy_python(), "args": [str(VARIANT_SERVER), *args]}


def gate_cmd() -> list[str]:
    return [peers.legacy_python(), str(VARIANT_SERVER), "--gate", "stdio"]


@contextlib.contextmanager
def http_samples() -> Iterator[dict[str, str]]:
    """The HTTP sample servers: legacy Streamable HTTP, legacy HTTP+SSE, modern-only Streamable HTTP."""
    p1, p2, p3 = peers.free_port(), peers.free_port(), peers.free_port()
    with contextlib.ExitStack() as stack:
        stack.enter_context(peers.running(legacy_cmd("http", "--port", str(p1)), p1))
        stack.enter_context(peers.running(legacy_cmd("sse", "--port", str(p2)), p2))
        stack.enter_context(peers.running(modern_cmd("http", "--port", str(p3), "--modern-only"), p3))
        yield {"legacy-http": f"http://127.0.0.1:{p1}/mcp", "legacy-sse": f"http://127.0.0.1:{p2}/sse",
               "modern-http": f"http://127.0.0.1:{p3}/mcp"}


def mixed_servers(urls: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Five sample servers: both SDKs, both eras, stdio and HTTP (Streamable and HTTP+SSE)."""
    return {
        "legacy-stdio": {"command": peers.legacy_python(), "args": [str(LEGACY_SERVER), "stdio"]},
        "modern-stdio": {"command": peers.MODERN_PYTHON, "args": [str(MODERN_SERVER), "stdio", "--modern-only"]},
        "legacy-http": {"url": urls["legacy-http"]},
        "legacy-sse": {"url": urls["legacy-sse"]},
        "modern-http": {"url": urls["modern-http"], "headers": {"X-Fleet-Test": "1"}},
    }


EXPECTED_ERA = {"legacy-stdio": LEGACY, "modern-stdio": MODERN, "legacy-http": LEGACY, "legacy-sse": LEGACY, "modern-http": MODERN}
EXPECTED_NAME = {k: ("legacy-everything" if v == LEGACY else "modern-everything") for k, v in EXPECTED_ERA.items()}


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def fleet_toml(servers: dict[str, dict[str, Any]], bridge: dict[str, Any] | None = None) -> str:
    lines = []
    if bridge:
        lines.append("[bridge]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in bridge.items()]
        lines.append("")
    for name, server in servers.items():
        lines.append(f"[servers.{json.dumps(name)}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in server.items()]
        lines.append("")
    return "\n".join(lines)


@dataclass
class FleetBridge:
    proc: subprocess.Popen
    port: int
    config: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, name: str) -> str:
        return f"{self.base}/servers/{name}/mcp"

    def health(self) -> dict[str, Any]:
        return httpx.get(f"{self.base}/healthz", timeout=30).json()

    def metrics(self) -> str:
        return httpx.get(f"{self.base}/metrics", timeout=30).text

    def write(self, servers: dict[str, dict[str, Any]], bridge: dict[str, Any] | None = None) -> None:
        self.config.write_text(fleet_toml(servers, bridge))


@contextlib.contextmanager
def fleet_bridge(tmp: Path, servers: dict[str, dict[str, Any]], bridge: dict[str, Any] | None = None,
                 env: dict[str, str] | None = None) -> Iterator[FleetBridge]:
    config = tmp / "fleet.toml"
    config.write_text(fleet_toml(servers, bridge))
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "warning"]
    with peers.running(cmd, port, env={**ADMIN_ENV, **(env or {})}) as proc:
        yield FleetBridge(proc, port, config)


def wait_for(predicate: Any, what: str, timeout: float = 120.0, interval: float = 0.1) -> Any:
    """Poll until ``predicate()`` is truthy (a generous bound against hangs, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            last = predicate()
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"gave up waiting for {what} (last value: {last!r})")


async def until(predicate: Any, what: str, bound: float = 300.0) -> Any:
    """Await ``predicate()`` until truthy (failed HTTP or assertions count as not yet); the bound only
    stops a hang, nothing is timed."""
    async def loop() -> Any:
        while True:
            try:
                value = await predicate()
            except (AssertionError, httpx.HTTPError):
                value = None
            if value:
                return value
            await asyncio.sleep(0.05)

    try:
        return await asyncio.wait_for(loop(), bound)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


def run_cli(*args: str, timeout: float = 240, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``mcp-bridge ARGS`` (with the test admin token in its environment unless ``env`` says otherwise)."""
    return subprocess.run([*peers.bridge_cmd(), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **ADMIN_ENV, **(env or {})})


def run_client(kind: str, url: str, scenarios: tuple[str, ...] = ("basic",), timeout: float = 180) -> dict[str, Any]:
    """One sample client run (``modern`` = mcp 2.3.0 on 2026-07-28, ``legacy`` = mcp 1.29 on 2025-11-25)."""
    python = peers.MODERN_PYTHON if kind == "modern" else peers.legacy_python()
    cmd = [python, str(peers.SAMPLES / "clients" / f"{kind}_client.py"), url, "--json"]
    for s in scenarios:
        cmd += ["--scenario", s]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.stdout.strip(), f"{kind} client printed nothing; stderr:\n{proc.stderr[-3000:]}"
    report = json.loads(proc.stdout)
    failed = {k: v.get("error") for k, v in report["scenarios"].items() if not v["ok"]}
    assert not failed, f"{kind} client against {url}: {failed}\nstderr:\n{proc.stderr[-3000:]}"
    return report


# --- a raw 2026-07-28 client: many concurrent calls without an SDK per call ----------------------------

_ids = itertools.count(1)


def canonical(method: str, params: dict[str, Any] | None = None, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    body = dict(params or {})
    body["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities or {},
                     "io.modelcontextprotocol/clientInfo": {"name": "fleet-test", "version": "1"}}
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": body}


async def rpc(client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any] | None = None,
              headers: dict[str, str] | None = None, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    msg = canonical(method, params, capabilities)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": MODERN, "Mcp-Method": method, **(headers or {})}
    name = (params or {}).get("name") or (params or {}).get("uri")
    if name is not None:
        h["Mcp-Name"] = str(name)
    resp = await client.post(url, content=json.dumps(msg), headers=h)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        for line in resp.text.splitlines():
            if line.startswith("data:"):
                frame = json.loads(line[5:])
                if frame.get("id") == msg["id"]:
                    return frame
        raise AssertionError(f"no response in the SSE stream from {url}")
    return resp.json()


async def listen(client: httpx.AsyncClient, url: str, notifications: dict[str, Any]) -> list[dict[str, Any]]:
    """A ``subscriptions/listen`` stream, read to its end: every frame, the final response last."""
    msg = canonical("subscriptions/listen", {"notifications": notifications})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen"}
    frames: list[dict[str, Any]] = []
    async with client.stream("POST", url, content=json.dumps(msg), headers=headers) as resp:
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                frame = json.loads(line[5:])
                frames.append(frame)
                if frame.get("id") == msg["id"]:
                    break
    return frames


async def tool(client: httpx.AsyncClient, url: str, name: str, arguments: dict[str, Any]) -> tuple[str, str | None]:
    """Call a tool; (first text content, the answering server's name). Raises on any failure."""
    frame = await rpc(client, url, "tools/call", {"name": name, "arguments": arguments})
    if "error" in frame:
        raise AssertionError(f"{name} via {url}: {frame['error']}")
    result = frame["result"]
    if result.get("isError"):
        raise AssertionError(f"{name} via {url}: isError {result}")
    info = (result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}
    return result["content"][0]["text"], info.get("name")


async def echo(client: httpx.AsyncClient, url: str, text: str) -> str:
    """Call the sample ``echo`` tool; returns the echoed text (raises on any failure)."""
    return (await tool(client, url, "echo", {"text": text}))[0]


async def legacy_post(client: httpx.AsyncClient, url: str, msg: dict[str, Any], session: str | None,
                      headers: dict[str, str] | None = None) -> tuple[httpx.Response, Any]:
    """One 2025-11-25 Streamable HTTP POST; the JSON-RPC answer (from JSON or SSE), if any."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **(headers or {})}
    if session:
        h |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    resp = await client.post(url, content=json.dumps(msg), headers=h)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        frames = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return resp, next((f for f in frames if f.get("id") == msg.get("id")), None)
    return resp, (resp.json() if resp.content else None)


async def legacy_session(client: httpx.AsyncClient, url: str, headers: dict[str, str] | None = None,
                         name: str = "raw-2025") -> str:
    """Open a 2025-11-25 session (initialize + initialized); its Mcp-Session-Id."""
    resp, init = await legacy_post(client, url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": name, "version": "1"}}}, None, headers)
    assert init is not None and init["result"]["protocolVersion"] == LEGACY, init
    session = resp.headers["mcp-session-id"]
    await legacy_post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, headers)
    return session


def metric(text: str, name: str, **labels: str) -> float:
    from mcp_eras.bridge.fleet.metrics import parse_text

    total = 0.0
    for lbl, value in parse_text(text).get(name, []):
        if all(lbl.get(k) == v for k, v in labels.items()):
            total += value
    return total
