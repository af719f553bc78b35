"""Drives the scenarios of issue #33 acceptance 3 at a 2025 front served by a real bridge process, sampling the
bridge's RSS from /proc/PID/status (used by test_legacy_front_memory.py; runnable alone to print the figures:
``python tests/stress/legacy_memory_driver.py [scale] [name=count ...]``, e.g. the full size of issue #33
acceptance 3: ``1 ids=1000 elicitations=10000 list_changes=10000 fuzz=100000``).

Scenarios, each on sessions of its own that end with DELETE: requests with 1 MB ids; answers of 1 MB on SSE
streams (kept for ``Last-Event-ID`` replay); direction B elicitation round trips; list changes on a GET stream;
malformed frames on four long-lived sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import peers  # noqa: E402

VERSION = "2025-11-25"
DEADLINE = 60.0
"""Bound on any one exchange with the bridge (a hang guard for a loaded machine)."""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Sampler:
    """RSS of a process every ``period`` seconds in a thread; ``peak`` since the last ``reset``."""

    def __init__(self, pid: int, period: float = 0.05) -> None:
        self.pid = pid
        self.period = period
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError, RuntimeError):
                self.peak = max(self.peak, rss_kib(self.pid))
            self._stop.wait(self.period)

    def reset(self) -> None:
        self.peak = rss_kib(self.pid)

    def __enter__(self) -> Sampler:
        self.reset()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Figures:
    start_kib: int = 0
    end_kib: int = 0
    phases: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per scenario: peak RSS during it and RSS after its sessions ended (KiB)."""
    answers: dict[str, int] = field(default_factory=dict)

    def mb(self) -> dict[str, Any]:
        return {"start_mb": round(self.start_kib / 1024, 1), "end_mb": round(self.end_kib / 1024, 1),
                "phases": {k: {n: v if n == "ms" else round(v / 1024, 1) for n, v in p.items()}
                           for k, p in self.phases.items()}, "answers": self.answers}


class Session:
    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self.client = client
        self.url = url
        self.sid: str | None = None

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
             "mcp-protocol-version": VERSION}
        if self.sid:
            h["mcp-session-id"] = self.sid
        return {**h, **(extra or {})}

    async def open(self) -> None:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "memory-driver", "version": "1"}}}
        r = await self.client.post(self.url, content=json.dumps(init), headers=self.headers())
        r.raise_for_status()
        self.sid = r.headers["mcp-session-id"]
        r = await self.client.post(self.url, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                                   headers=self.headers())
        assert r.status_code == 202, r.text

    async def close(self) -> None:
        r = await self.client.delete(self.url, headers=self.headers())
        assert r.status_code == 200, r.text

    async def post_raw(self, body: bytes) -> httpx.Response:
        return await self.client.post(self.url, content=body, headers=self.headers())

    async def rpc(self, rid: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A request's response (from JSON or the end of its SSE stream); answers elicitations on the way."""
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params is not None else {})}
        async with self.client.stream("POST", self.url, content=json.dumps(msg), headers=self.headers()) as r:
            if not r.headers.get("content-type", "").startswith("text/event-stream"):
                return json.loads(await r.aread())
            async for frame in sse_frames(r):
                if frame.get("method") == "elicitation/create":
                    answer = {"jsonrpc": "2.0", "id": frame["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}
                    ack = await self.post_raw(json.dumps(answer).encode())
                    assert ack.status_code == 202, ack.text
                elif frame.get("id") == rid and "method" not in frame:
                    return frame
        raise AssertionError(f"the stream of {method} ended without its response")


async def sse_frames(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif not line and data:
            text = "\n".join(data)
            data = []
            if text.strip():
                yield json.loads(text)


# --- scenarios ---------------------------------------------------------------------------------------


async def big_ids(client: httpx.AsyncClient, url: str, count: int, f: Figures) -> None:
    s = Session(client, url)
    await s.open()
    pad = "i" * (1024 * 1024)
    for n in range(count):
        out = await s.rpc(f"{n}-{pad}", "ping")
        kind = f"ids:{'error' if 'error' in out else 'result'}"
        f.answers[kind] = f.answers.get(kind, 0) + 1
    await s.close()


async def big_answers(client: httpx.AsyncClient, url: str, count: int, f: Figures) -> None:
    s = Session(client, url)
    await s.open()
    for n in range(count):
        out = await s.rpc(n + 1, "tools/call", {"name": "big", "arguments": {"size": 1024 * 1024},
                                                "_meta": {"progressToken": f"t{n}"}})
        assert len(out["result"]["content"][0]["text"]) == 1024 * 1024
    await s.close()


async def elicitations(client: httpx.AsyncClient, url: str, count: int, workers: int = 4) -> None:
    async def worker(w: int) -> None:
        s = Session(client, url)
        await s.open()
        for n in range(count // workers):
            out = await s.rpc(n + 1, "tools/call", {"name": "ask_name", "arguments": {}})
            assert "Ada" in out["result"]["content"][0]["text"], out
        await s.close()

    await asyncio.gather(*(worker(w) for w in range(workers)))


async def list_changes(client: httpx.AsyncClient, url: str, count: int, f: Figures) -> None:
    s = Session(client, url)
    await s.open()
    got = 0
    async with client.stream("GET", url, headers=s.headers({"accept": "text/event-stream"})) as stream:
        assert stream.status_code == 200

        async def read() -> None:
            nonlocal got
            async for frame in sse_frames(stream):
                if frame.get("method") == "notifications/tools/list_changed":
                    got += 1
                    if got >= count:
                        return

        reader = asyncio.create_task(read())
        await asyncio.sleep(0.5)  # (the listen is open with the session: this only lets the GET attach)
        for n in range(count):
            await s.rpc(n + 1, "tools/call", {"name": "changed", "arguments": {}})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reader, DEADLINE)
        reader.cancel()
    f.answers["list_changed_received"] = got
    await s.close()


def junk(r: random.Random, n: int) -> bytes:
    kind = n % 6
    if kind == 0:
        return bytes(r.randrange(256) for _ in range(r.randrange(1, 64)))
    if kind == 1:
        return b'{"jsonrpc":"2.0","id":' + str(n).encode() + b',"method":"ping"'  # truncated
    if kind == 2:
        return json.dumps({"jsonrpc": "2.0", "id": [n], "method": "ping"}).encode()
    if kind == 3:
        return json.dumps({"jsonrpc": "2.0", "id": f"r{n}", "method": "tools/call", "params": {"name": n}}).encode()
    if kind == 4:
        return json.dumps({"jsonrpc": "2.0", "id": f"x{n}", "result": {"n": "z" * r.randrange(200)}}).encode()
    return json.dumps({"jsonrpc": "1.0", "id": n, "method": r.choice(["", "nope", "tools/list "])}).encode()


async def fuzz(client: httpx.AsyncClient, url: str, frames: int) -> None:
    sessions = [Session(client, url) for _ in range(4)]
    for s in sessions:
        await s.open()

    async def worker(k: int, s: Session) -> None:
        r = random.Random(k)
        for n in range(k, frames, len(sessions)):
            resp = await s.post_raw(junk(r, n))
            assert resp.status_code < 500, resp.text

    await asyncio.gather(*(worker(k, s) for k, s in enumerate(sessions)))
    for s in sessions:
        await s.close()


@contextlib.contextmanager
def bridge(extra_env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--port", str(port), "--", sys.executable, str(HERE / "memory_peer.py")]
    with peers.running(cmd, port, env=extra_env) as proc:
        yield proc, f"http://127.0.0.1:{port}/mcp"


SETTLE = 2.0
"""Seconds after a scenario's sessions end before RSS is read: the bridge hands freed heap back to the system one
second after sessions end (``legacy_http.TRIM_DELAY``)."""

FULL = {"ids": 1000, "big_answers": 150, "elicitations": 10000, "list_changes": 10000, "fuzz": 100000}
"""The counts issue #33 acceptance 3 names (the answers scenario is ours: 150 answers of 1 MB)."""

COUNTS = {"ids": 200, "big_answers": 150, "elicitations": 2000, "list_changes": 1500, "fuzz": 6000}
"""Each scenario's size at scale 1 (issue #33 acceptance 3 names 1,000 ids, 10,000 round trips and list changes,
100,000 frames: scale 5 or more; the test runs a fraction that a loaded 2-core machine serves in about a minute)."""


async def drive(url: str, pid: int, scale: float = 1.0, exact: dict[str, int] | None = None) -> Figures:
    """``exact``: counts by scenario name that replace the scaled ones."""
    f = Figures()
    counts = {name: max(4, int(n * scale)) for name, n in COUNTS.items()} | (exact or {})
    timeout = httpx.Timeout(DEADLINE)
    async with httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_connections=16)) as client:
        # Warm up every path once (imports, caches, the child), then measure from there.
        await big_ids(client, url, 2, Figures())
        await big_answers(client, url, 2, Figures())
        await elicitations(client, url, 4)
        await list_changes(client, url, 2, Figures())
        await fuzz(client, url, 60)
        await asyncio.sleep(SETTLE)
        f.start_kib = rss_kib(pid)
        with Sampler(pid) as sampler:
            for name, run in (("ids", lambda: big_ids(client, url, counts["ids"], f)),
                              ("big_answers", lambda: big_answers(client, url, counts["big_answers"], f)),
                              ("elicitations", lambda: elicitations(client, url, counts["elicitations"])),
                              ("list_changes", lambda: list_changes(client, url, counts["list_changes"], f)),
                              ("fuzz", lambda: fuzz(client, url, counts["fuzz"]))):
                sampler.reset()
                t0 = time.monotonic()
                await run()
                await asyncio.sleep(SETTLE)
                f.phases[name] = {"peak": sampler.peak, "after": rss_kib(pid), "ms": int((time.monotonic() - t0) * 1000)}
        f.end_kib = rss_kib(pid)
    return f


def main() -> None:
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    exact = {name: int(count) for name, count in (arg.split("=", 1) for arg in sys.argv[2:])}
    if unknown := set(exact) - set(COUNTS):
        raise SystemExit(f"unknown scenario: {', '.join(sorted(unknown))} (known: {', '.join(COUNTS)})")
    with bridge() as (proc, url):
        figures = asyncio.run(drive(url, proc.pid, scale, exact))
    print(json.dumps(figures.mb(), indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
