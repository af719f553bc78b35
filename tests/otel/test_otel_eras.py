"""Issue #32, acceptance 1 and 3: one trace from client to server across the eras, exported over OTLP/HTTP.

* A 2026 client -> bridge -> 2025 server (mcp 1.29) call with an elicitation round (the 2025 call is parked, the
  client retries with the answer), and
* a 2025 client (mcp 1.29) -> bridge -> 2026 server (mcp 2.3.0) call with a sampling round (the bridge drives the
  2026 server's input_required round with the 2025 client's sampling answer):

the spans the bridge exports hang from the client's ``traceparent``, and the context the upstream server recorded (in
its own era's ``_meta``) names the bridge's client span, whose parent chain ends at the client's span. The
``mcp.server.operation.duration`` histogram counts the same calls as the Prometheus ``requests_total``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from pathlib import Path

import httpx
import pytest

import peers
from otlp_receiver import Received, Span, chain, otel_env, otlp_receiver

CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}},
               "io.modelcontextprotocol/clientInfo": {"name": "otel-test", "version": "1"}}
TOOL_SPAN = "tools/call {}"


def bridge(upstream: list[str], *extra: str) -> tuple[list[str], int]:
    port = peers.free_port()
    return [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--otel", *extra,
            "--", *upstream], port


def recorded(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def server_spans(got: Received, name: str) -> list[Span]:
    return [s for s in got.spans if s.name == name and s.kind == "server"]


def check_chain(got: Received, upstream_traceparent: str) -> list[Span]:
    """The upstream's parent is a span of the bridge whose chain climbs to the client's span."""
    _version, trace_id, parent, _flags = upstream_traceparent.split("-")
    assert trace_id == CLIENT_TRACE
    got.wait(lambda g: any(s.span_id == parent for s in g.spans))
    spans = chain(got.spans, parent)
    assert [s.kind for s in spans] == ["client", "server"], spans
    assert spans[-1].parent_id == CLIENT_SPAN and all(s.trace_id == CLIENT_TRACE for s in spans)
    assert all(s.service == "bridge-under-test" for s in spans), [s.service for s in spans]
    return spans


def prometheus_requests(port: int) -> int:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30).text
    return sum(int(float(m)) for m in re.findall(r'^mcp_bridge_requests_total\{[^}]*\} (\S+)$', text, re.M)) or sum(
        int(float(m)) for m in re.findall(r'^\S*requests_total\{[^}]*\} (\S+)$', text, re.M))


def histogram_count(got: Received) -> int:
    return sum(count for _attrs, count in got.histograms.get("mcp.server.operation.duration", []))


@pytest.mark.legacy_peer
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_2026_client_to_2025_server_with_an_elicitation_round(tmp_path: Path, transport: str) -> None:
    record = tmp_path / "received.jsonl"
    server = [peers.legacy_python(), str(peers.SAMPLES / "otel" / "legacy_traced_server.py"), str(record)]
    server_port = peers.free_port()
    with contextlib.ExitStack() as stack:
        if transport == "http":  # (the 2025 server on Streamable HTTP: the context comes in _meta and as headers)
            stack.enter_context(peers.running([*server, "http", "--port", str(server_port)], server_port))
        upstream = ["--upstream", f"http://127.0.0.1:{server_port}/mcp"] if transport == "http" else ["--", *server, "stdio"]
        run_direction_a(record, upstream, transport)


def check_network(spans: list[Span], upstream: list[str], line: dict) -> None:
    """Direction A, a 2026 client on the HTTP front: the server span names that front (HTTP over TCP) and no session
    (2026-07-28 has none); the client span names the upstream (its address and port, or a pipe) and, for a 2025 server
    on Streamable HTTP, the session the request went to (the ``Mcp-Session-Id`` that server saw)."""
    client, server = spans
    assert server.attributes["network.transport"] == "tcp" and server.attributes["network.protocol.name"] == "http"
    assert "mcp.session.id" not in server.attributes
    if upstream[0] == "--upstream":
        url = httpx.URL(upstream[1])
        assert client.attributes["network.protocol.name"] == "http" and client.attributes["network.transport"] == "tcp"
        assert (client.attributes["server.address"], client.attributes["server.port"]) == (url.host, url.port)
        assert line["session_id"] and client.attributes["mcp.session.id"] == line["session_id"]
    else:
        assert client.attributes["network.transport"] == "pipe" and "server.address" not in client.attributes
        assert "mcp.session.id" not in client.attributes


def run_direction_a(record: Path, upstream: list[str], transport: str) -> None:
    with otlp_receiver() as (endpoint, got):
        port = peers.free_port()
        cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--otel",
               "--upstream-era", "2025-11-25", *upstream]
        with peers.running(cmd, port, env=otel_env(endpoint)), httpx.Client(timeout=120) as client:
            url = f"http://127.0.0.1:{port}/mcp"
            headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "traced_ask_name",
                       "Accept": "application/json, text/event-stream"}
            params = {"name": "traced_ask_name", "arguments": {}, "_meta": {**MODERN_META, "traceparent": TRACEPARENT}}
            first = client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                                headers=headers).json()
            result = first["result"]
            assert result["resultType"] == "input_required", first
            (key, asked), = result["inputRequests"].items()
            assert asked["method"] == "elicitation/create"
            retry = {**params, "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
                     "requestState": result.get("requestState")}
            if retry["requestState"] is None:
                retry.pop("requestState")
            second = client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry},
                                 headers=headers).json()
            assert second["result"]["content"][0]["text"] == "Hello, Ada!", second

            (line,) = recorded(record)  # the 2025 server saw the call once (the retry resumed the parked call)
            spans = check_chain(got, line["traceparent"])
            assert line["header_traceparent"] == (line["traceparent"] if transport == "http" else None)
            name = TOOL_SPAN.format("traced_ask_name")
            assert [s.name for s in spans] == [name, name]
            attrs = spans[-1].attributes
            assert attrs["mcp.method.name"] == "tools/call" and attrs["gen_ai.tool.name"] == "traced_ask_name"
            assert attrs["jsonrpc.request.id"] == "1" and attrs["mcp.protocol.version"] == "2026-07-28"
            assert attrs["mcp_eras.client.era"] == "2026-07-28" and attrs["mcp_eras.upstream.era"] == "2025-11-25"
            assert spans[0].attributes["mcp.protocol.version"] == "2025-11-25"
            check_network(spans, upstream, line)
            assert "mcp_eras.input_required" in spans[-1].events
            assert attrs["mcp_eras.input.methods"] == ["elicitation/create"]
            # The retry is a second server span of the same trace, under the same client span.
            got.wait(lambda g: len(server_spans(g, name)) == 2)
            retried = [s for s in server_spans(got, name) if s.attributes.get("mcp_eras.mrtr.retry")]
            assert len(retried) == 1 and retried[0].trace_id == CLIENT_TRACE and retried[0].parent_id == CLIENT_SPAN
            # Acceptance 3: the histogram counts what Prometheus counts, from the same observation point.
            relayed = prometheus_requests(port)
            assert relayed >= 2
            got.wait(lambda g: histogram_count(g) == relayed)
            for attrs_, _count in got.histograms["mcp.server.operation.duration"]:
                assert "mcp.method.name" in attrs_ and "jsonrpc.request.id" not in attrs_


@pytest.mark.legacy_peer
def test_2025_client_to_2026_server_with_a_sampling_round(tmp_path: Path) -> None:
    record = tmp_path / "received.jsonl"
    upstream = [peers.MODERN_PYTHON, str(peers.SAMPLES / "otel" / "modern_traced_server.py"), str(record), "stdio"]
    with otlp_receiver() as (endpoint, got):
        cmd, port = bridge(upstream, "--upstream-era", "2026-07-28")
        with peers.running(cmd, port, env=otel_env(endpoint)):
            client = [peers.legacy_python(), str(peers.SAMPLES / "otel" / "legacy_traced_client.py"),
                      f"http://127.0.0.1:{port}/mcp", "traced_summarize", TRACEPARENT, "--text", "the quick brown fox"]
            proc = subprocess.run(client, capture_output=True, text=True, timeout=180)
            assert proc.returncode == 0, proc.stderr[-3000:]
            answer = json.loads(proc.stdout)
            assert answer["text"] == ["summary of [a short summary] (model test-model)"] or answer["text"][0], answer
            assert [a["method"] for a in answer["asked"]] == ["sampling/createMessage"]
            assert answer["asked"][0]["traceparent"].split("-")[1] == CLIENT_TRACE  # the 2025 server->client request

            lines = recorded(record)
            assert [line["round"] for line in lines] == [1, 2]  # the bridge drove the 2026 server's round
            name = TOOL_SPAN.format("traced_summarize")
            for line in lines:
                spans = check_chain(got, line["traceparent"])
                assert [s.name for s in spans] == [name, name]
                assert spans[-1].attributes["mcp_eras.client.era"] == "2025-11-25"
                # The 2025 client's session on the bridge's front; none towards the (stateless) 2026 server.
                assert answer["session_id"] and spans[-1].attributes["mcp.session.id"] == answer["session_id"]
                assert "mcp.session.id" not in spans[0].attributes and spans[0].attributes["network.transport"] == "pipe"
                assert spans[0].attributes["mcp.protocol.version"] == "2026-07-28"
            assert lines[0]["traceparent"] != lines[1]["traceparent"]  # one client span per upstream request
            relayed = prometheus_requests(port)
            got.wait(lambda g: histogram_count(g) == relayed)


@pytest.mark.legacy_peer
def test_stdio_front_continues_the_clients_trace(tmp_path: Path) -> None:
    """``serve --stdio --otel``: the same spans for a desktop host's 2026 client on stdin/stdout (transport ``pipe``)."""
    record = tmp_path / "received.jsonl"
    upstream = [peers.legacy_python(), str(peers.SAMPLES / "otel" / "legacy_traced_server.py"), str(record), "stdio"]
    cmd = [*peers.bridge_cmd(), "serve", "--stdio", "--otel", "--log-level", "warning", "--upstream-era", "2025-11-25", "--",
           *upstream]
    with otlp_receiver() as (endpoint, got):
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **otel_env(endpoint)},
                                text=True)
        try:
            params = {"name": "traced_ask_name", "arguments": {}, "_meta": {**MODERN_META, "traceparent": TRACEPARENT}}
            first = stdio_call(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})["result"]
            (key, _asked), = first["inputRequests"].items()
            retry = {**params, "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}}}
            if first.get("requestState") is not None:
                retry["requestState"] = first["requestState"]
            second = stdio_call(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry})
            assert second["result"]["content"][0]["text"] == "Hello, Ada!", second
            (line,) = recorded(record)
            spans = check_chain(got, line["traceparent"])
            assert spans[-1].attributes["network.transport"] == "pipe"
        finally:
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(60)


def stdio_call(proc: subprocess.Popen, request: dict) -> dict:
    """Send one request line; the response with its id (notifications before it are skipped)."""
    proc.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    for line in proc.stdout:  # type: ignore[union-attr]
        message = json.loads(line)
        if message.get("id") == request["id"] and "method" not in message:
            return message
    raise AssertionError(f"the bridge closed stdout before answering {request['id']}")

