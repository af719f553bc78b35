"""--otel in fleet mode (`serve --config`): a fleet server's calls get the same spans, named by the server
(``mcp_eras.server``), and the 2025 server behind it receives the bridge's client span as parent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import httpx
import pytest

import peers
from otlp_receiver import chain, otel_env, otlp_receiver

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fleet"))
import fleet_peers as fp  # noqa: E402

TRACE = "6bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


@pytest.mark.legacy_peer
def test_fleet_server_spans_continue_the_clients_trace(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    servers = {"traced": {"command": peers.legacy_python(),
                          "args": [str(peers.SAMPLES / "otel" / "legacy_traced_server.py"), str(record), "stdio"]}}
    with otlp_receiver() as (endpoint, got), fp.fleet_bridge(tmp_path, servers, env={**otel_env(endpoint), "MCP_ERAS_OTEL": "1"}) as fleet:
        async def call() -> dict:
            async with httpx.AsyncClient(timeout=120) as client:
                return await fp.rpc(client, fleet.url("traced"), "tools/call", {"name": "traced_ask_name", "arguments": {}},
                                    headers={"traceparent": f"00-{TRACE}-{PARENT}-01"}, capabilities={"elicitation": {}})

        answer = anyio.run(call)
        assert answer["result"]["resultType"] == "input_required", answer
        (line,) = [json.loads(text) for text in record.read_text().splitlines()]
        _version, trace_id, parent, _flags = line["traceparent"].split("-")
        assert trace_id == TRACE
        got.wait(lambda g: any(s.span_id == parent for s in g.spans))
    spans = chain(got.spans, parent)
    assert [s.kind for s in spans] == ["client", "server"] and spans[-1].parent_id == PARENT
    assert all(s.attributes["mcp_eras.server"] == "traced" for s in spans)
