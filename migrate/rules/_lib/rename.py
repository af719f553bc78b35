"""``SymbolRename``: rename symbols and modules by qualified name, imports included."""

from __future__ import annotations

from typing import Any, ClassVar

import libcst as cst

from mcp_eras.migrate.resolve import dotted
from mcp_eras.migrate.rules._lib.context import build_dotted
from mcp_eras.migrate.rules._lib.transformer import RuleTransformer


class SymbolRename(RuleTransformer):
    """Rename symbols and modules by qualified name (longest key wins), alias-aware.

    ``RENAMES`` maps an old qualified name (a symbol ``pkg.mod.Name`` or a module ``pkg.mod``)
    to its new one. Imports are rewritten (split when their names move to different modules);
    uses bound by the import without an alias follow the new name; spelled-out attribute chains
    are rewritten whole; an attribute access through a module alias whose module changes gets a
    marker (the alias would need a second import).
    """

    RENAMES: ClassVar[dict[str, str]] = {}

    def _target(self, qualified: str) -> str | None:
        best = ""
        for key in self.RENAMES:
            if (qualified == key or qualified.startswith(key + ".")) and len(key) > len(best):
                best = key
        return self.RENAMES[best] + qualified[len(best):] if best else None

    @classmethod
    def wants(cls, code: str) -> bool:
        return any(key.rsplit(".", 1)[-1] in code for key in cls.RENAMES)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        names = []
        for alias in updated_node.names:
            old = dotted(alias.name) or ""
            new = self._target(old)
            if new and new != old and self.report(original_node, f"`{old}` -> `{new}`", fixed=True):
                alias = alias.with_changes(name=build_dotted(new))
            names.append(alias)
        return updated_node.with_changes(names=names)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Any:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.ImportFrom):
            return updated_node
        stmt = updated_node.body[0]
        if stmt.relative or isinstance(stmt.names, cst.ImportStar):
            module = dotted(stmt.module) or ""
            new_module = self._target(module) if not stmt.relative else None
            if new_module and new_module != module and self.report(original_node, f"`{module}` -> `{new_module}`",
                                                                    fixed=True):
                return updated_node.with_changes(body=[stmt.with_changes(module=build_dotted(new_module))])
            return updated_node
        module = dotted(stmt.module) or ""
        groups: dict[str, list[cst.ImportAlias]] = {}
        changed = False
        for alias in stmt.names:
            name = dotted(alias.name) or ""
            new = self._target(f"{module}.{name}") or f"{self._target(module) or module}.{name}"
            new_module, new_name = new.rsplit(".", 1)
            if (new_module, new_name) != (module, name):
                if not self.report(original_node, f"`{module}.{name}` -> `{new_module}.{new_name}`", fixed=True):
                    new_module, new_name = module, name
                else:
                    changed = True
            renamed = alias.with_changes(name=cst.Name(new_name), comma=cst.MaybeSentinel.DEFAULT)
            groups.setdefault(new_module, []).append(renamed)
        if not changed:
            return updated_node
        lines = []
        for i, (target, aliases) in enumerate(groups.items()):
            commas = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                      for a in aliases[:-1]] + [aliases[-1]]
            new_stmt = cst.ImportFrom(module=build_dotted(target), names=commas)
            line = cst.SimpleStatementLine(body=[new_stmt], trailing_whitespace=updated_node.trailing_whitespace)
            lines.append(line.with_changes(leading_lines=updated_node.leading_lines) if i == 0 else line)
        return lines[0] if len(lines) == 1 else cst.FlattenSentinel(lines)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        for name in self.qnames(original_node):
            new = self._target(name)
            if new and name.rsplit(".", 1)[-1] == updated_node.value and new.rsplit(".", 1)[-1] != updated_node.value:
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return updated_node.with_changes(value=new.rsplit(".", 1)[-1])
        return updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        for name in self.qnames(original_node):
            new = self._target(name)
            if not new or new == name:
                continue
            if dotted(original_node) == name:
                if isinstance(self.parent(), cst.Attribute) and self._target(name + ".x") is not None:
                    return updated_node  # the outermost spelled-out chain is rewritten whole
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return build_dotted(new)
                return updated_node
            if new.rsplit(".", 1)[0] == name.rsplit(".", 1)[0]:
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return updated_node.with_changes(attr=cst.Name(new.rsplit(".", 1)[-1]))
                return updated_node
            self.report(original_node, f"`{name}` moved to `{new}`: import it from there", fixed=False)
        return updated_node
