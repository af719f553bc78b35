"""Published servers people run, through the bridge, compared with a direct connection.

Each cell runs one plan of operations with a real client against a real published server twice:
directly (the reference: the same client SDK in the server's own era, 2025-11-25) and through
``mcp-bridge serve --stdio -- SERVER``; it passes only when both answers are equal (refusals
included: a bridged call that succeeds where the direct one is refused is a failure). Servers and
versions are pinned in ``.ci/published-peers.sh``.

Clients: ``v1`` = mcp 1.29 ``ClientSession`` (2025-11-25 through the bridge's legacy front),
``v2-2026`` = mcp 2.3.0 ``Client(mode="2026-07-28")`` and ``v2-auto`` = mcp 2.3.0 in its default
discover-then-fallback mode; the v2 cells' reference is mcp 2.3.0 pinned to ``legacy`` directly.
Cells that fail by a known bridge defect are strict xfails naming it, so a fix shows up as XPASS.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import peers

HERE = Path(__file__).resolve().parent
DRIVER = str(HERE / "driver.py")
PUB_BIN = peers.ROOT / ".venvs" / "published" / "bin"
NPM = peers.ROOT / ".cache" / "published-npm" / "node_modules"
BRIDGE = [peers.MODERN_PYTHON, "-m", "mcp_eras.bridge", "serve", "--stdio", "--log-level", "error", "--"]
CLIENTS = {"v1": ("legacy", "v1"), "v2-2026": ("2026-07-28", "v2"), "v2-auto": ("auto", "v2")}

pytestmark = [pytest.mark.legacy_peer, pytest.mark.published]


@dataclass
class Server:
    command: list[str]
    plan: list[dict]
    roots: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    fresh: list[str] = field(default_factory=list)  # files removed before each run (server state)


def call(name: str, **args: object) -> dict:
    return {"op": "call_tool", "name": name, "args": args}


LIST = [{"op": "list_tools"}]
ROOTS_APPLIED = [{**call("list_allowed_directories"), "settled_through_bridge": True},
                 {**call("list_allowed_directories"), "until_changed": True}]
"""Directly the first call races the server applying the roots it asked for at once; through the bridge the call
goes upstream after them (issue #30), so the first bridged answer is compared with the direct one once applied."""


class Page(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("site")
    (root / "page.html").write_text("<html><head><title>Bridge</title></head><body><h1>Eras</h1><p>Two eras, one bridge.</p></body></html>")
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Page, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sibling folders for the filesystem server and a git repository with one commit."""
    base = tmp_path_factory.mktemp("ws")
    for name in ("granted", "other"):
        (base / name).mkdir()
        (base / name / f"{name}.txt").write_text(f"{name} file\n")
    repo = base / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "first"]):
        if cmd[0] == "add":
            (repo / "README.md").write_text("repo\n")
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True)
    return base


def servers(site: str, ws: Path) -> dict[str, Server]:
    node = shutil.which("node") or "node"
    granted, other = str(ws / "granted"), str(ws / "other")
    fs = str(NPM / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js")
    memory_file = str(ws / "memory.jsonl")
    return {
        "time": Server([str(PUB_BIN / "mcp-server-time"), "--local-timezone", "Etc/UTC"], [
            *LIST, call("convert_time", source_timezone="Europe/Paris", time="12:00", target_timezone="Asia/Tokyo"),
            call("convert_time", source_timezone="Nowhere/Nothing", time="12:00", target_timezone="Asia/Tokyo")]),
        "fetch": Server([str(PUB_BIN / "mcp-server-fetch"), "--ignore-robots-txt"], [
            *LIST, call("fetch", url=f"{site}/page.html", max_length=2000), call("fetch", url=f"{site}/missing.html")]),
        "git": Server([str(PUB_BIN / "mcp-server-git"), "--repository", str(ws / "repo")], [
            *LIST, call("git_status", repo_path=str(ws / "repo")), call("git_log", repo_path=str(ws / "repo"), max_count=1)]),
        "everything-2025.11.25": Server([node, str(NPM / "everything-2025-11" / "dist" / "index.js")], [
            *LIST, call("echo", message="hi"), call("add", a=1, b=2), {"op": "list_prompts"},
            {"op": "get_prompt", "name": "simple_prompt"}, {"op": "list_resources"},
            {"op": "read_resource", "uri": "test://static/resource/1"}, {"op": "read_resource", "uri": "test://missing/0"},
            call("sampleLLM", prompt="hi", maxTokens=10)]),
        "everything-2026.8.31": Server([node, str(NPM / "everything-2026-08" / "dist" / "index.js")], [
            *LIST, call("echo", message="hi"), call("get-sum", a=1, b=2), {"op": "list_prompts"},
            {"op": "get_prompt", "name": "simple-prompt"}, {"op": "list_resources"},
            {"op": "read_resource", "uri": "demo://missing/0"}, call("trigger-sampling-request", prompt="hi", maxTokens=10)]),
        "memory": Server([node, str(NPM / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js")], [
            *LIST, call("create_entities", entities=[{"name": "eras", "entityType": "project", "observations": ["two"]}]),
            call("read_graph")], env={"MEMORY_FILE_PATH": memory_file}, fresh=[memory_file]),
        # The server asks roots/list right after initialization and applies the answer asynchronously:
        # directly the first call sees its command-line directories, then they change to the roots.
        "filesystem-narrowed": Server([node, fs, granted, other], [
            *ROOTS_APPLIED, call("read_text_file", path=f"{granted}/granted.txt"),
            call("read_text_file", path=f"{other}/other.txt")], roots=[granted]),
        "filesystem-roots-only": Server([node, fs], [
            *ROOTS_APPLIED, call("read_text_file", path=f"{granted}/granted.txt")], roots=[granted]),
        # The client's roots change: the server is told (roots/list_changed), asks again, and applies the new ones.
        "filesystem-roots-change": Server([node, fs], [
            *ROOTS_APPLIED, {"op": "set_roots", "roots": [other]}, {**call("list_allowed_directories"), "until_changed": True},
            call("read_text_file", path=f"{other}/other.txt"), call("read_text_file", path=f"{granted}/granted.txt")],
            roots=[granted]),
    }


def run(client: str, mode: str, server: Server, bridged: bool) -> dict:
    python = peers.legacy_python() if client == "v1" else peers.MODERN_PYTHON
    for path in server.fresh:
        Path(path).unlink(missing_ok=True)
    cmd = [python, DRIVER, "--mode", mode, "--plan", json.dumps(server.plan)]
    if server.roots:
        cmd += ["--roots", *server.roots]
    cmd += ["--", *(BRIDGE if bridged else []), *server.command]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env={**os.environ, **server.env}, cwd=peers.ROOT)
    assert proc.returncode == 0, f"driver failed ({'bridged' if bridged else 'direct'}):\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


# Cells that fail today by a defect of issue #17 (strict: a fix turns them into XPASS failures).
KNOWN: dict[tuple[str, str], str] = {}
_references: dict[tuple[str, str], dict] = {}


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("name", ["time", "fetch", "git", "everything-2025.11.25", "everything-2026.8.31", "memory",
                                  "filesystem-narrowed", "filesystem-roots-only", "filesystem-roots-change"])
def test_bridged_equals_direct(name: str, client: str, site: str, workspace: Path, request: pytest.FixtureRequest) -> None:
    if name.startswith(("everything", "memory", "filesystem")) and not (NPM / ".." / ".stamp").exists():
        pytest.skip("npm servers not installed (.ci/published-peers.sh needs npm)")
    if name == "filesystem-roots-change" and client != "v1":
        pytest.skip("2026-07-28 has no roots/list_changed: a 2026 client's roots are asked again per request")
    if (name, client) in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[name, client], strict=True))
    server = servers(site, workspace)[name]
    mode, sdk = CLIENTS[client]
    key = (name, sdk)
    if key not in _references:
        _references[key] = run(client, "legacy", server, bridged=False)
    bridged = run(client, mode, server, bridged=True)
    reference = _references[key]
    for i, (step, want, got) in enumerate(zip(server.plan, reference["steps"], bridged["steps"], strict=True)):
        if step.get("settled_through_bridge"):
            want = reference["steps"][i + 1]
        assert got == want, (f"{want['op']} differs through the bridge:\n"
                             f" direct:  {json.dumps(want)[:1500]}\n bridged: {json.dumps(got)[:1500]}")


if __name__ == "__main__":  # pragma: no cover - convenience: list the cells
    sys.exit(pytest.main([__file__, "-q", "--co"]))
