"""MCP015 httpx-objects-to-sdk: httpx objects handed to the SDK must be httpx2 objects in v2.

``http_client=httpx.AsyncClient(...)`` and ``auth=httpx.BasicAuth(...)`` built inline in the call to
an SDK transport, and ``httpx.AsyncClient(auth=<OAuthClientProvider>)``, become the same httpx2
objects (same API; ``import httpx2`` added) when every httpx name in them is spelled through the
``httpx`` module. Objects built elsewhere, names imported from httpx and ``httpx_client_factory=``
are reported (the port needs a look at how they are built and used).
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import drop_unused_module
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules.base import CallDetector

SDK_TRANSPORTS = frozenset(
    {
        "mcp.client.sse.sse_client",
        "mcp.client.streamable_http.streamable_http_client",
        "mcp.client.streamable_http.streamablehttp_client",
    }
)
OAUTH = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP015",
        "httpx-objects-to-sdk",
        Kind.REQUIRED,
        Safety.REVIEW,
        "httpx objects handed to the SDK must be httpx2 (`http_client=`, `auth=`, `httpx_client_factory`)",
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("httpx",)
    RECEIVERS = OAUTH

    def _httpx(self, node: cst.BaseExpression) -> bool:
        target = node.func if isinstance(node, cst.Call) else node
        return any(n == "httpx" or n.startswith("httpx.") for n in self.qnames(target))

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.converted = False
        self.handed: set[str] = set()  # names passed to an SDK transport as http_client=

    def _module_aliases(self, node: cst.CSTNode) -> set[str] | None:
        """Local names of the ``httpx`` module used in ``node`` when every httpx reference in it is
        ``<module>.<attr>`` (convertible by renaming the module); None when another spelling occurs."""
        aliases: set[str] = set()
        stack: list[cst.CSTNode] = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Attribute) and isinstance(current.value, cst.Name):
                if self.qnames(current.value) == {"httpx"}:
                    aliases.add(current.value.value)
                    continue
            if isinstance(current, cst.Name) and any(q == "httpx" or q.startswith("httpx.") for q in self.qnames(current)):
                return None  # `from httpx import X` or the bare module used as a value
            stack.extend(current.children)
        return aliases

    def _convert(self, original: cst.BaseExpression, updated: cst.BaseExpression, message: str) -> cst.BaseExpression:
        aliases = self._module_aliases(original)
        if not aliases or not self.can_fix:
            self.report(original, message, fixed=False)
            return updated
        if not self.report(original, "httpx object -> the same httpx2 object (same API)", fixed=True, review=True):
            return updated
        self.converted = True
        return updated.visit(_Rename(aliases))  # type: ignore[return-value]

    def visit_Module(self, node: cst.Module) -> None:
        """The names handed to an SDK transport as ``http_client=``: an httpx client bound to one of
        them (``async with httpx.AsyncClient(...) as client``) is built before the call is seen."""
        outer = self

        class Handed(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                if outer.resolves_to(call.func, SDK_TRANSPORTS):
                    outer.handed.update(a.value.value for a in call.args if a.keyword and a.keyword.value
                                        == "http_client" and isinstance(a.value, cst.Name))

        node.visit(Handed())

    def _bound_to_handed(self) -> bool:
        """The call being left is bound to a name later passed as ``http_client=``."""
        parent = self.parent()
        if isinstance(parent, cst.WithItem) and parent.asname is not None:
            return isinstance(parent.asname.name, cst.Name) and parent.asname.name.value in self.handed
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            return isinstance(target, cst.Name) and target.value in self.handed
        return False

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.handed and self._httpx(original_node.func) and self._bound_to_handed():
            return self._convert(original_node, updated_node, "this client is passed to the SDK as http_client=: "
                                                              "it must be an httpx2.AsyncClient now (same API)")
        if self.resolves_to(original_node.func, SDK_TRANSPORTS):
            args = list(updated_node.args)
            for i, arg in enumerate(original_node.args):
                key = arg.keyword.value if arg.keyword else None
                if key == "httpx_client_factory":
                    self.report(original_node, f"{key}= must be an httpx2 object now (import httpx2; same API)",
                                fixed=False)
                elif key in ("http_client", "auth") and self._httpx(arg.value):
                    args[i] = args[i].with_changes(value=self._convert(
                        arg.value, args[i].value, f"{key}= must be an httpx2 object now (import httpx2; same API)"))
            return updated_node.with_changes(args=args)
        if self._httpx(original_node.func):
            for arg in original_node.args:
                if arg.keyword and arg.keyword.value == "auth" and (
                    (isinstance(arg.value, cst.Call) and self.resolves_to(arg.value.func, OAUTH))
                    or (isinstance(arg.value, cst.Name) and arg.value.value in self.typed)
                ):
                    return self._convert(original_node, updated_node, "OAuthClientProvider is an httpx2.Auth now: "
                                                                      "use httpx2.AsyncClient here")
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.converted:
            return updated_node
        return drop_unused_module(add_imports(updated_node, ["import httpx2\n"]), "httpx")


class _Rename(cst.CSTTransformer):
    """``<httpx alias>.X`` -> ``httpx2.X`` inside one expression."""

    def __init__(self, aliases: set[str]) -> None:
        super().__init__()
        self.aliases = aliases

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if isinstance(updated_node.value, cst.Name) and updated_node.value.value in self.aliases:
            return updated_node.with_changes(value=cst.Name("httpx2"))
        return updated_node
