"""Issue 31: transport options in the ``FastMCP(...)`` constructor of a server whose start call is not in
the project (started by the ``mcp`` CLI or a host program). v2's ``MCPServer`` constructor rejects them
(``TypeError`` at import); the migrated module must import under mcp 2.3.0 and still apply them when the
program starts the server, with keyword arguments passed at that call winning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import MARKER, assert_idempotent, before_and_after, migrate_source

from peers import legacy_python

SOURCE = """
import os

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("weather", host="0.0.0.0", port=int(os.environ.get("PORT", "8123")), stateless_http=True)


@mcp.tool()
async def ping() -> str:
    return "pong"
"""

CHECK = """
import server
app = server.mcp.streamable_http_app()
print(server.mcp.session_manager.stateless)
print(sorted(server.mcp.run_streamable_http_async.keywords.items()))
print(sorted(server.mcp.sse_app.keywords.items()))
"""


def _run(python: str, folder: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-c", code], cwd=folder, capture_output=True, text=True, timeout=120)


def test_the_constructor_no_longer_takes_them_and_a_marker_says_where_they_went() -> None:
    new, findings = migrate_source(SOURCE, "MCP001", "MCP003")
    assert 'mcp = MCPServer("weather")\n' in new
    assert ('_mcp_v1_transport_defaults(mcp, host="0.0.0.0", port=int(os.environ.get("PORT", "8123")), '
            "stateless_http=True)\n") in new
    assert new.count(MARKER) == 1 and "no start call was found: pass `host`, `port`, `stateless_http` where the server starts" in new
    assert {(f.rule, f.status) for f in findings} >= {("MCP003", "review")}
    assert_idempotent(SOURCE, "MCP001", "MCP003")
    assert_idempotent(SOURCE)


def test_the_helper_goes_after_the_imports_and_before_the_constructor() -> None:
    new, _ = migrate_source(SOURCE, "MCP001", "MCP003")
    assert new.index("from mcp.server.mcpserver import") < new.index("def _mcp_v1_transport_defaults(") < new.index(
        "mcp = MCPServer(")


def test_a_start_site_in_the_project_still_receives_them_directly() -> None:
    new, _ = migrate_source(SOURCE + '\nif __name__ == "__main__":\n    mcp.run(transport="streamable-http")\n',
                            "MCP001", "MCP003")
    assert "_mcp_v1_transport_defaults" not in new
    assert 'mcp.run(transport="streamable-http", host="0.0.0.0"' in new


@pytest.mark.legacy_peer
def test_the_migrated_module_imports_and_applies_them_under_v2(tmp_path: Path) -> None:
    old, new = before_and_after(tmp_path, "server.py", SOURCE)
    assert _run(legacy_python(), old, "import server").returncode == 0
    proc = _run(sys.executable, new, CHECK)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [
        "True",
        "[('host', '0.0.0.0'), ('port', 8123), ('stateless_http', True)]",
        "[('host', '0.0.0.0')]",
    ]
