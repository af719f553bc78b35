"""MCP074 websocket-removed: WebSocket transport removed (`mcp.client.websocket`, `mcp.server.websocket`):
uses marked, a module-level import guarded so the module still imports under v2 (a client library that
offers WebSocket among other transports, as mcpadapt 0.1.19 does, failed to import at all)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from migrate_helpers import Case, RuleTests, migrate_source

from peers import legacy_python

GUARDED = ("# TODO(mcp-migrate MCP074): the WebSocket transport was removed in v2: switch to streamable HTTP "
           "(the import is guarded so the module still imports; these names raise under v2)\n") + '''\
try:
    from mcp.client.websocket import websocket_client as ws
except ImportError:  # the WebSocket transport was removed in mcp 2 (mcp-migrate MCP074)
    def ws(*args, **kwargs):
        raise RuntimeError("mcp 2 removed the WebSocket transport: use streamable HTTP")
'''

CASES: list[Case] = [
    Case("MCP074", "from mcp.client.websocket import websocket_client as ws\n", GUARDED, {"manual"}, 1),
    Case("MCP074", "def go():\n    from mcp.client.websocket import websocket_client\n", None, {"manual"}, 1),
    # a program's own guard (langchain-mcp-adapters 0.1.14) is still marked
    Case("MCP074", "try:\n    from mcp.client.websocket import websocket_client\nexcept ImportError:\n"
                   "    raise ImportError('pip install websockets')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import websockets\nfrom mcp import ClientSession\n",
]


class TestMCP074(RuleTests):
    rule = "MCP074"
    cases = CASES
    negative = NEGATIVE


def test_a_library_offering_websocket_among_other_transports_still_imports_under_both_majors(tmp_path: Path) -> None:
    source = ("from mcp.client.sse import sse_client\nfrom mcp.client.websocket import websocket_client\n\n"
              "TRANSPORTS = {'sse': sse_client, 'ws': websocket_client}\n")
    (tmp_path / "lib.py").write_text(migrate_source(source)[0])
    check = "import lib; print(sorted(lib.TRANSPORTS))"
    for python in (sys.executable, legacy_python()):
        proc = subprocess.run([python, "-c", check], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert proc.stdout.strip() == "['sse', 'ws']", (python, proc.stderr[-800:])
