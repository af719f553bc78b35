"""MCP101 port-own-httpx (optional): port first-party ``httpx`` code to ``httpx2``, as the SDK's own
examples did (python-sdk ``docs/migration.md`` § "httpx and httpx-sse replaced by httpx2": httpx2 keeps
httpx's API under a new import name).

``import httpx [as h]`` -> ``import httpx2 [as h]``, ``from httpx import X`` -> ``from httpx2 import X``,
and every use bound to the unaliased module (``httpx.AsyncClient``, ``except httpx.HTTPError``, lazy
imports inside functions) follows. A second ``import httpx2`` (another rule may have added one) is
dropped. Calls passing ``verify=``/``cert=`` keep a review marker (TLS configuration differs in
httpx2). Not provable, so reported and left alone: a file where an httpx value is handed to another
library (``OpenAI(http_client=httpx.Client())``: that library expects httpx objects), or one that also
uses ``httpx_sse``/``respx``/``pytest_httpx`` (they patch or wrap httpx only).
"""

from __future__ import annotations

import sys

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import drop_repeated_imports
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import RuleTransformer, build_dotted, dotted

HTTPX_ONLY = ("httpx_sse", "respx", "pytest_httpx")  # libraries that work with httpx objects only
TLS_KEYWORDS = frozenset({"verify", "cert"})


def _httpx(name: str) -> bool:
    return name == "httpx" or name.startswith("httpx.")


def _ported(name: str) -> str:
    return "httpx2" + name[len("httpx"):]


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP101",
        "port-own-httpx",
        Kind.OPTIONAL,
        Safety.REVIEW,
        "Port first-party httpx usage to httpx2 (same API), as the SDK's examples did",
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("httpx",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.blocked: str | None = None
        self.ported = False

    # ---------------------------------------------------------------- provability
    def _refers(self, node: cst.CSTNode, bound: set[str]) -> bool:
        return any(isinstance(n, cst.Name) and (n.value in bound or any(_httpx(q) for q in self.qnames(n)))
                   for n in walk(node))

    def _external(self, func: cst.BaseExpression) -> str | None:
        """The third-party callee ``func`` resolves to (not httpx, the SDK, the stdlib or this file's own
        top-level package), if any."""
        own = self.ctx.module.split(".", 1)[0]
        for name in sorted(self.qnames(func)):
            root = name.split(".", 1)[0]
            if root and not root.startswith(".") and root not in ("httpx", "httpx2", "mcp", own) \
                    and root not in sys.stdlib_module_names:
                return name
        return None

    def visit_Module(self, node: cst.Module) -> None:
        code = self.ctx.code
        for other in HTTPX_ONLY:
            if other in code and any(q == other or q.startswith(other + ".") for q in self.ctx.table().modules):
                self.blocked = f"this file also uses {other}, which works with httpx objects only"
                return
        bound: set[str] = set()
        for current in walk(node):
            if isinstance(current, cst.Assign) and self._refers(current.value, bound):
                bound.update(t.target.value for t in current.targets if isinstance(t.target, cst.Name))
            elif isinstance(current, cst.WithItem) and current.asname is not None and isinstance(
                    current.asname.name, cst.Name) and self._refers(current.item, bound):
                bound.add(current.asname.name.value)
        for current in walk(node):
            if isinstance(current, cst.Call) and (callee := self._external(current.func)) is not None:
                if any(self._refers(arg.value, bound) for arg in current.args):
                    self.blocked = f"an httpx object is handed to {callee}, which expects httpx (not httpx2) objects"
                    return

    # ---------------------------------------------------------------- imports
    def _report_import(self, node: cst.CSTNode) -> bool:
        if self.blocked is not None or not self.can_fix:
            self.report(node, f"not ported to httpx2: {self.blocked or '--safe-only'}; keep httpx declared "
                              "(MCP011)", fixed=False)
            return False
        if self.report(node, "httpx -> httpx2 (same API)", fixed=True):
            self.ported = True
            return True
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        if not any(_httpx(dotted(a.name) or "") for a in updated_node.names) or not self._report_import(original_node):
            return updated_node
        names = [a.with_changes(name=build_dotted(_ported(dotted(a.name) or ""))) if _httpx(dotted(a.name) or "") else a
                 for a in updated_node.names]
        return updated_node.with_changes(names=names)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        module = dotted(updated_node.module) or ""
        if updated_node.relative or not _httpx(module) or not self._report_import(original_node):
            return updated_node
        return updated_node.with_changes(module=build_dotted(_ported(module)))

    # ---------------------------------------------------------------- uses
    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if self.blocked is not None or not self.can_fix or updated_node.value != "httpx":
            return updated_node
        parent = self.parent()
        if (isinstance(parent, cst.Attribute) and parent.attr is original_node) or (
                isinstance(parent, cst.Arg) and parent.keyword is original_node):
            return updated_node  # `self.httpx`, `f(httpx=...)`: not the module
        return updated_node.with_changes(value="httpx2") if self.qnames(original_node) == {"httpx"} else updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if self.blocked is None and self.can_fix and any(_httpx(q) for q in self.qnames(original_node.func)):
            used = {a.keyword.value for a in original_node.args if a.keyword} & TLS_KEYWORDS
            if used:
                self.report(original_node, f"{'/'.join(sorted(used))}= on an httpx2 call: httpx2 prefers an "
                                           "ssl.SSLContext for verify=/cert= - check the TLS setup",
                            fixed=True, review=True)
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return drop_repeated_imports(updated_node, "httpx2") if self.ported else updated_node

