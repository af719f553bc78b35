"""Ground truth for mcp-migrate: the SDK's own hand-ported examples.

The python-sdk repository ported its ``examples/`` from v1 to v2 by hand. Each example that exists
at the v1 tag and on the pinned ``main`` commit (``examples/fastmcp`` became ``examples/mcpserver``,
``fastmcp_quickstart.py`` became ``mcpserver_quickstart.py``) is a pair. The v1 side is migrated as
one project (so cross-module rules see each other), then compared with the hand port by AST after
normalising: docstrings dropped, top-level imports sorted, names inside one ``from`` import sorted,
comments and formatting ignored (the AST has none). Printed: the share of pairs that match, overall
and per kind of change (each rule that fired on the v1 file; ``no-rule`` when none did), and the
pairs that differ. Nothing of the SDK is stored in this repository: the checkout is read with git.

    .venv/bin/python bench/migrate_groundtruth.py PATH-TO-python-sdk-CHECKOUT [--select ALL] [--json] [--diff]

``--diff`` prints, for each pair that differs, the unified diff of the two normalised programs: what
the catalogue did not explain.

A missing checkout or missing commit is reported and skipped (exit 0), since CI cannot reach GitHub.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

V1_REF = "98b7159cb89274964055d2c016e3360a551280d0"  # tag v1.29.0
MAIN_REF = "57394b0548d1e2dc2dce8d67d84985769df3b8bb"  # main, the commit the rule catalogue cites
MIGRATED = (".py", ".toml", ".cfg", ".txt")
RENAMES = (("examples/fastmcp/", "examples/mcpserver/"),
           ("examples/snippets/servers/fastmcp_quickstart.py", "examples/snippets/servers/mcpserver_quickstart.py"))

# Pairs whose hand port differs in ways the rule catalogue does not explain (reviewed by reading
# ``--diff --select ALL`` at the pinned commits), so that no codemod output can match them. The rest
# is the target: every pair whose difference the catalogue explains.
_ADAPTER = "MCP007 keeps v1 handlers behind its adapter (guard G8); the hand port rewrote them to (ctx, params)"
_EDITS = "hand edits no rule explains"
OUT_OF_TARGET = {
    **{f"examples/{p}": _ADAPTER for p in (
        "servers/everything-server/mcp_everything_server/server.py",
        "servers/simple-pagination/mcp_simple_pagination/server.py",
        "servers/simple-prompt/mcp_simple_prompt/server.py",
        "servers/simple-resource/mcp_simple_resource/server.py",
        "servers/simple-streamablehttp-stateless/mcp_simple_streamablehttp_stateless/server.py",
        "servers/simple-streamablehttp/mcp_simple_streamablehttp/server.py",
        "servers/simple-tool/mcp_simple_tool/server.py",
        "servers/sse-polling-demo/mcp_sse_polling_demo/server.py",
        "servers/structured-output-lowlevel/mcp_structured_output_lowlevel/__main__.py",
        "snippets/servers/lowlevel/basic.py", "snippets/servers/lowlevel/direct_call_tool_result.py",
        "snippets/servers/lowlevel/lifespan.py", "snippets/servers/lowlevel/structured_output.py",
        "snippets/servers/pagination_example.py")},
    "examples/fastmcp/unicode_example.py": "MCP026 keeps v1's server name 'FastMCP'; the hand port took v2's default",
    "examples/fastmcp/weather_structured.py": "MCP023 keeps v1's in-memory session (mode='legacy'); the hand port "
                                               "used Client(mcp)",
    "examples/fastmcp/memory.py": "dependencies= kept (guard G5); the hand port dropped it and renamed a folder",
    "examples/fastmcp/screenshot.py": "dependencies= kept (guard G5); the hand port dropped it",
    "examples/clients/simple-auth-client/mcp_simple_auth_client/main.py": _EDITS + ": annotations, iss plumbing",
    "examples/clients/simple-chatbot/mcp_simple_chatbot/main.py": _EDITS + ": annotations, open(encoding=), "
                                                                           "RequestError broadened to HTTPError",
    "examples/clients/sse-polling-client/mcp_sse_polling_client/main.py": _EDITS + ": an unused logger removed",
    "examples/servers/simple-auth/mcp_simple_auth/simple_auth_provider.py": _EDITS + ": an unused logger removed",
    "examples/servers/simple-auth/mcp_simple_auth/legacy_as_server.py": _EDITS + ": settings kept on the server, "
                                                                                "import from mcpserver.server",
    "examples/servers/simple-auth/mcp_simple_auth/server.py": _EDITS + ": settings kept on the server, import "
                                                                      "from mcpserver.server",
    "examples/snippets/clients/display_utilities.py": _EDITS + ": the renamed quickstart example in a string",
    "examples/snippets/clients/stdio_client.py": _EDITS + ": the renamed quickstart example in a string; "
                                                          "`import mcp.types as types` (guard G5)",
    "examples/snippets/servers/__init__.py": _EDITS + ": the renamed quickstart example in a string",
    "examples/snippets/clients/parsing_tool_results.py": "`from mcp import types` -> `import mcp.types as types` "
                                                         "(guard G5 leaves mcp.types imports)",
    "examples/snippets/clients/url_elicitation_client.py": _EDITS + ": logger removed; the hand port keeps "
                                                                   "e.error.* and a camelCase getattr",
}


@dataclass
class Outcome:
    pairs: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    kinds: dict[str, list[str]] = field(default_factory=dict)  # rule (or "no-rule") -> pairs it fired on
    skipped: str | None = None
    diffs: dict[str, str] = field(default_factory=dict)  # pair -> normalised diff, for pairs that differ
    out_of_target: dict[str, str] = field(default_factory=dict)  # pair -> why no rule output can match it

    def to_json(self) -> dict[str, object]:
        per_kind = {kind: {"pairs": len(paths), "matched": sum(p in self.matched for p in paths)}
                    for kind, paths in sorted(self.kinds.items())}
        target = [p for p in self.pairs if p not in self.out_of_target]
        return {"pairs": len(self.pairs), "matched": len(self.matched), "per_kind": per_kind,
                "differ": sorted(set(self.pairs) - set(self.matched)), "skipped": self.skipped,
                "target": {"pairs": len(target), "matched": sum(p in self.matched for p in target),
                           "differ": sorted(set(target) - set(self.matched))},
                "out_of_target": {p: r for p, r in sorted(self.out_of_target.items()) if p in self.pairs}}


def git(checkout: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise LookupError(proc.stderr.strip() or f"git {' '.join(args)} failed")
    return proc.stdout


def ported_path(path: str) -> str:
    for old, new in RENAMES:
        if path.startswith(old):
            return new + path[len(old):]
    return path


def normal_tree(code: str) -> ast.Module:
    """The module without docstrings, with top-level imports in one sorted block first."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                node.body = body[1:] or [ast.Pass()]
        if isinstance(node, ast.ImportFrom | ast.Import):
            node.names.sort(key=lambda a: (a.name, a.asname or ""))
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    rest = [n for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)]
    imports.sort(key=ast.dump)
    tree.body = imports + rest
    return tree


def normalise(code: str) -> str:
    return ast.dump(normal_tree(code), include_attributes=False)


def normal_diff(migrated: str, ported: str, name: str) -> str:
    """A unified diff of the two normalised programs (``ast.unparse``): what the catalogue missed."""
    try:
        left, right = ast.unparse(normal_tree(migrated)) + "\n", ast.unparse(normal_tree(ported)) + "\n"
    except SyntaxError as exc:
        return f"--- {name}: does not parse: {exc}\n"
    return "".join(difflib.unified_diff(left.splitlines(keepends=True), right.splitlines(keepends=True),
                                        f"migrated/{name}", f"hand-port/{name}"))


def same(left: str, right: str) -> bool:
    try:
        return normalise(left) == normalise(right)
    except SyntaxError:
        return False


def migrate_tree(root: Path, select: list[str] | None = None) -> dict[str, tuple[str, set[str]]]:
    """Relative path -> (migrated text, rules that fired), for every Python file under ``root``."""
    from mcp_eras.migrate import engine
    from mcp_eras.migrate.discover import discover
    from mcp_eras.migrate.rules import select_rules

    found = discover([root], [])
    options = engine.Options(tuple(select_rules(select)), markers="none")
    out: dict[str, tuple[str, set[str]]] = {}
    for result in engine.run(found.files, options, jobs=1):
        if result.kind != "python":
            continue
        rel = Path(result.path).resolve().relative_to(root.resolve()).as_posix()
        text = result.new_text if result.changed and result.new_text is not None else Path(result.path).read_text(
            encoding="utf-8")
        rules = {f.rule for f in result.findings if f.status in ("fixed", "review", "manual")}
        out[rel] = (text, rules)
    return out


def measure(checkout: Path, v1_ref: str = V1_REF, main_ref: str = MAIN_REF, select: list[str] | None = None,
            out_of_target: dict[str, str] | None = None) -> Outcome:
    outcome = Outcome(out_of_target=dict(OUT_OF_TARGET if out_of_target is None else out_of_target))
    try:
        v1_tree = [p for p in git(checkout, "ls-tree", "-r", "--name-only", v1_ref, "examples").split()
                   if p.endswith(MIGRATED)]  # manifests too: rules look for them
        v1_files = [p for p in v1_tree if p.endswith(".py")]
        main_files = set(git(checkout, "ls-tree", "-r", "--name-only", main_ref, "examples").split())
    except (LookupError, OSError) as exc:
        outcome.skipped = f"{checkout}: {exc}"
        return outcome
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for path in v1_tree:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(git(checkout, "show", f"{v1_ref}:{path}"), encoding="utf-8")
        migrated = migrate_tree(root, select)
    for path in v1_files:
        ported = ported_path(path)
        if ported not in main_files or path not in migrated:
            continue
        outcome.pairs.append(path)
        text, rules = migrated[path]
        for kind in sorted(rules) or ["no-rule"]:
            outcome.kinds.setdefault(kind, []).append(path)
        port = git(checkout, "show", f"{main_ref}:{ported}")
        if same(text, port):
            outcome.matched.append(path)
        else:
            outcome.diffs[path] = normal_diff(text, port, path)
    return outcome


def render(outcome: Outcome) -> str:
    if outcome.skipped:
        return f"skipped: {outcome.skipped}\n"
    data = outcome.to_json()
    target = data["target"]
    lines = [f"{data['matched']} of {data['pairs']} pairs match the hand port by AST "
             f"({100 * len(outcome.matched) / max(len(outcome.pairs), 1):.0f}%)",
             f"target (the difference is one the catalogue explains): {target['matched']} of "  # type: ignore[index]
             f"{target['pairs']} match", "per kind of change:"]  # type: ignore[index]
    counts = Counter({k: len(v) for k, v in outcome.kinds.items()})
    for kind, _ in sorted(counts.items()):
        row = data["per_kind"][kind]  # type: ignore[index]
        lines.append(f"  {kind:8} {row['matched']:>3}/{row['pairs']:<3}")
    lines.append("differ, in target:")
    lines.extend(f"  {p}" for p in target["differ"])  # type: ignore[index]
    lines.append("differ, out of target:")
    lines.extend(f"  {p}: {why}" for p, why in data["out_of_target"].items()  # type: ignore[union-attr]
                 if p not in outcome.matched)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a python-sdk git checkout (bare or not) holding both commits")
    parser.add_argument("--v1-ref", default=V1_REF)
    parser.add_argument("--main-ref", default=MAIN_REF)
    parser.add_argument("--select", action="append", help="rules as for mcp-migrate --select (default: the "
                                                             "default rules; ALL adds the optional ones)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--diff", action="store_true", help="also print the normalised diff of each pair that differs")
    args = parser.parse_args(argv)
    outcome = measure(args.checkout, args.v1_ref, args.main_ref, args.select)
    sys.stdout.write(json.dumps(outcome.to_json(), indent=2) + "\n" if args.json else render(outcome))
    if args.diff:
        sys.stdout.write("".join(outcome.diffs[p] for p in sorted(outcome.diffs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
