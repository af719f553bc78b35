"""Issue #30, acceptance 1: the first call through the bridge runs with the client's roots.

The published server-filesystem asks ``roots/list`` right after ``notifications/initialized`` (2025-11-25
client/roots.mdx §Listing Roots) and narrows its directories to the answer. Through the bridge the call that
opens the session first carries that request to the client (``input_required`` for a 2026 client, the real
request for a 2025 one), the server gets the answer, and only then the call goes upstream: its answer is the one a
direct connection gives once the roots are applied (directly the first call races the server applying them, so
the reference is the direct answer after the change shows), and a read outside the declared root is refused.
Both bridge fronts (stdio and Streamable HTTP), mcp 2.3.0 pinned to 2026-07-28 and in auto mode, and mcp 1.29.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import test_published_matrix

import peers

HERE = Path(__file__).resolve().parent
NPM = peers.ROOT / ".cache" / "published-npm" / "node_modules"
FS = NPM / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
CLIENTS = {"v1": "legacy", "v2-2026": "2026-07-28", "v2-auto": "auto"}

workspace = test_published_matrix.workspace
"""The matrix's two sibling folders, ``granted`` and ``other`` (one file each)."""

pytestmark = [pytest.mark.legacy_peer, pytest.mark.published]


def call(name: str, **args: object) -> dict:
    return {"op": "call_tool", "name": name, "args": args}


def python_of(client: str) -> str:
    return peers.legacy_python() if client == "v1" else peers.MODERN_PYTHON


def drive(client: str, mode: str, plan: list[dict], roots: list[str], target: list[str]) -> list[dict]:
    script = "url_driver.py" if len(target) == 1 else "driver.py"
    cmd = [python_of(client), str(HERE / script), "--mode", mode, "--plan", json.dumps(plan), "--roots", *roots]
    cmd += ["--url", *target] if len(target) == 1 else ["--", *target]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=peers.ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)["steps"]


@contextmanager
def http_front(server: list[str]) -> Iterator[str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "error", "--", *server]
    with peers.running(cmd, port):
        yield f"http://127.0.0.1:{port}/mcp"


def settled_directories(client: str, server: list[str], roots: list[str]) -> dict:
    """The direct answer of ``list_allowed_directories`` once the server has applied the client's roots."""
    plan = [call("list_allowed_directories"), {**call("list_allowed_directories"), "until_changed": True}]
    return drive(client, "legacy", plan, roots, ["node", str(FS), *server])[-1]


@pytest.mark.parametrize("front", ["stdio", "http"])
@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("started_on", ["both-dirs", "no-dir"])
def test_first_call_sees_the_declared_roots(started_on: str, client: str, front: str, workspace: Path) -> None:
    if not FS.exists():
        pytest.skip("npm servers not installed (.ci/published-peers.sh needs npm)")
    granted, other = str(workspace / "granted"), str(workspace / "other")
    server = ["node", str(FS), *([granted, other] if started_on == "both-dirs" else [])]
    want = settled_directories(client, server[2:], [granted])
    assert granted in json.dumps(want) and other not in json.dumps(want)  # (the reference is the narrowed one)
    first_list = [call("list_allowed_directories")]
    first_read = [call("read_text_file", path=f"{other}/other.txt"), call("read_text_file", path=f"{granted}/granted.txt")]
    bridged: list[list[dict]] = []
    for plan in (first_list, first_read):
        if front == "stdio":
            bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "error", "--", *server]
            bridged.append(drive(client, CLIENTS[client], plan, [granted], bridge))
        else:
            with http_front(server) as url:
                bridged.append(drive(client, CLIENTS[client], plan, [granted], [url]))
    assert bridged[0][0] == want
    outside, inside = bridged[1]
    assert outside["result"].get("isError") is True and "Access denied" in json.dumps(outside), outside
    assert inside["result"]["content"][0]["text"] == "granted file\n", inside
