"""MCP039 conflicting-dependency-floors: project pins below the floors mcp 2.3 requires are reported
(never bumped: sse-starlette 2 -> 3 has breaking changes of its own)."""

from __future__ import annotations

import re

from mcp_eras.migrate import manifests
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule

FLOORS = {"anyio": (4, 9), "pydantic": (2, 12), "sse-starlette": (3, 0), "typing-extensions": (4, 13),
          "pywin32": (311, 0)}
CAP_RE = re.compile(r"(<=?|==|~=)\s*v?(\d+)(?:\.(\d+))?")


def blocks(spec: str, floor: tuple[int, int]) -> bool:
    """True when ``spec`` excludes every version at or above ``floor``."""
    for match in CAP_RE.finditer(spec):
        op, version = match.group(1), (int(match.group(2)), int(match.group(3) or 0))
        if op == "<" and version <= floor:
            return True
        if op in ("<=", "==") and version < floor:
            return True
        if op == "~=" and (version[0] < floor[0] or (version[0] == floor[0] and match.group(3) is None)):
            return version < floor
    return False


class Rule(ManifestRule):
    META = RuleMeta("MCP039", "conflicting-dependency-floors", Kind.REQUIRED, Safety.REPORT,
                    "Project pins below v2's floors (anyio<4.9, pydantic<2.12, sse-starlette<3, ...)",
                    "dependency-floors-raised-and-new-required-dependencies")

    def apply(self, ctx: ManifestContext, text: str) -> str:
        name = ctx.path.replace("\\", "/").rsplit("/", 1)[-1]
        for line, req in manifests.requirements_in(ctx.kind, name, text):
            floor = FLOORS.get(manifests.normalize(req.name))
            if floor and blocks(req.spec, floor):
                self.report(ctx, line, f"`{req.name}{req.spec}` conflicts with mcp 2.3's floor "
                                       f"{req.name}>={floor[0]}.{floor[1]}: raise it by hand", "manual")
        return text
