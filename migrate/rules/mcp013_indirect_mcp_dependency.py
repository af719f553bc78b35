"""MCP013 indirect-mcp-dependency: ``mcp`` arrives only through another package (standalone
``fastmcp``, ``langchain-mcp-adapters``, ``mcp-use``), which may cap ``mcp<2``: reported."""

from __future__ import annotations

from mcp_eras.migrate import manifests
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule

CARRIERS = frozenset({"fastmcp", "langchain-mcp-adapters", "mcp-use", "mcp-agent", "pydantic-ai-slim"})


class Rule(ManifestRule):
    META = RuleMeta("MCP013", "indirect-mcp-dependency", Kind.REQUIRED, Safety.REPORT,
                    "`mcp` arrives only transitively and that package may cap `mcp<2`")

    def apply(self, ctx: ManifestContext, text: str) -> str:
        name = ctx.path.replace("\\", "/").rsplit("/", 1)[-1]
        declared = manifests.requirements_in(ctx.kind, name, text)
        names = {manifests.normalize(r.name) for _, r in declared}
        if "mcp" in names or "mcp" not in ctx.project_imports:
            return text
        for line, req in declared:
            if manifests.normalize(req.name) in CARRIERS:
                self.report(ctx, line, f"`mcp` only arrives through `{req.name}`: check the mcp range it allows "
                                       "and declare `mcp>=2.3,<3` directly", "manual")
        return text
