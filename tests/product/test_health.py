"""Single-server health and metrics (issue 15, acceptance 4): /healthz is 503 with the reason while the
upstream is down and 200 again after it restarts; /readyz; /metrics counts requests by era and outcome.
Plus the Host allow-list of the HTTP listener."""

from __future__ import annotations

import subprocess
import time
from typing import Any

import httpx
import pytest
from product_helpers import META, running, tiny_cmd
from starlette.applications import Starlette
from starlette.testclient import TestClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.fleet.metrics import parse_text
from mcp_eras.bridge.layers.observe import observe, outcome_of
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.upstream.factory import Target

import peers

MODERN_SERVER = peers.SAMPLES / "modern" / "everything_server.py"


class FakeUpstream(Upstream):
    era = "2026-07-28"  # type: ignore[assignment]

    def __init__(self) -> None:
        self.fail: Exception | None = None
        self.reply: dict[str, Any] = {"result": {"resultType": "complete"}}

    async def start(self) -> None: ...
    async def discover(self, ctx: CallContext) -> Message:
        return {}

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        if self.fail is not None:
            raise self.fail
        return {"jsonrpc": "2.0", "id": request["id"], **self.reply}

    async def aclose(self) -> None: ...


def _client(fake: FakeUpstream) -> tuple[TestClient, Any]:
    up, observer = observe(fake, Target(command=["server"]), Settings(probe_timeout=2))
    observer.check_interval = 0.0
    return TestClient(Starlette(routes=observer.routes())), up


def test_healthz_follows_the_upstream_in_process() -> None:
    fake = FakeUpstream()
    client, _ = _client(fake)
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").text == "ready\n"
    fake.fail = ConnectionError("upstream died")
    down = client.get("/healthz")
    assert down.status_code == 503
    assert down.json()["status"] == "down" and down.json()["reason"] == "upstream died"
    assert client.get("/readyz").status_code == 503
    fake.fail = None
    fake.reply = {"error": {"code": -32603, "message": "respawn pending"}}
    assert client.get("/healthz").json()["reason"] == "upstream answered -32603: respawn pending"
    fake.reply = {"result": {"resultType": "complete"}}
    assert client.get("/healthz").status_code == 200


def test_metrics_count_by_client_era_and_outcome_in_process() -> None:
    import anyio

    fake = FakeUpstream()
    client, up = _client(fake)

    async def calls() -> None:
        await up.call({"id": 1, "method": "tools/list"}, CallContext(), _discard)
        await up.call({"id": 2, "method": "tools/list"}, CallContext(client_era="2025-11-25"), _discard)
        fake.reply = {"error": {"code": -32602, "message": "bad"}}
        await up.call({"id": 3, "method": "tools/call"}, CallContext(), _discard)
        fake.reply = {"result": {"resultType": "input_required", "inputRequests": {}}}
        await up.call({"id": 4, "method": "tools/call"}, CallContext(), _discard)

    anyio.run(calls)
    samples = parse_text(client.get("/metrics").text)
    counts = {(s["client_era"], s["outcome"]): v for s, v in samples["mcp_bridge_requests_total"]}
    assert counts == {("2026-07-28", "ok"): 1, ("2025-11-25", "ok"): 1, ("2026-07-28", "error"): 1,
                      ("2026-07-28", "input_required"): 1}
    assert {s["upstream_era"] for s, _ in samples["mcp_bridge_requests_total"]} == {"2026-07-28"}
    assert {s["client_era"] for s, _ in samples["mcp_bridge_request_duration_seconds_count"]} == {"2026-07-28", "2025-11-25"}
    assert outcome_of({"error": {}}) == "error"


async def _discard(_msg: Message) -> None:
    return None


def _wait_status(url: str, want: int, deadline_s: float = 120) -> httpx.Response:
    """Poll (each answer is a fresh check after the 1 s cache) until the status is ``want``."""
    deadline = time.monotonic() + deadline_s
    while True:
        resp = httpx.get(url, timeout=15)
        if resp.status_code == want or time.monotonic() > deadline:
            return resp
        time.sleep(0.2)


@pytest.mark.slow
def test_healthz_is_503_while_the_upstream_is_stopped_and_200_after_it_restarts() -> None:
    port = peers.free_port()
    server = [peers.MODERN_PYTHON, str(MODERN_SERVER), "http", "--port", str(port)]
    url = f"http://127.0.0.1:{port}/mcp"
    first = subprocess.Popen(server, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        peers.wait_port(port, first)
        with running(["serve", "--port", "0", "--upstream", url, "--probe-timeout", "3"]) as bridge:
            base = f"http://127.0.0.1:{bridge.wait_listening()}"
            assert _wait_status(base + "/healthz", 200).status_code == 200
            _traffic(base)
            samples = parse_text(httpx.get(base + "/metrics", timeout=10).text)
            counts = {(s["client_era"], s["outcome"]): v for s, v in samples["mcp_bridge_requests_total"]}
            assert counts.get(("2026-07-28", "ok"), 0) >= 1
            assert counts.get(("2025-11-25", "ok"), 0) >= 1
            assert counts.get(("2026-07-28", "error"), 0) >= 1
            first.kill()  # the upstream stops abruptly
            first.wait(10)
            stopped = _wait_status(base + "/healthz", 503)
            assert stopped.status_code == 503
            assert stopped.json()["status"] == "down" and "cannot reach" in stopped.json()["reason"]
            assert httpx.get(base + "/readyz", timeout=10).status_code == 503
            assert "mcp_bridge_upstream_up 0" in httpx.get(base + "/metrics", timeout=10).text
            with peers.running(server, port):
                assert _wait_status(base + "/healthz", 200).status_code == 200
                assert httpx.get(base + "/readyz", timeout=10).text == "ready\n"
    finally:
        first.kill()
        first.wait(10)


def _traffic(base: str) -> None:
    h26 = {"MCP-Protocol-Version": "2026-07-28", "Accept": "application/json, text/event-stream"}
    ok = httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
                    headers={**h26, "Mcp-Method": "tools/list"}, timeout=30)
    assert ok.status_code == 200, ok.text
    bad = httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                                          "params": {"name": "no-such-prompt", "_meta": META}},
                     headers={**h26, "Mcp-Method": "prompts/get", "Mcp-Name": "no-such-prompt"}, timeout=30)
    assert "error" in bad.json(), bad.text
    assert bad.status_code in (200, 400, 404), bad.text
    h25 = {"Accept": "application/json, text/event-stream"}
    init = httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, headers=h25, timeout=30)
    assert init.status_code == 200, init.text
    sid = {"Mcp-Session-Id": init.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25", **h25}
    httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=sid, timeout=30)
    listed = httpx.post(base + "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=sid, timeout=30)
    assert listed.status_code == 200, listed.text


def test_tiny_upstream_health_over_http() -> None:
    with running(["serve", "--port", "0", "--", *tiny_cmd()]) as bridge:
        base = f"http://127.0.0.1:{bridge.wait_listening()}"
        assert _wait_status(base + "/healthz", 200).json()["status"] == "ok"
        assert "mcp_bridge_upstream_up 1" in httpx.get(base + "/metrics", timeout=10).text
