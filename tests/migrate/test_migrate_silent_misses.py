"""Issue 31: v1 code that raises under mcp 2.3.0 and used to get neither a rewrite nor a marker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import MARKER, assert_idempotent, before_and_after, migrate_source

from peers import legacy_python

SETTINGS = """
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")
mcp.settings.host = "0.0.0.0"
mcp.settings.port = 9123
"""


def test_settings_writes_without_a_start_call_become_start_defaults() -> None:
    new, findings = migrate_source(SETTINGS)
    assert "mcp.settings" not in new
    assert '\n_mcp_v1_transport_defaults(mcp, host="0.0.0.0")\n' in new
    assert "\n_mcp_v1_transport_defaults(mcp, port=9123)\n" in new
    assert new.count("def _mcp_v1_transport_defaults(") == 1
    assert [f.status for f in findings if f.rule == "MCP019"] == ["review", "review"]
    assert_idempotent(SETTINGS)


@pytest.mark.legacy_peer
def test_settings_writes_without_a_start_call_run_under_v2(tmp_path: Path) -> None:
    old, new = before_and_after(tmp_path, "server.py", SETTINGS)
    assert subprocess.run([legacy_python(), "-c", "import server"], cwd=old, timeout=120).returncode == 0
    proc = subprocess.run([sys.executable, "-c", "import server; print(sorted(server.mcp.run_sse_async.keywords))"],
                          cwd=new, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "['host', 'port']"


def test_settings_of_a_server_imported_from_outside_are_marked() -> None:
    new, findings = migrate_source("""
        from app import mcp
        mcp.settings.port = 9000
        mcp.run("sse")
        """, "MCP019")
    assert new.count(MARKER) == 1 and "pass port= to the call that starts this server" in new
    assert [f.status for f in findings] == ["manual"]


def test_settings_of_something_else_are_left_alone() -> None:
    source = "class Conf:\n    pass\nconf = Conf()\nconf.settings = Conf()\nconf.settings.port = 1  # mcp\n"
    assert migrate_source(source, "MCP019") == (source, [])


def test_a_url_object_passed_to_an_unproven_session_is_marked() -> None:
    new, findings = migrate_source("""
        from pydantic import AnyUrl
        from mcp import types
        async def read(session, uri: str):
            return await session.read_resource(AnyUrl(uri))
        """, "MCP014")
    assert new.count(MARKER) == 1 and "pass the URI as a str" in new
    assert [f.status for f in findings] == ["manual"]


def test_an_httpx_client_bound_to_a_name_and_handed_to_the_sdk_becomes_httpx2() -> None:
    source = """
        import httpx
        from mcp.client.streamable_http import streamable_http_client
        async def go(url):
            async with httpx.AsyncClient(headers={"a": "b"}) as client:
                async with streamable_http_client(url, http_client=client) as (r, w):
                    pass
        """
    new, findings = migrate_source(source, "MCP015")
    assert 'async with httpx2.AsyncClient(headers={"a": "b"}) as client:' in new
    assert "import httpx\n" not in new and "import httpx2\n" in new
    assert [f.status for f in findings] == ["review"]
    assert_idempotent(source, "MCP015")


def test_an_httpx_client_kept_for_the_project_is_left_alone() -> None:
    source = """
        import httpx
        from mcp.client.streamable_http import streamable_http_client
        async def go(url):
            async with httpx.AsyncClient() as web:
                await web.get(url)
            async with streamable_http_client(url) as (r, w):
                pass
        """
    new, _ = migrate_source(source, "MCP015")
    assert "httpx.AsyncClient() as web" in new
