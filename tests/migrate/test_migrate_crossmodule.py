"""Cross-module reach: the server object's provenance follows imports (absolute, relative,
re-exports), factory functions and ``__main__.py``; kwargs move as written when their names are in
scope at the start site, else travel on ``_mcp_v1_transport`` with a marker that says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from migrate_helpers import unwrapped

from mcp_eras.migrate.cli import main


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    if args[0] != "check":
        args = [*args, "--allow-no-vcs"]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0), capsys.readouterr().out


def fixed(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str],
          select: str = "MCP001,MCP003") -> dict[str, str]:
    """Migrate a package made of ``files``; check a second run changes nothing; return the texts."""
    root = write(tmp_path, {"svc/__init__.py": "", **files})
    run([str(root), "--select", select], capsys)
    assert run([str(root), "--diff", "--select", select], capsys) == (0, "")
    return {name: (root / name).read_text() for name in files}


SERVER_PKG = {
    "pkg/__init__.py": "from .app import mcp\n",
    "pkg/app.py": "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x', version='1')\n",
    "pkg/factory.py": "from pkg.app import mcp\n\n\ndef create():\n    return mcp\n",
    "pkg/tools.py": (
        "from .app import mcp\n\n\n@mcp.tool()\ndef sync_tool() -> str:\n    return mcp.get_context().request_id\n\n\n"
        "@mcp.resource('item://{id}')\nasync def item(id: str) -> str:\n    return id\n"
    ),
    "pkg/more.py": "from pkg import mcp\nfrom pkg.factory import create\n\nctx = create().get_context()\n"
                   "\n\n@mcp.prompt()\ndef hello() -> str:\n    return 'hi'\n",
}


def test_server_receiver_rules_fire_through_imports_and_factories(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = write(tmp_path, SERVER_PKG)
    code, out = run(["check", str(root), "--format", "json", "--select", "MCP028,MCP203,MCP215"], capsys)
    assert code == 1
    found = {(Path(f["path"]).name, f["rule"], f["line"]) for f in json.loads(out)["findings"]}
    assert found == {("tools.py", "MCP203", 4), ("tools.py", "MCP028", 6), ("tools.py", "MCP215", 9),
                     ("more.py", "MCP028", 4), ("more.py", "MCP203", 7)}


def test_a_value_whose_names_are_in_scope_moves_as_written(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = fixed(tmp_path, capsys, {
        "svc/config.py": "PORT = 8123\n",
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\nfrom svc.config import PORT\n\n"
                      "mcp = FastMCP('x', port=PORT, host=HOST)\nHOST = '0.0.0.0'\n",
        "svc/__main__.py": "from .config import PORT\nfrom .app import mcp\n\nmcp.run(transport='sse')\n",
    })
    app = out["svc/app.py"]
    assert "mcp = MCPServer('x')" in app and "_mcp_v1_transport" not in app
    main = out["svc/__main__.py"]  # PORT is in scope; HOST is imported from where it lives
    assert "from svc.app import HOST\n" in main and "mcp.run(transport='sse', port=PORT, host=HOST)" in main


def test_the_stash_is_the_last_resort_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = fixed(tmp_path, capsys, {
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\n\n\ndef build(port):\n"
                      "    server = FastMCP('x', port=port)\n    return server\n",
        "svc/__main__.py": "from svc.app import build\n\napp = build(8000)\napp.run(transport='sse')\n",
    })
    app = out["svc/app.py"]
    assert 'server._mcp_v1_transport = {"port": port}' in app
    assert "carries them: `port` not in scope at the start site in __main__.py" in unwrapped(app)


def test_literal_names_in_scope_need_no_stash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = fixed(tmp_path, capsys, {
        "svc/config.py": "PORT = 8123\n",
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\nfrom svc.config import PORT\n\n"
                      "mcp = FastMCP('x', port=PORT)\n",
        "svc/__main__.py": "from .config import PORT\nfrom .app import mcp\n\nmcp.run(transport='sse')\n",
    })
    assert "_mcp_v1_transport" not in out["svc/app.py"]
    assert "mcp.run(transport='sse', port=PORT)" in out["svc/__main__.py"]


def test_a_factory_in_another_module_reaches_the_start_site(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = fixed(tmp_path, capsys, {
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\n\n\ndef build():\n"
                      "    server = FastMCP('x', stateless_http=True)\n    return server\n",
        "svc/__main__.py": "from svc.app import build\n\napp = build()\napp.run(transport='streamable-http')\n",
        "svc/asgi.py": "from . import app as appmod\n\nasgi = appmod.build().streamable_http_app()\n",
    })
    assert "server = MCPServer('x')" in out["svc/app.py"]
    assert "app.run(transport='streamable-http', stateless_http=True)" in out["svc/__main__.py"]
    assert "appmod.build().streamable_http_app(stateless_http=True)" in out["svc/asgi.py"]


def test_settings_writes_move_to_a_start_site_reached_through_a_factory(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = fixed(tmp_path, capsys, {
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\nmcp.settings.port = 9001\n\n\n"
                      "def build():\n    return mcp\n",
        "svc/__main__.py": "from svc.app import build\n\nbuild().run(transport='sse')\n",
    }, "MCP001,MCP003,MCP019")
    assert "settings" not in out["svc/app.py"]
    assert "build().run(transport='sse', port=9001)" in out["svc/__main__.py"]


def test_an_ignored_start_site_keeps_the_move_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write(tmp_path, {
        "svc/__init__.py": "",
        "svc/app.py": "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\nmcp.settings.port = 9001\n",
        "svc/run.py": "from svc.app import mcp\n\nmcp.run(transport='sse')  # mcp-migrate: ignore[MCP019] ours\n",
    })
    code, out = run(["check", str(root), "--select", "MCP019", "--format", "json"], capsys)
    assert code == 1
    (finding,) = json.loads(out)["findings"]
    assert finding["status"] == "manual" and "marked `mcp-migrate: ignore`" in finding["message"]
