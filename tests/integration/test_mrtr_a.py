"""MRTR, direction A, with real peers: a legacy (mcp 1.29) server asks the client mid-call with
elicitation / sampling / roots; a 2026 client (mcp 2.3.0, no fallback) gets ``input_required`` from
the bridge, retries with ``inputResponses`` + ``requestState``, and gets the right final result."""

from __future__ import annotations

import json
import subprocess
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client import Client

import peers

META_CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def mrtr_server(*args: str) -> list[str]:
    return [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "mrtr_server.py"), *args]


def bridge_http(upstream: list[str], *extra: str) -> tuple[list[str], str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28", "--log-level", "warning",
           *extra, *upstream]
    return cmd, f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def legacy_mrtr_http() -> Iterator[str]:
    port = peers.free_port()
    with peers.running(mrtr_server("http", "--port", str(port)), port):
        yield f"http://127.0.0.1:{port}/mcp"


EXPECTED = {
    "ask_name": (["Hello, Ada!"], [["elicitation/form"]]),
    "ask_url": (["url accepted"], [["elicitation/url"]]),
    "two_questions": (["Ada likes teal"], [["elicitation/form"], ["elicitation/form"]]),
    "list_my_roots": (["root-a: file:///tmp/mcp-eras/root-a\nroot-b: file:///tmp/mcp-eras/root-b"], [["roots"]]),
}


def check_mrtr(report: dict) -> None:
    steps = report["scenarios"]["mrtr"]["steps"]
    for tool, (text, rounds) in EXPECTED.items():
        assert steps[tool]["text"] == text, tool
        assert steps[tool]["rounds"] == rounds, tool
    # Three upstream requests asked concurrently come back as ONE input_required round.
    assert steps["ask_all"]["rounds"] == [["elicitation/form", "roots", "sampling"]]
    assert steps["ask_all"]["text"][0].startswith("name=Ada; sample=summary of [Summarize in one line: everything at once]")
    assert steps["summarize"]["text"][0].startswith("summary of [Summarize in one line: the quick brown fox]")
    # Progress that precedes the question reaches the client.
    assert [p[0] for p in steps["wait_then_ask"]["progress"]] == [1.0, 2.0]
    assert steps["wait_then_ask"]["text"] == ["Hello, Ada!"]
    assert steps["mrtr_prompt"][0]["text"] == "Write a short poem for Ada."
    assert steps["mrtr_resource"][0]["text"] == "The vault opens with teal."


def run_client(target: list[str]) -> dict:
    cmd = [peers.MODERN_PYTHON, str(peers.SAMPLES / "clients" / "modern_client.py"), "--json", "--scenario", "mrtr", *target]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    report = json.loads(proc.stdout)
    assert report["scenarios"]["mrtr"]["ok"], (report["scenarios"]["mrtr"].get("error"), proc.stderr[-3000:])
    return report


@pytest.mark.legacy_peer
def test_mrtr_stdio_upstream() -> None:
    cmd, url = bridge_http(["--", *mrtr_server()])
    with peers.running(cmd, int(url.split(":")[2].split("/")[0])):
        check_mrtr(run_client([url]))


@pytest.mark.legacy_peer
def test_mrtr_http_upstream(legacy_mrtr_http: str) -> None:
    cmd, url = bridge_http(["--upstream", legacy_mrtr_http])
    with peers.running(cmd, int(url.split(":")[2].split("/")[0])):
        check_mrtr(run_client([url]))


@pytest.mark.legacy_peer
def test_mrtr_stdio_front() -> None:
    bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "warning", "--", *mrtr_server()]
    check_mrtr(run_client(["--", *bridge]))


async def _crowd(url: str, n: int) -> list[tuple[str, str]]:
    """n concurrent 2026 clients; each answers the same question with its own name."""
    results: list[tuple[str, str]] = []

    async def one(i: int) -> None:
        name = f"caller-{i:02d}"

        async def elicit(context: Any, params: Any) -> types.ElicitResult:
            return types.ElicitResult(action="accept", content={"name": name})

        async with Client(url, mode="2026-07-28", elicitation_callback=elicit, cache=None) as client:
            result = await client.call_tool("ask_name", {})
            results.append((name, result.content[0].text))  # type: ignore[union-attr]

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return results


@pytest.mark.legacy_peer
@pytest.mark.parametrize("upstream_kind", ["stdio", "http"])
def test_64_concurrent_callers_get_their_own_answers(upstream_kind: str, request: pytest.FixtureRequest) -> None:
    upstream = ["--", *mrtr_server()] if upstream_kind == "stdio" else ["--upstream", request.getfixturevalue("legacy_mrtr_http")]
    cmd, url = bridge_http(upstream)
    with peers.running(cmd, int(url.split(":")[2].split("/")[0])):
        results = anyio.run(_crowd, url, 64)
    assert len(results) == 64
    crossed = [(name, text) for name, text in results if text != f"Hello, {name}!"]
    assert not crossed, f"answers crossed between callers: {crossed[:5]}"


# ---------------------------------------------------------------------------------------------
# requestState integrity, binding, single use, expiry; parked-call release
# ---------------------------------------------------------------------------------------------

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": META_CAPS,
    "io.modelcontextprotocol/clientInfo": {"name": "state-test", "version": "1"},
}


def call(client: httpx.Client, url: str, rid: int, tool: str, args: dict | None = None, extra: dict | None = None,
         auth: str | None = None) -> dict:
    params = {"name": tool, "arguments": args or {}, "_meta": META, **(extra or {})}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool,
               "Accept": "application/json, text/event-stream"}
    if auth:
        headers["Authorization"] = auth
    resp = client.post(url, json={"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}, headers=headers)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")][-1]
    return resp.json()


def accept(name: str) -> dict:
    return {"action": "accept", "content": {"name": name}}


@pytest.mark.legacy_peer
def test_request_state_forged_tampered_replayed_foreign() -> None:
    cmd, url = bridge_http(["--", *mrtr_server()])
    with peers.running(cmd, int(url.split(":")[2].split("/")[0])), httpx.Client(timeout=60) as client:
        first = call(client, url, 1, "ask_name")["result"]
        assert first["resultType"] == "input_required"
        (key,) = first["inputRequests"]
        state = first["requestState"]
        assert first["inputRequests"][key]["method"] == "elicitation/create"

        def retry(rid: int, st: Any, tool: str = "ask_name", auth: str | None = None, args: dict | None = None) -> dict:
            return call(client, url, rid, tool, args, {"inputResponses": {key: accept("Eve")}, "requestState": st}, auth)

        forged = retry(2, "eyJ2IjoxfQ.AAAA")
        assert forged["error"]["code"] == -32602 and "requestState" in forged["error"]["message"]
        body, sig = state.split(".")
        flipped = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1]
        tampered = retry(3, f"{flipped}.{sig}")
        assert tampered["error"]["code"] == -32602 and "integrity" in tampered["error"]["message"]
        other_request = retry(4, state, args={"unexpected": 1})
        assert other_request["error"]["code"] == -32602 and "another request" in other_request["error"]["message"]
        other_caller = retry(5, state, auth="Bearer someone-else")
        assert other_caller["error"]["code"] == -32602 and "another caller" in other_caller["error"]["message"]
        ok = retry(6, state)
        assert ok["result"]["content"][0]["text"] == "Hello, Eve!"
        replay = retry(7, state)
        assert replay["error"]["code"] == -32602 and "already used" in replay["error"]["message"]


RECORDER = textwrap.dedent('''
    """A legacy server whose tool records what its elicitation finally received."""
    import sys
    from pathlib import Path
    from pydantic import BaseModel
    from mcp.server.fastmcp import Context, FastMCP

    OUT = Path(sys.argv[1])
    mcp = FastMCP("recorder", log_level="WARNING")

    class Name(BaseModel):
        name: str

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        result = await ctx.elicit("Your name?", Name)
        OUT.write_text(result.action)
        return result.action

    mcp.run()
''')


@pytest.mark.legacy_peer
def test_abandoned_parked_call_is_released_and_upstream_answered(tmp_path: Path) -> None:
    server = tmp_path / "recorder.py"
    server.write_text(RECORDER)
    outcome = tmp_path / "outcome.txt"
    # 5 s: long enough that the call is still parked when /healthz is read right after its first round, on any
    # machine; the release itself is awaited below (a hang guard, not a timing).
    cmd, url = bridge_http(["--", peers.legacy_python(), str(server), str(outcome)], "--parked-timeout", "5")
    port = int(url.split(":")[2].split("/")[0])
    with peers.running(cmd, port), httpx.Client(timeout=60) as client:
        first = call(client, url, 1, "ask")["result"]
        assert first["resultType"] == "input_required"
        assert client.get(f"http://127.0.0.1:{port}/healthz").json()["upstream"]["parked"] == 1
        deadline = time.monotonic() + 120
        while not outcome.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        # The client never retried: the bridge answered the upstream's elicitation (cancel) itself.
        assert outcome.read_text() == "cancel"
        assert client.get(f"http://127.0.0.1:{port}/healthz").json()["upstream"]["parked"] == 0
        (key,) = first["inputRequests"]
        late = call(client, url, 2, "ask", None, {"inputResponses": {key: accept("x")}, "requestState": first["requestState"]})
        assert late["error"]["code"] == -32602


@pytest.mark.legacy_peer
def test_undeclared_capability_gets_32021() -> None:
    cmd, url = bridge_http(["--", *mrtr_server()])
    port = int(url.split(":")[2].split("/")[0])
    meta = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "summarize"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "summarize", "arguments": {"text": "x"}, "_meta": meta}}
    with peers.running(cmd, port):
        resp = httpx.post(url, json=body, headers=headers, timeout=60)
        assert resp.status_code == 400
        err = resp.json()["error"]
        assert err["code"] == -32021
        assert err["data"] == {"requiredCapabilities": {"sampling": {}}}
