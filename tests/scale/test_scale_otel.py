"""Issue #32, acceptance 2: three bridge instances behind HAProxy (round-robin, no stickiness) sharing a redis-server,
each exporting OpenTelemetry to one OTLP receiver. A 2026 client's call to a 2025 server (mcp 1.29) elicits; its retry
lands on another instance, which forwards it to the instance holding the parked call. The forwarding instance's span
and the owner's server span continue the client's trace, and the 2025 server saw the same trace."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest
import scale_peers

import peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "otel"))
from otlp_receiver import Received, otel_env, otlp_receiver  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]

CLIENT_TRACE = "5bf92f3577b34da6a3ce929d0e0e4736"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "otel-scale", "version": "1"}}
HEADERS = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "traced_ask_name",
           "Accept": "application/json, text/event-stream"}
NAME = "tools/call traced_ask_name"


def two_rounds(url: str, client_span: str) -> str:
    params = {"name": "traced_ask_name", "arguments": {}, "_meta": {**META, "traceparent": f"00-{CLIENT_TRACE}-{client_span}-01"}}
    with httpx.Client(timeout=120) as client:
        first = client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, headers=HEADERS).json()
        result = first["result"]
        (key, _asked), = result["inputRequests"].items()
        retry = {**params, "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}}}
        if result.get("requestState") is not None:
            retry["requestState"] = result["requestState"]
        second = client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}, headers=HEADERS).json()
        return second["result"]["content"][0]["text"]


def test_a_retry_forwarded_to_the_owner_continues_the_trace(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    port = peers.free_port()
    server = [peers.legacy_python(), str(peers.SAMPLES / "otel" / "legacy_traced_server.py"), str(record), "http", "--port", str(port)]
    with otlp_receiver() as (endpoint, got), peers.running(server, port), scale_peers.redis_server() as store:
        upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2025-11-25"]
        instances = [scale_peers.bridge_instance(store, f"bridge-{i}", upstream, "--front-era", "2026-07-28", "--otel")
                     for i in range(3)]
        for inst in instances:
            inst.env = otel_env(endpoint)
        cluster = scale_peers.Cluster(store, instances)
        try:
            for inst in instances:
                inst.start()
            with scale_peers.balancer([inst.port for inst in instances]) as balancer_port:
                cluster.balancer_port = balancer_port
                for attempt in range(1, 4):  # round-robin puts the retry elsewhere; a health-check hiccup may not
                    client_span = f"{attempt:016x}"
                    text, delta = cluster.counted("forwarded", lambda span=client_span: two_rounds(cluster.url, span))
                    assert text == "Hello, Ada!"
                    if any(d["out"] for d in delta.values()):
                        break
                else:
                    pytest.fail(f"no retry was forwarded in three calls: {delta}")
        finally:
            for inst in instances:
                inst.stop()
        upstream_seen = json.loads(record.read_text().splitlines()[-1])["traceparent"].split("-")
        assert upstream_seen[1] == CLIENT_TRACE

        def ready(g: Received) -> bool:
            return any(s.span_id == upstream_seen[2] for s in g.spans) and any(s.name == f"forward {NAME}" and
                                                                               s.parent_id == client_span for s in g.spans)

        got.wait(ready)
    (forward,) = [s for s in got.spans if s.name == f"forward {NAME}" and s.parent_id == client_span]
    servers = [s for s in got.spans if s.name == NAME and s.kind == "server" and s.trace_id == CLIENT_TRACE]
    first = [s for s in servers if s.parent_id == client_span]
    retried = [s for s in servers if s.parent_id == forward.span_id]
    assert len(first) == 1 and len(retried) == 1, servers
    owner = forward.attributes["mcp_eras.forward.instance"]
    assert first[0].instance == retried[0].instance == owner != forward.instance
    assert forward.trace_id == CLIENT_TRACE and retried[0].attributes.get("mcp_eras.mrtr.retry") is True
    # The 2025 server was called once, by the owner's client span under the first server span.
    (upstream_parent,) = [s for s in got.spans if s.span_id == upstream_seen[2]]
    assert upstream_parent.kind == "client" and upstream_parent.parent_id == first[0].span_id
