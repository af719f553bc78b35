"""Acceptance: a v1 server package in real-world layouts migrates with no hand edit.

``tests/migrate/data/weather_pkg`` (written for this test) keeps the server object in ``app.py``
(re-exported by the package), registers tools, prompts and resources from other modules, starts
through a factory in ``__main__.py``, mounts the app from another module, parses commands with
``match`` and reads typed results in a client module. After one run it must import under mcp 2.3.0
and ``mcp-bridge verify`` must find the same tools, prompts, resources, templates and call answers as
the original served by mcp 1.29; a second run changes nothing and every output compiles.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import migrate_tree, unwrapped

from peers import bridge_cmd, legacy_python

DATA = Path(__file__).resolve().parent / "data" / "weather_pkg"
# (a tool that raises is left out: v2 words the error text differently, "Error executing tool ..." is gone)
CALLS = [
    {"tool": "forecast", "arguments": {"city": "Oslo", "days": 2}},
    {"tool": "classify", "arguments": {"command": "forecast lima 3"}},
    {"tool": "classify", "arguments": {"command": "dance now please"}},
    {"tool": "report", "arguments": {"city": "Paris"}},
    {"tool": "server_name", "arguments": {"upper": True}},
    {"method": "resources/read", "params": {"uri": "weather://cities"}},
    {"method": "resources/read", "params": {"uri": "weather://oslo/now"}},
    {"method": "prompts/get", "params": {"name": "brief", "arguments": {"city": "Lima"}}},
]

pytestmark = [pytest.mark.legacy_peer]


def _serve(python: str, root: Path) -> str:
    return shlex.join(["sh", "-c", f"cd {shlex.quote(str(root))} && exec {shlex.quote(python)} -m weather"])


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("pkg")
    old, new = base / "old", base / "new"
    shutil.copytree(DATA, old)
    shutil.copytree(DATA, new)
    assert migrate_tree(new) == 0
    return old, new


def test_the_package_is_rewritten_where_it_must_be(migrated: tuple[Path, Path]) -> None:
    _, new = migrated
    pkg = new / "weather"
    assert "MCPServer(\n    \"weather\",\n    instructions=\"Forecasts for a few cities.\",\n)" in (pkg / "app.py").read_text()
    main_py = (pkg / "__main__.py").read_text()
    assert 'server.run(transport="streamable-http", host="127.0.0.1", stateless_http=True, json_response=True)' in \
        unwrapped(main_py)
    assert "        server.run()\n" in main_py  # stdio takes none of them
    assert ('create_server().streamable_http_app(host="127.0.0.1", stateless_http=True, json_response=True)'
            in unwrapped((pkg / "web.py").read_text()))
    client = (pkg / "client.py").read_text()
    assert "result.is_error" in client and "tool.input_schema" in client and "item.mime_type" in client
    assert "TODO(mcp-migrate MCP206)" not in (pkg / "web.py").read_text()  # host= arrives from the constructor
    tools = (pkg / "tools.py").read_text()  # get_context() on the server imported from app.py
    assert "async def server_name(upper: bool = False, *, ctx: Context) -> str:" in tools
    assert "get_context" not in tools and "name = ctx.mcp_server.name" in tools
    assert '"mcp[cli]>=2.3,<3"' in (new / "pyproject.toml").read_text()


def test_a_second_run_changes_nothing_and_every_output_compiles(migrated: tuple[Path, Path]) -> None:
    _, new = migrated
    assert migrate_tree(new, "fix", "--diff") == 0
    for path in new.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)


def test_it_imports_under_v2(migrated: tuple[Path, Path]) -> None:
    _, new = migrated
    proc = subprocess.run([sys.executable, "-c", "import weather.server, weather.web, weather.client"],
                          cwd=new, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_verify_finds_the_same_surface_and_answers(migrated: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = migrated
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(json.dumps(c) for c in CALLS) + "\n")
    proc = subprocess.run([*bridge_cmd(), "verify", _serve(legacy_python(), old), _serve(sys.executable, new),
                           "--calls", str(calls), "--json"], capture_output=True, text=True, timeout=240)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["differences"] == [] and report["ok"] is True
    assert report["compared"] == {"tools": 4, "prompts": 1, "resources": 1, "resourceTemplates": 1,
                                  "calls": len(CALLS)}
