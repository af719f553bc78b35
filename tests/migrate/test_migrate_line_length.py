"""Issue 31 (output): the lines a rewrite makes stay within the project's configured line length
(ruff, black or flake8 settings; 88 when none), and lines the run did not write are never reflowed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from migrate_helpers import migrate_tree

from mcp_eras.migrate.linelength import DEFAULT_LINE_LENGTH, configured_line_length, fit_lines

LOWLEVEL = '''\
from mcp.server.lowlevel import Server
import mcp.types as types

server = Server("demo")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [types.Tool(name="t", description="{LONG}", inputSchema={{"type": "object"}})]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=name)]
'''.format(LONG="an untouched line that is already far longer than any limit the project sets")

HANDLERS = '''\
from mcp.server.lowlevel import Server

server = Server("demo")


def describe() -> list[str]:
    return sorted(str(kind) for kind in server.request_handlers)
'''

RENAMED = '''\
from functools import partial

from mcp.server.fastmcp import FastMCP


def build(config: dict) -> FastMCP:
    return FastMCP("Youtube Transcript Server", lifespan=partial(print, config=config))
'''


def written_lines(before: str, after: str) -> list[str]:
    old = before.splitlines()
    return [line for line in after.splitlines() if line not in old]


def project(tmp_path: Path, source: str, config: str | None = None) -> Path:
    (tmp_path / ".git").mkdir()
    if config is not None:
        (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "server.py").write_text(source)
    return tmp_path / "server.py"


@pytest.mark.parametrize(("config", "limit"), [
    (None, 88),
    ("[tool.ruff]\nline-length = 79\n", 79),
    ("[tool.black]\nline-length = 100\n", 100),
])
def test_the_lowlevel_adapter_and_markers_fit_the_configured_length(tmp_path: Path, config: str | None,
                                                                     limit: int) -> None:
    path = project(tmp_path, LOWLEVEL, config)
    assert migrate_tree(tmp_path) == 0
    after = path.read_text()
    assert "_mcp_v1_register" in after
    too_long = [line for line in written_lines(LOWLEVEL, after) if len(line) > limit]
    assert not too_long, too_long
    assert max(len(line) for line in after.splitlines()) > 120  # the untouched long line is kept as it was
    assert migrate_tree(tmp_path, "fix", "--diff") == 0


def test_a_long_marker_is_continued_and_still_found_by_a_second_run(tmp_path: Path) -> None:
    path = project(tmp_path, HANDLERS, "[tool.ruff]\nline-length = 72\n")
    assert migrate_tree(tmp_path) == 0
    after = path.read_text()
    assert after.count("# TODO(mcp-migrate MCP059)") == 1
    assert not [line for line in written_lines(HANDLERS, after) if len(line) > 72]
    first = after.splitlines().index(next(line for line in after.splitlines() if "MCP059" in line))
    assert after.splitlines()[first + 1].lstrip().startswith("#   ")
    assert migrate_tree(tmp_path, "fix", "--diff") == 0
    assert path.read_text() == after


def test_a_code_line_a_rename_made_too_long_is_split_with_the_same_meaning(tmp_path: Path) -> None:
    path = project(tmp_path, RENAMED)
    assert max(len(line) for line in RENAMED.splitlines()) <= DEFAULT_LINE_LENGTH
    assert migrate_tree(tmp_path) == 0
    after = path.read_text()
    assert "MCPServer(" in after
    assert max(len(line) for line in after.splitlines()) <= DEFAULT_LINE_LENGTH
    def build(code: str) -> str:
        return ast.dump(next(n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)))

    assert build(after) == build(RENAMED.replace("FastMCP", "MCPServer"))
    assert migrate_tree(tmp_path, "fix", "--diff") == 0


def test_fitting_never_changes_the_meaning_nor_an_original_line() -> None:
    original = 'x = "a"\n'
    long_string = 'x = """\n' + "word " * 30 + '\n"""\n'  # a long line inside a string: not splittable
    assert fit_lines(original, long_string, 40) == long_string
    kept = "y = f(" + "1, " * 40 + "2)\n"
    assert fit_lines(kept, kept + "z = 1\n", 40) == kept + "z = 1\n"
    wrapped = fit_lines("", "def f():\n    roots: Roots = await ctx().session.list_roots()\n", 40)
    assert wrapped == "def f():\n    roots: Roots = (\n        await ctx().session.list_roots()\n    )\n"
    split = fit_lines("", "value = compute(first_argument, second_argument, third)\n", 40)
    assert ast.dump(ast.parse(split)) == ast.dump(ast.parse("value = compute(first_argument, second_argument, third)"))
    assert max(len(line) for line in split.splitlines()) <= 40


@pytest.mark.parametrize(("name", "text", "limit"), [
    ("pyproject.toml", "[tool.ruff]\nline-length = 120\n[tool.black]\nline-length = 100\n", 120),
    ("pyproject.toml", "[tool.black]\nline-length = 100\n", 100),
    ("pyproject.toml", "[project]\nname = 'x'\n", DEFAULT_LINE_LENGTH),
    ("ruff.toml", "line-length = 99\n", 99),
    ("setup.cfg", "[flake8]\nmax-line-length = 110\n", 110),
    (".flake8", "[flake8]\nmax-line-length = 79\n", 79),
    ("tox.ini", "[tox]\nenvlist = py311\n", DEFAULT_LINE_LENGTH),
])
def test_the_configured_line_length_is_read_from_the_nearest_configuration(tmp_path: Path, name: str, text: str,
                                                                          limit: int) -> None:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / name).write_text(text)
    (root / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 60\n")  # above the root: not read
    assert configured_line_length(root / "src" / "pkg" / "mod.py") == limit
