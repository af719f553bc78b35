"""MCP001 fastmcp-renamed: ``mcp.server.fastmcp``/``FastMCP`` -> ``mcp.server.mcpserver``/``MCPServer``."""

from __future__ import annotations

import re

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer, build_dotted, dotted
from mcp_eras.migrate.rules.sdk import V1_PKG, V2_PKG

OLD_CLASS = frozenset({f"{V1_PKG}.FastMCP", f"{V1_PKG}.server.FastMCP", "mcp.server.FastMCP"})
PUBLIC_FROM_SERVER = frozenset({"FastMCP", "Context"})
DOTTED_STRING = re.compile(r"^mcp\.server\.fastmcp(\.[A-Za-z_]\w*)*$")


def new_module(module: str) -> str:
    return V2_PKG + module[len(V1_PKG):]


def new_qualname(name: str) -> str:
    if name == "mcp.server.FastMCP":
        return f"{V2_PKG}.MCPServer"
    out = new_module(name) if name.startswith(V1_PKG) else name
    return re.sub(r"\bFastMCP\b", "MCPServer", out)


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP001", "fastmcp-renamed", Kind.REQUIRED, Safety.SAFE,
        "`mcp.server.fastmcp`/`FastMCP` -> `mcp.server.mcpserver`/`MCPServer`", "fastmcp-renamed-to-mcpserver",
    )
    TRIGGERS = ("fastmcp", "FastMCP")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._star = False
        self._split: cst.ImportFrom | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self._star = f"from {V1_PKG} import *" in self.ctx.code

    # ------------------------------------------------------------------ imports
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        names = []
        touched = False
        for alias in updated_node.names:
            name = dotted(alias.name) or ""
            if name == V1_PKG or name.startswith(V1_PKG + "."):
                touched = True
                alias = alias.with_changes(name=build_dotted(new_module(name)))
            names.append(alias)
        if touched and self.report(original_node, "import of the renamed module", fixed=True):
            return updated_node.with_changes(names=names)
        return updated_node

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if updated_node.relative:
            return updated_node
        module = dotted(updated_node.module) or ""
        star = isinstance(updated_node.names, cst.ImportStar)
        if module == "mcp.server" and not star:
            return self._from_mcp_server(original_node, updated_node)
        if not (module == V1_PKG or module.startswith(V1_PKG + ".")):
            return updated_node
        if not self.report(original_node, f"`{module}` -> `{new_module(module)}`", fixed=True):
            return updated_node
        target = new_module(module)
        if star:
            return updated_node.with_changes(module=build_dotted(target))
        aliases = list(updated_node.names)  # type: ignore[arg-type]
        imported = {dotted(a.name) for a in aliases}
        if module == f"{V1_PKG}.server" and imported <= PUBLIC_FROM_SERVER:
            target = V2_PKG  # public home of the re-exported names
        renamed = [self._rename_alias(a) for a in aliases]
        return updated_node.with_changes(module=build_dotted(target), names=renamed)

    @staticmethod
    def _rename_alias(alias: cst.ImportAlias) -> cst.ImportAlias:
        if dotted(alias.name) == "FastMCP":
            return alias.with_changes(name=cst.Name("MCPServer"))
        return alias

    def _from_mcp_server(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        aliases = list(updated.names)  # type: ignore[arg-type]
        ours = [a for a in aliases if dotted(a.name) == "FastMCP"]
        if not ours or not self.report(original, "`from mcp.server import FastMCP` -> `mcp.server.mcpserver`",
                                       fixed=True):
            return updated
        moved = [self._rename_alias(a).with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in ours]
        if len(ours) == len(aliases):
            return updated.with_changes(module=build_dotted(V2_PKG), names=moved)
        rest = [a for a in aliases if dotted(a.name) != "FastMCP"]
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self._split = cst.ImportFrom(module=build_dotted(V2_PKG), names=moved)
        return updated.with_changes(names=rest)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        if self._split is None:
            return updated_node
        extra = cst.SimpleStatementLine(body=[self._split])
        self._split = None
        return cst.FlattenSentinel([updated_node, extra])

    # ------------------------------------------------------------------ uses
    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if updated_node.value != "FastMCP":
            return updated_node
        names = self.qnames(original_node)
        if names & OLD_CLASS or (self._star and not self.bound(original_node)):
            if self.report(original_node, "`FastMCP` -> `MCPServer`", fixed=True):
                return updated_node.with_changes(value="MCPServer")
        return updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        names = [n for n in self.qnames(original_node) if n.startswith(V1_PKG) or n in OLD_CLASS]
        if not names:
            return updated_node
        text = dotted(original_node)
        name = names[0]
        if text == name:
            if isinstance(self.parent(), cst.Attribute):
                return updated_node  # the outermost chain rewrites the whole spelling
            if self.report(original_node, f"`{name}` -> `{new_qualname(name)}`", fixed=True):
                return build_dotted(new_qualname(name))
            return updated_node
        if updated_node.attr.value == "FastMCP" and self.report(original_node, "`FastMCP` -> `MCPServer`", fixed=True):
            return updated_node.with_changes(attr=cst.Name("MCPServer"))
        return updated_node

    # ------------------------------------------------------------------ dotted strings
    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        value = updated_node.evaluated_value
        if not isinstance(value, str) or not DOTTED_STRING.match(value):
            return updated_node
        if not self.report(original_node, "dotted string names the renamed module; check the new target",
                           fixed=True, review=True):
            return updated_node
        quote = updated_node.quote
        return updated_node.with_changes(value=f"{updated_node.prefix}{quote}{new_qualname(value)}{quote}")
