"""Issue #33 item 7, single-server mode scaled out (``serve --state-store redis://...``): while the shared store does
not answer, ``/readyz`` is 503 naming it and ``/healthz`` stays 200 (liveness: the instance answers what it holds)
with ``"status": "degraded"`` and the store's state; both recover when the store is back."""

from __future__ import annotations

import contextlib
import subprocess
import time
from typing import Any

import httpx
import pytest
import scale_peers

import peers

pytestmark = [pytest.mark.legacy_peer]


def wait_for(predicate: Any, what: str, bound: float = 120.0) -> Any:
    """Poll until ``predicate()`` is truthy (the bound only stops a hang; nothing is timed)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if value := predicate():
                return value
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def test_readiness_and_health_follow_the_shared_store() -> None:
    upstream = ["--", peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py"), "stdio"]
    with scale_peers.redis_process() as (store, redis):
        port = redis.args[redis.args.index("--port") + 1]
        inst = scale_peers.bridge_instance(store, "solo", upstream)
        inst.start()
        base = f"http://127.0.0.1:{inst.port}"
        try:
            wait_for(lambda: httpx.get(f"{base}/readyz", timeout=30).status_code == 200, "ready with the store up")
            assert httpx.get(f"{base}/healthz", timeout=30).json()["store"]["ok"] is True
            redis.terminate()
            redis.wait(30)
            ready = wait_for(lambda: (r := httpx.get(f"{base}/readyz", timeout=30)).status_code == 503 and r,
                                "readiness to follow the store")
            assert ready.text.startswith("not ready: shared store ") and "unreachable" in ready.text
            health = httpx.get(f"{base}/healthz", timeout=30)
            assert health.status_code == 200 and health.json()["status"] == "degraded"
            assert health.json()["store"]["ok"] is False
            # the store comes back on the same port: ready again
            again = subprocess.Popen([*redis.args[:redis.args.index("--port")], "--port", port,
                                      *redis.args[redis.args.index("--port") + 2:]], stdout=subprocess.DEVNULL)
            try:
                wait_for(lambda: httpx.get(f"{base}/readyz", timeout=30).status_code == 200, "ready again")
                assert httpx.get(f"{base}/healthz", timeout=30).json()["status"] == "ok"
            finally:
                again.terminate()
                again.wait(30)
        finally:
            inst.stop()
