"""Package consistency: a module that mixes ``mcp.server.fastmcp`` with the standalone ``fastmcp``
package is left as it is (guard G1), but its siblings are migrated; when they import it, the package
would mix SDK majors and break under both. This names those siblings on the skipped file and lets
``fix --strict`` refuse such a write."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from mcp_eras.migrate.engine import decode
from mcp_eras.migrate.index import absolute_module, module_name
from mcp_eras.migrate.model import FileResult, Finding


def _imported(path: str, module: str) -> set[str]:
    """Every module ``path`` imports (relative imports made absolute; ``from a import b`` gives ``a.b`` too)."""
    try:
        tree = ast.parse(decode(Path(path).read_bytes()).text)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
        return set()
    found: set[str] = set()
    package = path.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(module, package, node.level, node.module)
            found.add(base)
            found.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
    return found


def _mixed(path: str) -> bool:
    """The file imports the SDK's v1 server package besides the standalone ``fastmcp``."""
    return any(m == "mcp.server.fastmcp" or m.startswith("mcp.server.fastmcp.") or m == "mcp.server"
               for m in _imported(path, ""))


def half_migrated(results: list[FileResult]) -> dict[str, list[str]]:
    """Skipped mixed modules -> the changed modules of the run that import them (relative paths)."""
    skipped = [r for r in results if r.kind == "python" and not r.changed
               and any(f.rule == "G1" for f in r.findings) and _mixed(r.path)]
    if not skipped:
        return {}
    changed = [r for r in results if r.kind == "python" and r.changed]
    imports = {r.path: _imported(r.path, module_name(Path(r.path).absolute())) for r in changed}
    found: dict[str, list[str]] = {}
    for result in skipped:
        name = module_name(Path(result.path).absolute())
        users = sorted(os.path.relpath(p) for p, names in imports.items() if name in names)
        if users:
            found[result.path] = users
            result.findings.append(Finding(
                "G1", "G1", result.path, 1, 1,
                f"left as it is, but the migrated module(s) {', '.join(users)} import it: the package would mix "
                "SDK majors and fail under both; port this file by hand (`fix --strict` refuses such a write)",
                "manual", "report-only"))
    return found
