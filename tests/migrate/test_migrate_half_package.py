"""Issue 31: a module mixing ``mcp.server.fastmcp`` with the standalone ``fastmcp`` package is left as it is
(guard G1) while its siblings are migrated. The tool names the migrated siblings that import it, and
``fix --strict`` refuses to write a package it would leave half-migrated."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_migrate_cli import run_cli

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/app.py": "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n",
    "pkg/bridge.py": "import fastmcp\nfrom mcp.server.fastmcp import Context\nproxy = fastmcp.FastMCP('p')\n",
    "pkg/tools.py": "from mcp.server.fastmcp import Context\nfrom .app import mcp\nfrom . import bridge\n\n"
                    "@mcp.tool()\nasync def ping(ctx: Context) -> str:\n    return bridge.proxy.name\n",
    "pkg/alone.py": "import fastmcp\nserver = fastmcp.FastMCP('a')\n",
}


def _write(root: Path) -> Path:
    for name, text in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_skipped_module_names_the_siblings_that_import_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(_write(tmp_path))], capsys)
    assert code == 0
    line = next(x for x in out.splitlines() if "bridge.py" in x and "G1" in x and "import it" in x)
    assert "tools.py" in line and "app.py" not in line
    assert "alone.py" not in "".join(x for x in out.splitlines() if "import it" in x)  # standalone only: not SDK code
    assert "MCPServer" in (tmp_path / "pkg" / "app.py").read_text()


def test_strict_refuses_to_write_a_half_migrated_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _write(tmp_path)
    code, _, err = run_cli(["fix", str(root), "--strict"], capsys)
    assert code == 2 and "refusing to rewrite anything (--strict)" in err and "bridge.py" in err
    assert all((root / name).read_text() == text for name, text in PACKAGE.items())


def test_strict_writes_a_package_with_no_such_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _write(tmp_path)
    (root / "pkg" / "tools.py").write_text("from mcp.server.fastmcp import Context\nfrom .app import mcp\n")
    code, _, err = run_cli(["fix", str(root), "--strict"], capsys)
    assert code == 0, err
    assert "MCPServer" in (root / "pkg" / "app.py").read_text()
