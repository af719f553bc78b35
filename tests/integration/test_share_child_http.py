"""Issue #30, acceptance 2 (``--share-child``): the HTTP front over a 2025 stdio server that asks its client
(elicitation): callers of three identities one after another, then two concurrent callers, are all served by exactly
one child for the whole run, and each concurrent caller is asked its own question and gets the answer it gave."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import peers

pytestmark = pytest.mark.legacy_peer
SERVER = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "mrtr_server.py")]


def children(pid: int) -> list[int]:
    return [int(p.parent.name) for p in Path("/proc").glob("[0-9]*/stat")
            if _parent(p) == pid]


def _parent(stat: Path) -> int | None:
    try:
        return int(stat.read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def call(client: httpx.Client, url: str, rid: int, name: str, tool: str, extra: dict | None = None) -> dict:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}}
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": tool, "arguments": {}, "_meta": meta, **(extra or {})}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool,
               "Accept": "application/json, text/event-stream"}
    resp = client.post(url, json=body, headers=headers)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")][-1]
    return resp.json()


def ask_and_answer(url: str, name: str, rid: int) -> str:
    with httpx.Client(timeout=60) as client:
        first = call(client, url, rid, name, "ask_name")["result"]
        assert first["resultType"] == "input_required", first
        (key,) = first["inputRequests"]
        done = call(client, url, rid + 1, name, "ask_name", {
            "requestState": first["requestState"], "inputResponses": {key: {"action": "accept", "content": {"name": name}}}})
        return done["result"]["content"][0]["text"]


def test_share_child_one_child_and_each_caller_gets_its_own_question() -> None:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--share-child",
           "--", *SERVER]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port) as proc:
        seen = set()
        for rid, name in enumerate(("first", "second", "third"), 1):
            assert ask_and_answer(url, name, rid * 10) == f"Hello, {name}!"
            seen.update(children(proc.pid))
        with ThreadPoolExecutor(4) as pool:
            names = [f"caller-{i}" for i in range(4)]
            answers = list(pool.map(ask_and_answer, [url] * 4, names, range(100, 500, 100)))
        assert answers == [f"Hello, {n}!" for n in names]
        seen.update(children(proc.pid))
        assert len(seen) == 1, seen  # exactly one child for the whole run
