"""Robustness: every statement type of Python 3.10-3.13 is walked; a failure skips one file only."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest
from migrate_helpers import dedent, migrate_source

from mcp_eras.migrate import engine
from mcp_eras.migrate.cli import main
from mcp_eras.migrate.compat import compiles, lowered
from mcp_eras.migrate.index import ProjectIndex, index_file
from mcp_eras.migrate.resolve import ImportTable

EVERY_STATEMENT = dedent(
    """\
    import functools
    from mcp.server.fastmcp import Context, FastMCP

    mcp = FastMCP("all", stateless_http=True)

    type Alias = list[int]
    type Pair[K, V = int] = tuple[K, V]


    def first[T](xs: list[T]) -> T:
        return xs[0]


    class Box[T: (int, str), *Ts, **P]:
        item: T


    registry = {"hook": [lambda f: f]}


    @functools.lru_cache(maxsize=None)
    @registry["hook"][0]
    @(lambda f: f)
    @mcp.tool()
    async def route(cmd: str, ctx: Context) -> str:
        match cmd.split():
            case ["go", direction]:
                return direction
            case [x, *rest] if (y := x):
                return y + str(rest)
            case {"k": v, **others}:
                return str(v) + str(others)
            case str() as whole:
                return whole
            case _:
                pass
        try:
            pass
        except* ValueError as group:
            print(group)
        values = [z for v in [1, 2] if (z := v)]
        return str(values)


    if __name__ == "__main__":
        mcp.run(transport="streamable-http")
    """
)


def test_every_statement_type_is_migrated_and_idempotent() -> None:
    once, findings = migrate_source(EVERY_STATEMENT, path="allstmts.py")
    assert "from mcp.server.mcpserver import Context, MCPServer" in once
    assert 'mcp = MCPServer("all")' in once
    assert 'mcp.run(transport="streamable-http", stateless_http=True)' in once
    assert "type Pair[K, V = int] = tuple[K, V]" in once and "case {\"k\": v, **others}:" in once
    assert "except* ValueError as group:" in once
    assert compiles(once, "allstmts.py") is None
    twice, _ = migrate_source(once, path="allstmts.py")
    assert twice == once
    assert {f.rule for f in findings} >= {"MCP001", "MCP003"}


def test_import_table_binds_names_of_every_statement_type() -> None:
    table = ImportTable(cst.parse_module(EVERY_STATEMENT), EVERY_STATEMENT)
    assert {"Alias", "Pair", "K", "V", "T", "Ts", "P", "first", "Box", "route", "direction", "x", "rest", "y",
            "v", "others", "whole", "group", "z", "f", "values"} <= table.local
    assert table.imports["FastMCP"] == {"mcp.server.fastmcp.FastMCP"}


def test_a_bound_walrus_or_case_capture_makes_the_table_ambiguous() -> None:
    for code in ("import mcp\nif (mcp := 1):\n    pass\n", "import mcp\nmatch 1:\n    case mcp:\n        pass\n"):
        assert ImportTable(cst.parse_module(code), code).ambiguous


def test_the_index_reads_a_module_with_newer_syntax(tmp_path: Path) -> None:
    path = tmp_path / "allstmts.py"
    index = ProjectIndex()
    index_file(index, path, EVERY_STATEMENT)
    (ctor,) = index.servers.values()
    assert ctor.kwargs == {"stateless_http": "True"}
    assert [s.transport for s in index.sites_for(ctor)] == ["streamable-http"]


def test_the_compile_check_is_version_aware() -> None:
    if sys.version_info < (3, 12):
        with pytest.raises(SyntaxError):
            compile("type X = int\n", "x.py", "exec")
        assert lowered("type X[T] = list[T]\ndef f[T](x: T) -> T:\n    return x\n") == (
            "X = list[T]\ndef f(x: T) -> T:\n    return x\n"
        )
    assert compiles("type X = int\nclass C[T]:\n    pass\n", "x.py") is None
    assert compiles("type X = int\nreturn 1\n", "x.py") is not None  # a real error is still found
    assert compiles("def f(:\n", "x.py") is not None


def _project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (root / "pkg" / f"{name}.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")
    return root


def test_an_index_failure_skips_only_that_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    real = engine.index_file

    def flaky(index: ProjectIndex, path: Path, code: str) -> None:
        if path.name == "a.py":
            raise RecursionError("maximum recursion depth exceeded")
        real(index, path, code)

    monkeypatch.setattr(engine, "index_file", flaky)
    with pytest.raises(SystemExit) as exit_info:
        main([str(root), "--allow-no-vcs"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 1
    assert f"skipped {root / 'pkg' / 'a.py'}: project index failed: RecursionError" in out
    assert "FastMCP" in (root / "pkg" / "a.py").read_text()
    assert "MCPServer" in (root / "pkg" / "b.py").read_text()
    assert "MCPServer" in (root / "pkg" / "c.py").read_text()


def test_a_resolver_or_transform_failure_skips_only_that_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    (root / "pkg" / "b.py").write_text("from mcp.server.fastmcp import FastMCP\nBROKEN = 1\nmcp = FastMCP('x')\n")
    real = ImportTable.__init__

    def broken(self: ImportTable, module: cst.Module, code: str | None = None, *args: object) -> None:
        if code and "BROKEN" in code:
            raise AttributeError("'Match' object has no attribute 'body'")
        real(self, module, code, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ImportTable, "__init__", broken)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(root)])
    out = capsys.readouterr().out
    assert exit_info.value.code == 1
    assert (f"skipped {root / 'pkg' / 'b.py'}: transform failed: AttributeError: 'Match' object has no "
            "attribute 'body'") in out
    assert out.count("MCP001") >= 2  # a.py and c.py are still reported


def test_imports_inside_every_kind_of_block_are_recorded() -> None:
    code = dedent(
        """\
        try:
            import a
        except* ValueError:
            import b
        else:
            import c
        finally:
            import d
        match x:
            case 1:
                import e
        while x:
            import f
        else:
            import g
        with x: import h
        """
    )
    assert set(ImportTable(cst.parse_module(code), code).imports) == set("abcdefgh")
