"""Direction A with real peers: an mcp 2.3.0 ``Client(mode="2026-07-28")`` (no fallback) calls the
mcp 1.29.0 legacy sample server through mcp-bridge, for every front/upstream transport pairing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import peers

SCENARIOS = ["basic", "progress", "logging", "subscriptions", "errors"]


def legacy_server_cmd(*args: str) -> list[str]:
    return [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py"), *args]


def run_modern_client(target: list[str], scenarios: list[str] = SCENARIOS, timeout: float = 180) -> dict:
    cmd = [peers.MODERN_PYTHON, str(peers.SAMPLES / "clients" / "modern_client.py"), "--json"]
    for s in scenarios:
        cmd += ["--scenario", s]
    proc = subprocess.run(cmd + target, capture_output=True, text=True, timeout=timeout)
    assert proc.stdout.strip(), f"client printed nothing; stderr:\n{proc.stderr[-4000:]}"
    report = json.loads(proc.stdout)
    failed = {k: v.get("error") for k, v in report["scenarios"].items() if not v["ok"]}
    assert not failed, f"scenarios failed: {failed}\nstderr:\n{proc.stderr[-4000:]}"
    return report


def check_report(report: dict) -> None:
    """What a 2026 client must see from the legacy sample through the bridge, value by value."""
    assert report["protocol_version"] == "2026-07-28"
    basic = report["scenarios"]["basic"]["steps"]
    server = basic["server"]
    assert server["name"] == "legacy-everything"
    assert server["supported_versions"] == ["2026-07-28"]
    assert server["capabilities"]["tools"] == {"listChanged": True}
    assert server["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert "logging" in server["capabilities"] and "completions" in server["capabilities"]
    assert basic["tools"] == ["add", "add_tool", "echo", "fail", "log_levels", "slow_count", "touch", "weather"]
    assert basic["add"] == {"is_error": False, "text": ["5"]}
    assert basic["echo"] == {"is_error": False, "text": ["hello"]}
    assert basic["weather"]["structured"] == {"city": "Paris", "conditions": "cloudy", "temperature_c": 18.5}
    assert basic["weather_output_schema"]["required"] == ["city", "temperature_c", "conditions"]
    assert basic["resources"] == ["memo://config", "memo://logo", "memo://readme"]
    assert basic["templates"] == ["greeting://{name}"]
    assert basic["read_greeting"][0]["text"] == "Hello, world!"
    assert basic["read_logo"][0]["blob_hex"] == "89504e470d0a1a0a0001020304050607"
    assert basic["prompts"] == ["hello", "review"]
    assert basic["prompt_review"][0]["text"].startswith("Please review this rust code")
    assert basic["complete_language"] == ["python"]
    assert basic["complete_name"] == ["alice"]

    progress = report["scenarios"]["progress"]["steps"]
    assert progress["result"]["text"] == ["counted to 3"]
    assert [p[0] for p in progress["progress"]] == [1.0, 2.0, 3.0]

    logging_ = report["scenarios"]["logging"]["steps"]
    assert [m["level"] for m in logging_["debug_messages"]] == ["debug", "info", "warning", "error"]
    assert [m["level"] for m in logging_["warning_messages"]] == ["warning", "error"]

    subs = report["scenarios"]["subscriptions"]["steps"]
    assert subs["honored"] == {"resourceSubscriptions": ["memo://readme"], "resourcesListChanged": True, "toolsListChanged": True}
    assert "tools/list_changed" in subs["events"]
    assert "resources/updated memo://readme" in subs["events"]
    assert subs["runtime_tool"]["text"] == ["dyn_tool was added at runtime"]

    errors = report["scenarios"]["errors"]["steps"]
    assert errors["missing_resource"]["code"] == -32602  # 2025's -32002 renumbered for 2026
    assert errors["missing_resource"]["data"] == {"uri": "memo://missing"}
    assert errors["fail"]["result"]["is_error"] is True


@pytest.fixture
def legacy_http() -> Iterator[str]:
    port = peers.free_port()
    with peers.running(legacy_server_cmd("http", "--port", str(port)), port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def legacy_sse() -> Iterator[str]:
    port = peers.free_port()
    with peers.running(legacy_server_cmd("sse", "--port", str(port)), port):
        yield f"http://127.0.0.1:{port}/sse"


def http_bridge(upstream: list[str], *extra: str) -> tuple[list[str], int]:
    port = peers.free_port()
    return [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", *extra, *upstream], port


@pytest.mark.legacy_peer
def test_http_front_stdio_upstream() -> None:
    cmd, port = http_bridge(["--", *legacy_server_cmd()])
    with peers.running(cmd, port):
        check_report(run_modern_client([f"http://127.0.0.1:{port}/mcp"]))


@pytest.mark.legacy_peer
def test_http_front_http_upstream(legacy_http: str) -> None:
    cmd, port = http_bridge(["--upstream", legacy_http])
    with peers.running(cmd, port):
        check_report(run_modern_client([f"http://127.0.0.1:{port}/mcp"]))


@pytest.mark.legacy_peer
def test_http_front_http_sse_upstream(legacy_sse: str) -> None:
    cmd, port = http_bridge(["--upstream", legacy_sse])
    with peers.running(cmd, port):
        check_report(run_modern_client([f"http://127.0.0.1:{port}/mcp"]))


@pytest.mark.legacy_peer
def test_stdio_front_stdio_upstream() -> None:
    bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "warning", "--", *legacy_server_cmd()]
    check_report(run_modern_client(["--", *bridge]))


@pytest.mark.legacy_peer
def test_stdio_front_http_upstream(legacy_http: str) -> None:
    bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "warning", "--upstream", legacy_http]
    check_report(run_modern_client(["--", *bridge]))


@pytest.mark.legacy_peer
def test_pinned_legacy_era_skips_the_probe(legacy_http: str) -> None:
    cmd, port = http_bridge(["--upstream", legacy_http], "--upstream-era", "2025-11-25", "--front-era", "2026-07-28")
    with peers.running(cmd, port):
        report = run_modern_client([f"http://127.0.0.1:{port}/mcp"], ["basic"])
        assert report["scenarios"]["basic"]["steps"]["add"]["text"] == ["5"]


@pytest.mark.legacy_peer
def test_many_sequential_calls_keep_upstream_connections_healthy(legacy_http: str) -> None:
    """Regression: response streams dropped mid-read used to leak pooled upstream connections until
    the bridge hung (after ~575 calls). 1500 calls must all be answered."""
    cmd, port = http_bridge(["--upstream", legacy_http], "--upstream-era", "2025-11-25")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
    with peers.running(cmd, port), httpx.Client(timeout=60) as client:
        for i in range(1500):
            params = {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": meta}
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
            resp = client.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers)
            assert resp.json()["result"]["content"][0]["text"] == str(i + 1)


@pytest.mark.legacy_peer
def test_upstream_restart_is_a_404_then_a_transparent_reinitialize() -> None:
    """2025 Streamable HTTP: a restarted server answers the old session id with 404; the bridge
    re-initializes and retries, so the 2026 client never notices."""
    up = peers.free_port()
    upstream_url = f"http://127.0.0.1:{up}/mcp"
    cmd, port = http_bridge(["--upstream", upstream_url], "--upstream-era", "2025-11-25")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}

    def add(client: httpx.Client, a: int) -> dict:
        body = {"jsonrpc": "2.0", "id": a, "method": "tools/call", "params": {"name": "add", "arguments": {"a": a, "b": 1}, "_meta": meta}}
        return client.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers).json()

    with httpx.Client(timeout=30) as client:
        with peers.running(legacy_server_cmd("http", "--port", str(up)), up), peers.running(cmd, port) as bridge:
            assert add(client, 1)["result"]["content"][0]["text"] == "2"
        # (the bridge was stopped with the first server; start both again, the bridge first this time)
        with peers.running(cmd, port):
            with peers.running(legacy_server_cmd("http", "--port", str(up)), up):
                assert add(client, 2)["result"]["content"][0]["text"] == "3"
            with peers.running(legacy_server_cmd("http", "--port", str(up)), up):
                # Same bridge, new server process: the old Mcp-Session-Id is now unknown (404).
                assert add(client, 3)["result"]["content"][0]["text"] == "4"
        assert bridge.returncode is not None


CANCEL_RECORDER = '''
import sys
from pathlib import Path
import anyio
from mcp.server.fastmcp import Context, FastMCP

OUT = Path(sys.argv[1])
mcp = FastMCP("cancel-recorder", log_level="WARNING")


@mcp.tool()
async def wait_forever(ctx: Context) -> str:
    try:
        for i in range(10_000):
            await ctx.report_progress(i + 1, None, "waiting")
            await anyio.sleep(0.05)
    except anyio.get_cancelled_exc_class():
        OUT.write_text("cancelled")
        raise
    return "never"


mcp.run()
'''


@pytest.mark.legacy_peer
@pytest.mark.parametrize("front", ["http", "stdio"])
def test_client_cancel_reaches_the_legacy_server(front: str, tmp_path: Path) -> None:
    """2026: closing the response stream (HTTP) or notifications/cancelled (stdio) is the cancel; the
    legacy server must receive notifications/cancelled for its request."""
    import time

    server = tmp_path / "recorder.py"
    server.write_text(CANCEL_RECORDER)
    outcome = tmp_path / "outcome.txt"
    upstream = ["--", peers.legacy_python(), str(server), str(outcome)]
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": "w"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait_forever", "arguments": {}, "_meta": meta}}
    if front == "http":
        cmd, port = http_bridge(upstream)
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait_forever"}
        with peers.running(cmd, port), httpx.Client(timeout=30) as client:
            with client.stream("POST", f"http://127.0.0.1:{port}/mcp", json=body, headers=headers) as resp:
                for line in resp.iter_lines():
                    if line.startswith("data:"):
                        break  # first progress event seen: the call is running; now hang up
            deadline = time.monotonic() + 120  # a hang guard: the cancel reaches the server when it does
            while not outcome.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
    else:
        bridge = subprocess.Popen([*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "warning", *upstream],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert bridge.stdin and bridge.stdout
        try:
            bridge.stdin.write(json.dumps(body).encode() + b"\n")
            bridge.stdin.flush()
            first = json.loads(bridge.stdout.readline())
            assert first["method"] == "notifications/progress"
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
            bridge.stdin.write(json.dumps(cancel).encode() + b"\n")
            bridge.stdin.flush()
            deadline = time.monotonic() + 120  # a hang guard: the cancel reaches the server when it does
            while not outcome.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            bridge.terminate()
            bridge.wait(10)
    assert outcome.read_text() == "cancelled"


PARAM_SERVER = '''
import sys
from typing import Annotated
from pydantic import Field
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("param-headers")


@mcp.tool()
def region_echo(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], text: str) -> str:
    """Echo with a routing argument mirrored into an Mcp-Param-Region header."""
    return f"{region}:{text}"


mcp.run("stdio")
'''


def test_modern_upstream_passthrough_and_param_header_checks(tmp_path: Path) -> None:
    """Same era on both sides (2026 client, mcp 2.3.0 server) passes through; the front checks
    Mcp-Param-* headers against the x-mcp-header annotations it saw in tools/list."""
    server = tmp_path / "param_server.py"
    server.write_text(PARAM_SERVER)
    cmd, port = http_bridge(["--", peers.MODERN_PYTHON, str(server)], "--upstream-era", "2026-07-28")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    url = f"http://127.0.0.1:{port}/mcp"
    base = {"MCP-Protocol-Version": "2026-07-28"}
    with peers.running(cmd, port), httpx.Client(timeout=30) as client:
        listed = client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
                             headers={**base, "Mcp-Method": "tools/list"}).json()
        (tool,) = listed["result"]["tools"]
        assert tool["inputSchema"]["properties"]["region"]["x-mcp-header"] == "Region"

        def call(extra: dict[str, str]) -> httpx.Response:
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "region_echo", "arguments": {"region": "eu-west", "text": "hi"}, "_meta": meta}}
            return client.post(url, json=body, headers={**base, "Mcp-Method": "tools/call", "Mcp-Name": "region_echo", **extra})

        ok = call({"Mcp-Param-Region": "eu-west"})
        assert ok.status_code == 200 and ok.json()["result"]["content"][0]["text"] == "eu-west:hi"
        for bad in ({}, {"Mcp-Param-Region": "us-east"}):
            resp = call(bad)
            assert resp.status_code == 400 and resp.json()["error"]["code"] == -32020
