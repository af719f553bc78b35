"""Issue 31: a lowlevel ``Server`` bound to a module-level name through ``global`` inside a factory, with
its handlers decorated in another function above it, used to get neither a rewrite nor a marker (the
decorators raise under mcp 2.3.0: v2's ``Server`` has no ``list_tools()`` decorator)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import assert_idempotent, before_and_after, migrate_source

from peers import legacy_python

SOURCE = """
from mcp.server.lowlevel import Server
import mcp.types as types

server: Server | None = None


def register() -> None:
    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="ping", inputSchema={"type": "object"})]


def create() -> Server:
    global server
    server = Server("x")
    register()
    return server
"""

FACTORY = """
from mcp.server.lowlevel import Server

app = None


def setup():
    @app.call_tool()
    async def call(name, arguments):
        return []


def main():
    global app
    app = Server("y")
    setup()
"""


def test_decorators_on_a_global_server_are_registered() -> None:
    new, findings = migrate_source(SOURCE, "MCP007")
    assert "@server.list_tools()" not in new
    assert '    _mcp_v1_register(server, "list_tools", list_tools)\n' in new
    assert [f.status for f in findings] == ["fixed"]
    assert_idempotent(SOURCE)


def test_a_name_bound_only_through_global_counts_too() -> None:
    new, _ = migrate_source(FACTORY, "MCP007")
    assert '_mcp_v1_register(app, "call_tool", call)' in new and "@app.call_tool()" not in new


@pytest.mark.legacy_peer
def test_the_migrated_factory_registers_the_handler_under_v2(tmp_path: Path) -> None:
    old, new = before_and_after(tmp_path, "server.py", SOURCE)
    check = "import server; s = server.create(); print('tools/list' in s._request_handlers)"
    assert subprocess.run([legacy_python(), "-c", "import server; server.create()"], cwd=old,
                          timeout=120).returncode == 0
    proc = subprocess.run([sys.executable, "-c", check], cwd=new, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "True"
