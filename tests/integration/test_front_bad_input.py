"""Bad input on the 2026 HTTP front: each case gets its exact JSON-RPC code and HTTP status, and the
bridge keeps serving. Also: an upstream child killed mid-call becomes a prompt error and a respawn."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import peers
from pids import kill_descendant

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bad-input-test", "version": "1"},
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}


def req(method: str, params: dict[str, Any] | None = None, rid: Any = 1, meta: dict[str, Any] | None = META) -> dict[str, Any]:
    p = dict(params or {})
    if meta is not None:
        p["_meta"] = meta
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}


def hdrs(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    h = {**HEADERS, "Mcp-Method": method}
    if name is not None:
        h["Mcp-Name"] = name
    h.update(extra)
    return h


@pytest.fixture(scope="module")
def bridge_url() -> Iterator[str]:
    port = peers.free_port()
    upstream = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py")]
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28",
           "--max-body-bytes", "65536", "--log-level", "warning", "--", *upstream]
    with peers.running(cmd, port):
        yield f"http://127.0.0.1:{port}"


BIG = "x" * 70000
CASES: list[tuple[str, str, Any, dict[str, str], int, int | None]] = [
    # (case, HTTP method, body (bytes or JSON-able), headers, status, JSON-RPC code or None)
    ("malformed JSON", "POST", b'{"jsonrpc": "2.0", "id": 1, "method": ', HEADERS, 400, -32700),
    ("batch array", "POST", [req("tools/list"), req("tools/list", rid=2)], HEADERS, 400, -32600),
    ("not an object", "POST", b'"tools/list"', HEADERS, 400, -32600),
    ("jsonrpc version", "POST", {"jsonrpc": "1.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
     hdrs("tools/list"), 400, -32600),
    ("missing _meta", "POST", req("tools/list", meta=None), hdrs("tools/list"), 400, -32602),
    ("missing protocolVersion in _meta", "POST",
     req("tools/list", meta={"io.modelcontextprotocol/clientCapabilities": {}}), hdrs("tools/list"), 400, -32602),
    ("missing clientCapabilities", "POST",
     req("tools/list", meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}), hdrs("tools/list"), 400, -32602),
    ("unsupported version", "POST", req("tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}),
     hdrs("tools/list", **{"MCP-Protocol-Version": "2099-01-01"}), 400, -32022),
    ("header/body version mismatch beats unsupported version", "POST",
     req("tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}), hdrs("tools/list"), 400, -32020),
    ("version header mismatch", "POST", req("tools/list"), hdrs("tools/list", **{"MCP-Protocol-Version": "2025-11-25"}), 400, -32020),
    ("missing version header", "POST", req("tools/list"),
     {k: v for k, v in hdrs("tools/list").items() if k != "MCP-Protocol-Version"}, 400, -32020),
    ("missing Mcp-Method", "POST", req("tools/list"), HEADERS, 400, -32020),
    ("Mcp-Method mismatch", "POST", req("tools/list"), hdrs("prompts/list"), 400, -32020),
    ("missing Mcp-Name", "POST", req("tools/call", {"name": "echo", "arguments": {"text": "a"}}), hdrs("tools/call"), 400, -32020),
    ("Mcp-Name mismatch", "POST", req("tools/call", {"name": "echo", "arguments": {"text": "a"}}), hdrs("tools/call", "add"), 400, -32020),
    ("unknown method", "POST", req("nope/nothing"), hdrs("nope/nothing"), 404, -32601),
    ("removed: initialize", "POST", req("initialize"), hdrs("initialize"), 404, -32601),
    ("removed: ping", "POST", req("ping"), hdrs("ping"), 404, -32601),
    ("removed: logging/setLevel", "POST", req("logging/setLevel", {"level": "debug"}), hdrs("logging/setLevel"), 404, -32601),
    ("removed: resources/subscribe", "POST", req("resources/subscribe", {"uri": "memo://readme"}), hdrs("resources/subscribe"),
     404, -32601),
    ("oversized body", "POST", req("tools/call", {"name": "echo", "arguments": {"text": BIG}}), hdrs("tools/call", "echo"), 413, -32600),
    ("non-JSON content type", "POST", req("tools/list"), {**hdrs("tools/list"), "Content-Type": "text/plain"}, 415, -32600),
    ("wrong Origin", "POST", req("tools/list"), hdrs("tools/list", Origin="https://evil.example"), 403, -32600),
    ("GET", "GET", None, {"Accept": "text/event-stream"}, 405, -32600),
    ("DELETE", "DELETE", None, {}, 405, -32600),
    ("client response", "POST", {"jsonrpc": "2.0", "id": 5, "result": {}}, HEADERS, 400, -32600),
    ("notification", "POST", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}, HEADERS, 202, None),
]


@pytest.mark.legacy_peer
@pytest.mark.parametrize(("case", "verb", "body", "headers", "status", "code"), CASES, ids=[c[0] for c in CASES])
def test_bad_input(bridge_url: str, case: str, verb: str, body: Any, headers: dict[str, str], status: int, code: int | None) -> None:
    content = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    with httpx.Client(timeout=30) as client:
        resp = client.request(verb, f"{bridge_url}/mcp", content=content, headers=headers)
        assert resp.status_code == status, resp.text
        if code is None:
            assert resp.content == b""
        else:
            payload = resp.json()
            assert payload["jsonrpc"] == "2.0"
            assert payload["error"]["code"] == code, payload
        # The bridge is still healthy and serving after every bad frame.
        ok = client.post(f"{bridge_url}/mcp", json=req("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
                         headers=hdrs("tools/call", "add"))
        assert ok.status_code == 200
        assert ok.json()["result"]["content"][0]["text"] == "3"


@pytest.mark.legacy_peer
def test_unsupported_version_lists_supported(bridge_url: str) -> None:
    body = req("tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"})
    resp = httpx.post(f"{bridge_url}/mcp", json=body, headers=hdrs("tools/list", **{"MCP-Protocol-Version": "1900-01-01"}))
    assert resp.status_code == 400
    assert resp.json()["error"]["data"] == {"supported": ["2026-07-28"], "requested": "1900-01-01"}


@pytest.mark.legacy_peer
def test_base64_mcp_name_is_decoded(bridge_url: str) -> None:
    # "=?base64?ZWNobw==?=" is "echo": a sentinel-encoded header must match the decoded body value.
    body = req("tools/call", {"name": "echo", "arguments": {"text": "b64"}})
    resp = httpx.post(f"{bridge_url}/mcp", json=body, headers=hdrs("tools/call", "=?base64?ZWNobw==?="))
    assert resp.status_code == 200
    assert resp.json()["result"]["content"][0]["text"] == "b64"


def _child_pids(parent: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                out.append(int(entry))
    return out


@pytest.mark.legacy_peer
def test_killed_upstream_child_errors_promptly_and_respawns() -> None:
    port = peers.free_port()
    upstream = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py")]
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28",
           "--upstream-era", "2025-11-25", "--log-level", "warning", "--", *upstream]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port) as bridge, httpx.Client(timeout=60) as client:
        first = client.post(url, json=req("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}), headers=hdrs("tools/call", "add"))
        assert first.json()["result"]["content"][0]["text"] == "2"
        children = _child_pids(bridge.pid)
        assert children, "the bridge should run its stdio upstream as a child"
        # A long call (2000 progress steps of 10 ms) is in flight when the child dies; its progress
        # notifications make the response an SSE stream, so the headers arrive while it runs.
        long_call = req("tools/call", {"name": "slow_count", "arguments": {"n": 2000}}, rid=7,
                        meta={**META, "progressToken": "p7"})
        with client.stream("POST", url, json=long_call, headers=hdrs("tools/call", "slow_count")) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            for pid in children:
                kill_descendant(pid)  # a child that exited meanwhile is not killed by its reused pid
            started = time.monotonic()
            events = [json.loads(line[5:]) for line in resp.iter_lines() if line.startswith("data:")]
        waited = time.monotonic() - started
        payload = events[-1]
        assert all(e.get("method") == "notifications/progress" for e in events[:-1])
        assert payload["id"] == 7
        assert payload["error"]["code"] == -32603
        assert "Upstream" in payload["error"]["message"]
        assert waited < 30  # generous bound: the point is "not a hang"
        # The next call succeeds on a respawned child.
        after = client.post(url, json=req("tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}}, rid=8),
                            headers=hdrs("tools/call", "add"))
        assert after.json()["result"]["content"][0]["text"] == "4"
        health = client.get(f"http://127.0.0.1:{port}/healthz").json()
        assert health["upstream"]["restarts"] >= 1


@pytest.mark.legacy_peer
def test_auto_front_routes_a_2026_initialize_to_the_modern_front() -> None:
    """With both eras on one endpoint, an ``initialize`` carrying the 2026 envelope is a 2026 request for a
    removed method (404 -32601); a 2025 ``initialize`` (params.protocolVersion) opens a 2025 session."""
    port = peers.free_port()
    upstream = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py")]
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--", *upstream]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port), httpx.Client(timeout=30) as client:
        modern = client.post(url, json=req("initialize"), headers=hdrs("initialize"))
        assert modern.status_code == 404 and modern.json()["error"]["code"] == -32601
        legacy_init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}}
        legacy = client.post(url, json=legacy_init, headers={"Accept": "application/json, text/event-stream"})
        assert legacy.status_code == 200 and "mcp-session-id" in legacy.headers
        body = legacy.json() if legacy.headers["content-type"].startswith("application/json") else json.loads(
            [line for line in legacy.text.splitlines() if line.startswith("data:") and line[5:].strip()][-1][5:])
        assert body["result"]["protocolVersion"] == "2025-11-25"
        assert body["result"]["serverInfo"]["name"] == "legacy-everything"
