"""Shared base of MCP011/MCP027: a first-party import that only worked because mcp v1 installed it.

When the project's Python code imports one of ``MODULES`` and a manifest that requires ``mcp``
does not declare ``PACKAGE``, the requirement is added next to ``mcp`` (PEP 621 dependencies,
requirements files); other manifest kinds get a report entry.
"""

from __future__ import annotations

from typing import ClassVar

from mcp_eras.migrate import manifests
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule


class UndeclaredDependency(ManifestRule):
    MODULES: ClassVar[frozenset[str]] = frozenset()
    PACKAGE: ClassVar[str] = ""
    SPEC: ClassVar[str] = ""

    def apply(self, ctx: ManifestContext, text: str) -> str:
        if not ctx.project_imports & self.MODULES:
            return text
        name = ctx.path.replace("\\", "/").rsplit("/", 1)[-1]
        declared = manifests.requirements_in(ctx.kind, name, text)
        names = {manifests.normalize(r.name) for _, r in declared}
        if "mcp" not in names or manifests.normalize(self.PACKAGE) in names:
            return text
        line = next(n for n, r in declared if manifests.normalize(r.name) == "mcp")
        requirement = f"{self.PACKAGE}{self.SPEC}"
        message = f"the project imports {'/'.join(sorted(ctx.project_imports & self.MODULES))} but only mcp v1 " \
                  f"installed it: declare `{requirement}`"
        if ctx.safe_only:
            self.report(ctx, line, message, "manual")
            return text
        if ctx.kind == "requirements":
            lines = text.splitlines(keepends=True)
            newline = "\r\n" if lines[line - 1].endswith("\r\n") else "\n"
            if not lines[line - 1].endswith(("\n", "\r")):
                lines[line - 1] += newline
            lines.insert(line, requirement + newline)
            self.report(ctx, line, message + " (added)", "review")
            return "".join(lines)
        if name == "pyproject.toml":
            doc = manifests.parse_toml(text)
            deps = doc.get("project", {}).get("dependencies")
            if deps is not None and any(
                (r := manifests.parse_requirement(str(item))) and manifests.normalize(r.name) == "mcp" for item in deps
            ):
                deps.append(requirement)
                self.report(ctx, line, message + " (added)", "review")
                return doc.as_string()
        self.report(ctx, line, message, "manual")
        return text
