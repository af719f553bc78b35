"""MCP036 decorator-positional-description: before 1.10, ``@mcp.tool(name, description)`` took the
description second; 1.10 inserted ``title`` there, and v2 keeps that order (v1.10 changelog:
"add title to tools, resources, prompts"). Which one a positional argument meant depends on the
``mcp`` release the project was written for, read from its manifest:

- every 1.x release the requirement admits is older than 1.10: the positional arguments after the
  name are passed by keyword as that release read them (``tool(name, description, annotations)``,
  ``prompt(name, description)``, ``add_tool(fn, name, description, annotations)``);
- every admitted release is 1.10 or newer (or none is: already v2): the call means what v2 reads;
- otherwise (no manifest, or a range across 1.10) the site is reported.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.v1_version import written_for
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS

TITLE_RELEASE = (1, 10, 0)
# the positional parameters after the name, as releases before 1.10 declared them
PRE_1_10 = {"tool": ("description", "annotations"), "prompt": ("description",),
            "add_tool": ("description", "annotations")}


class Rule(CallDetector):
    META = RuleMeta(
        "MCP036",
        "decorator-positional-description",
        Kind.REQUIRED,
        Safety.REVIEW,
        "Pre-1.10 positional `description` in `@mcp.tool(name, description)` now lands in `title`",
    )
    TRIGGERS = (".tool(", ".prompt(", "add_tool(")
    METHODS = frozenset({"tool", "prompt", "add_tool"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = ("the second positional argument is `title` since 1.10 (and in v2), `description` before: pass "
               "description=/title= by keyword (the project's mcp requirement does not say which it meant)")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.era: str | None = None  # "old" (< 1.10), "new", or None (unknown), read once per file

    def _era(self) -> str | None:
        if self.era is None:
            releases = written_for(self.ctx.path)
            if releases is None or (releases and any(r < TITLE_RELEASE for r in releases)
                                    and any(r >= TITLE_RELEASE for r in releases)):
                self.era = "unknown"
            else:
                self.era = "old" if releases and all(r < TITLE_RELEASE for r in releases) else "new"
        return None if self.era == "unknown" else self.era

    def _extra(self, node: cst.Call) -> tuple[str, list[cst.Arg]]:
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        positional = [a for a in node.args if a.keyword is None and not a.star]
        return method, positional[(2 if method == "add_tool" else 1):]

    def is_site(self, node: cst.Call) -> bool:
        return super().is_site(node) and bool(self._extra(node)[1])

    def visit_Call(self, node: cst.Call) -> None:
        if self.is_site(node) and (self._era() is None or not self.can_fix):
            self.report(node, self.MESSAGE, fixed=False)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.is_site(original_node) or self._era() != "old" or not self.can_fix:
            return updated_node
        method, extra = self._extra(original_node)
        names = PRE_1_10.get(method, ())
        if len(extra) > len(names):
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, "written for mcp < 1.10: the positional description is passed as "
                                          "description=", fixed=True):
            return updated_node
        moved = {id(a): names[i] for i, a in enumerate(extra)}
        args = []
        for orig, arg in zip(original_node.args, updated_node.args, strict=True):
            if id(orig) in moved:
                arg = arg.with_changes(keyword=cst.Name(moved[id(orig)]), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
            args.append(arg)
        return updated_node.with_changes(args=args)
