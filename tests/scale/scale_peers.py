"""Real parts for the scale-out tests: a throw-away ``redis-server`` (loopback, free port, temp dir, no
persistence) and HAProxy (round-robin, no stickiness) in front of N ``mcp-bridge serve`` instances.
Both come from Debian (installed by .ci/bootstrap.sh); a test skips with a clear reason only when the
binary is truly absent."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

import peers

T = TypeVar("T")

STATE_KEY = "5c" * 32
"""A fixed state key shared by the instances of one test (hex, 32 bytes)."""


def need(binary: str) -> str:
    path = shutil.which(binary) or next((p for p in (f"/usr/sbin/{binary}", f"/usr/bin/{binary}") if Path(p).exists()), None)
    if path is None:
        pytest.skip(f"{binary} is not installed (bash .ci/bootstrap.sh installs it from Debian)")
    return path


@contextlib.contextmanager
def redis_process() -> Iterator[tuple[str, subprocess.Popen]]:
    """A private redis-server (loopback, free port, temp dir, no persistence): its URL (db 0) and process."""
    binary = need("redis-server")
    port = peers.free_port()
    with tempfile.TemporaryDirectory(prefix="mcp-eras-redis-") as tmp:
        cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", "", "--appendonly", "no",
               "--protected-mode", "yes", "--loglevel", "warning"]
        with peers.running(cmd, port) as proc:
            yield f"redis://127.0.0.1:{port}/0", proc


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    with redis_process() as (url, _):
        yield url


@dataclass
class Instance:
    instance_id: str
    port: int
    cmd: list[str]
    proc: subprocess.Popen | None = None
    env: dict[str, str] | None = None
    """Variables added to the environment of the process."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        env = {**os.environ, **self.env} if self.env else None
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        peers.wait_port(self.port, self.proc)

    def restart(self) -> None:
        self.stop()
        self.start()

    def stop(self, kill: bool = False) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Cluster:
    store: str
    instances: list[Instance] = field(default_factory=list)
    balancer_port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.balancer_port}/mcp"

    def counters(self, name: str) -> dict[str, dict[str, int]]:
        """``/healthz`` cluster counters (``forwarded`` or ``relayed``) of each live instance."""
        out = {}
        for inst in self.instances:
            if inst.proc is not None and inst.proc.poll() is None:
                health = httpx.get(f"http://127.0.0.1:{inst.port}/healthz", timeout=10).json()
                out[inst.instance_id] = health["upstream"]["cluster"][name]
        return out

    def counted(self, name: str, action: Callable[[], T]) -> tuple[T, dict[str, dict[str, int]]]:
        """Run ``action``; its result and how each instance's counters moved meanwhile."""
        before = self.counters(name)
        result = action()
        after = self.counters(name)
        return result, {i: {k: v - before.get(i, {}).get(k, 0) for k, v in after[i].items()} for i in after}


def bridge_instance(store: str, instance_id: str, upstream: list[str], *extra: str) -> Instance:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning",
           "--state-store", store, "--state-key", STATE_KEY, "--instance-id", instance_id, *extra, *upstream]
    return Instance(instance_id, port, cmd)


def haproxy_config(front_port: int, backends: list[int]) -> str:
    """Round-robin over the instances, no stickiness; a dead instance is taken out by the /healthz check and a
    request whose connection it refused is sent to another one (nothing reached the dead one); long
    timeouts for SSE and parked calls."""
    servers = "\n".join(f"    server b{i} 127.0.0.1:{port} check inter 500ms fall 3 rise 1" for i, port in enumerate(backends))
    return f"""global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 300s
    timeout server 300s
    timeout check 5s
    retries 3
    option redispatch 1
    option http-server-close
frontend mcp
    bind 127.0.0.1:{front_port}
    http-request deny deny_status 404 if {{ path_beg /internal/ }}
    default_backend bridges
backend bridges
    balance roundrobin
    option httpchk GET /healthz
{servers}
"""


@contextlib.contextmanager
def balancer(backends: list[int]) -> Iterator[int]:
    binary = need("haproxy")
    port = peers.free_port()
    with tempfile.TemporaryDirectory(prefix="mcp-eras-haproxy-") as tmp:
        cfg = Path(tmp) / "haproxy.cfg"
        cfg.write_text(haproxy_config(port, backends))
        with peers.running([binary, "-f", str(cfg), "-db"], port):
            yield port


@contextlib.contextmanager
def modern_cluster(tmp: Path, n: int, front_era: str) -> Iterator[Cluster]:
    """n instances sharing their own redis-server behind HAProxy, in front of the 2026 test server of the
    direction B tests (``tests/integration/direction_b_peers.MODERN_SERVER``: listen, change notifications)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
    from direction_b_peers import MODERN_SERVER

    script = tmp / "server.py"
    script.write_text(MODERN_SERVER)
    port = peers.free_port()
    upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2026-07-28", "--front-era", front_era]
    with peers.running([peers.MODERN_PYTHON, str(script), "http", str(port)], port), redis_server() as store, \
            cluster(store, upstream, n) as c:
        yield c


@contextlib.contextmanager
def cluster(store: str, upstream: list[str], n: int = 3, *extra: str) -> Iterator[Cluster]:
    """n bridge instances sharing ``store`` behind HAProxy."""
    c = Cluster(store, [bridge_instance(store, f"bridge-{i}", upstream, *extra) for i in range(n)])
    try:
        for inst in c.instances:
            inst.start()
        with balancer([inst.port for inst in c.instances]) as port:
            c.balancer_port = port
            yield c
    finally:
        for inst in c.instances:
            inst.stop()


# --- raw wire helpers (to choose which instance each request reaches) -----------------------------------

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


def _answer(resp: httpx.Response, rid: object) -> dict:
    """The JSON-RPC response with ``rid`` from a JSON or SSE body."""
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        for line in resp.text.splitlines():
            if line.startswith("data:") and line[5:].strip():  # (the priming event has no data)
                msg = json.loads(line[5:])
                if msg.get("id") == rid and ("result" in msg or "error" in msg):
                    return msg
        raise AssertionError(f"no response to {rid!r} in {resp.text[:2000]!r}")
    return resp.json()


def modern_request(url: str, method: str, params: dict, rid: int, *, headers: dict[str, str] | None = None,
                   timeout: float = 30.0) -> dict:
    """One 2026-07-28 request over HTTP with the ``_meta`` envelope and the required headers."""
    params = {**params, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "scale-test", "version": "1"}}}
    sent = {"accept": ACCEPT, "mcp-protocol-version": MODERN, "mcp-method": method, **(headers or {})}
    if "name" in params:
        sent.setdefault("mcp-name", params["name"])
    resp = httpx.post(url, json={"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, headers=sent, timeout=timeout)
    return _answer(resp, rid)


def modern_tool_call(url: str, name: str, rid: int, *, responses: dict | None = None, state: str | None = None,
                     timeout: float = 30.0) -> dict:
    """A tools/call; a retry carries inputResponses and requestState (2026-07-28 basic/patterns/mrtr.mdx)."""
    params: dict = {"name": name, "arguments": {}}
    if responses is not None:
        params["inputResponses"] = responses
    if state is not None:
        params["requestState"] = state
    return modern_request(url, "tools/call", params, rid, timeout=timeout)


class LegacySession:
    """A bare 2025-11-25 Streamable HTTP session (2025-11-25 basic/transports.mdx), request by request."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sid: str | None = None
        self.next_id = 1

    def headers(self) -> dict[str, str]:
        out = {"accept": ACCEPT, "mcp-protocol-version": LEGACY}
        if self.sid:
            out["mcp-session-id"] = self.sid
        return out

    def open(self) -> dict:
        init = self.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                           "clientInfo": {"name": "scale-test", "version": "1"}})
        self.notify("notifications/initialized")
        return init

    def request(self, method: str, params: dict | None = None, url: str | None = None) -> dict:
        rid, self.next_id = self.next_id, self.next_id + 1
        resp = httpx.post(url or self.url, json={"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}},
                          headers=self.headers(), timeout=30)
        if self.sid is None:
            self.sid = resp.headers.get("mcp-session-id")
        return _answer(resp, rid) if resp.status_code == 200 else {"status": resp.status_code, **resp.json()}

    def notify(self, method: str) -> int:
        return httpx.post(self.url, json={"jsonrpc": "2.0", "method": method}, headers=self.headers(), timeout=30).status_code
