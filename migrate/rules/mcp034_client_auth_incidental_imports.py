"""MCP034 client-auth-incidental-imports: names that ``mcp.client.auth`` only re-exported by accident are gone.

``from mcp.client.auth import OAuthClientProvider, httpx, urljoin`` is split: the SDK names stay, the
modules and functions are imported from their real homes (``import httpx``, ``from urllib.parse
import urljoin``). ``logger`` has no such home and keeps a marker; ``MCP_PROTOCOL_VERSION`` is
MCP033's (it has a v2 home), marked here only when MCP033 is not selected.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector, dotted

AUTH_MODULES = frozenset({"mcp.client.auth", "mcp.client.auth.oauth2"})
MODULE_HOMES = frozenset({"anyio", "base64", "hashlib", "httpx", "logging", "secrets", "string", "time"})
NAME_HOMES = {"urljoin": "urllib.parse", "urlparse": "urllib.parse"}


class Rule(Detector):
    META = RuleMeta(
        "MCP034",
        "client-auth-incidental-imports",
        Kind.REQUIRED,
        Safety.SAFE,
        "Names imported from `mcp.client.auth` that were only incidental re-exports (`httpx`, `logger`, `urljoin`, ...)",
        "unchanged-auth-surfaces",
    )
    TRIGGERS = ("mcp.client.auth",)
    NAMES = frozenset(
        {
            "mcp.client.auth.MCP_PROTOCOL_VERSION",
            "mcp.client.auth.anyio",
            "mcp.client.auth.base64",
            "mcp.client.auth.hashlib",
            "mcp.client.auth.httpx",
            "mcp.client.auth.logger",
            "mcp.client.auth.logging",
            "mcp.client.auth.oauth2.MCP_PROTOCOL_VERSION",
            "mcp.client.auth.oauth2.anyio",
            "mcp.client.auth.oauth2.base64",
            "mcp.client.auth.oauth2.hashlib",
            "mcp.client.auth.oauth2.httpx",
            "mcp.client.auth.oauth2.logger",
            "mcp.client.auth.oauth2.logging",
            "mcp.client.auth.oauth2.secrets",
            "mcp.client.auth.oauth2.string",
            "mcp.client.auth.oauth2.time",
            "mcp.client.auth.oauth2.urljoin",
            "mcp.client.auth.oauth2.urlparse",
            "mcp.client.auth.secrets",
            "mcp.client.auth.string",
            "mcp.client.auth.time",
            "mcp.client.auth.urljoin",
            "mcp.client.auth.urlparse",
        }
    )
    MESSAGE = "this name was only an incidental re-export of mcp.client.auth: import it from its real home"
    SAFETY_NOTE = "imported from its real home instead of mcp.client.auth (an incidental re-export, gone in v2)"

    @staticmethod
    def _movable(alias: cst.ImportAlias) -> bool:
        name = dotted(alias.name) or ""
        return name in MODULE_HOMES or name in NAME_HOMES

    def _auth_import(self, node: cst.ImportFrom) -> bool:
        return (not node.relative and not isinstance(node.names, cst.ImportStar)
                and dotted(node.module) in AUTH_MODULES)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not self._auth_import(node) or not self.can_fix:
            return super().visit_ImportFrom(node)
        assert not isinstance(node.names, cst.ImportStar)
        module = dotted(node.module)
        renamed = "MCP033" in self.ctx.selected  # MCP_PROTOCOL_VERSION has a v2 home: MCP033 moves it there
        if any(f"{module}.{dotted(a.name)}" in self.NAMES and not self._movable(a)
               and not (renamed and dotted(a.name) == "MCP_PROTOCOL_VERSION") for a in node.names):
            self.report(node, self.MESSAGE, fixed=False)
        return False

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.FlattenSentinel:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.ImportFrom):
            return updated_node
        node = updated_node.body[0]
        if not self._auth_import(node) or not self.can_fix or isinstance(node.names, cst.ImportStar):
            return updated_node
        moved = [a for a in node.names if self._movable(a)]
        if not moved or not self.report(original_node, self.SAFETY_NOTE, fixed=True):
            return updated_node
        lines: list[cst.SimpleStatementLine] = []
        kept = [a for a in node.names if not self._movable(a)]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            lines.append(updated_node.with_changes(body=[node.with_changes(names=kept)]))
        for alias in moved:
            name = dotted(alias.name) or ""
            alias = alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            stmt: cst.BaseSmallStatement = (cst.Import(names=[alias]) if name in MODULE_HOMES else
                                            cst.ImportFrom(module=cst.parse_expression(NAME_HOMES[name]),  # type: ignore[arg-type]
                                                           names=[alias]))
            lines.append(cst.SimpleStatementLine(body=[stmt]))
        lines[0] = lines[0].with_changes(leading_lines=updated_node.leading_lines)
        return lines[0] if len(lines) == 1 else cst.FlattenSentinel(lines)
