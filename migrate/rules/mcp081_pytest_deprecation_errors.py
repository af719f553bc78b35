"""MCP081 pytest-deprecation-errors: ``filterwarnings = ["error"]`` turns v2's
``MCPDeprecationWarning`` (logging, sampling, roots, ping...) into failures: add an ignore entry."""

from __future__ import annotations

from mcp_eras.migrate import manifests
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule

IGNORE = "ignore::mcp.MCPDeprecationWarning"


class Rule(ManifestRule):
    META = RuleMeta("MCP081", "pytest-deprecation-errors", Kind.REQUIRED, Safety.REVIEW,
                    '`filterwarnings = ["error"]` turns `MCPDeprecationWarning` into failing tests',
                    "deprecations")
    KINDS = ("manifest",)

    def apply(self, ctx: ManifestContext, text: str) -> str:
        if not ctx.path.endswith("pyproject.toml") or "filterwarnings" not in text:
            return text
        doc = manifests.parse_toml(text)
        options = doc.get("tool", {}).get("pytest", {}).get("ini_options", {})
        filters = options.get("filterwarnings") if isinstance(options, dict) else None
        if not isinstance(filters, list) or "error" not in [str(f).strip() for f in filters]:
            return text
        if any("MCPDeprecationWarning" in str(f) for f in filters):
            return text
        line = manifests.line_of(text, "filterwarnings")
        if ctx.safe_only:
            self.report(ctx, line, f'add "{IGNORE}" to filterwarnings', "manual")
            return text
        filters.append(IGNORE)
        self.report(ctx, line, f'"{IGNORE}" added: v2 deprecations would fail every test under "error"', "review")
        return doc.as_string()
