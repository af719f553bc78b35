"""MCP002 mcp-dependency-pin: rewrite the ``mcp`` requirement to ``>=2.3,<3`` in every manifest.

Only the version specifier changes (name spelling, extras, markers, comments and layout stay);
the removed ``ws`` extra is dropped. Lockfiles are reported (regenerate them), never edited. A
manifest that does not parse is reported and left untouched (guard G9).
"""

from __future__ import annotations

import configparser
import io

from mcp_eras.migrate import manifests
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule

ANCHOR = "dependency-floors-raised-and-new-required-dependencies"


class Rule(ManifestRule):
    META = RuleMeta("MCP002", "mcp-dependency-pin", Kind.REQUIRED, Safety.REVIEW,
                    "Rewrite the `mcp` requirement to the v2 range (>=2.3,<3) in every manifest", ANCHOR)
    KINDS = ("manifest", "requirements", "lockfile")

    def _edit(self, ctx: ManifestContext, text: str, where: str) -> str | None:
        result = manifests.bump_requirement(text)
        if result is None:
            return None
        new, dropped = result
        if not ctx.safe_only:
            note = "; removed extra `ws` dropped (the WebSocket transport is gone, MCP074)" if dropped else ""
            self.report(ctx, manifests.line_of(where, text), f"`{text.strip()}` -> `{new.strip()}`{note}", "review")
            return new
        self.report(ctx, manifests.line_of(where, text), f"raise the `mcp` requirement to {manifests.TARGET}",
                    "manual")
        return None

    def apply(self, ctx: ManifestContext, text: str) -> str:
        name = ctx.path.replace("\\", "/").rsplit("/", 1)[-1]
        if ctx.kind == "lockfile":
            if "mcp" in text:
                self.report(ctx, 1, "lockfile pins the v1 SDK: regenerate it after the manifest edit", "manual")
            return text
        if ctx.kind == "requirements":
            lines = text.splitlines(keepends=True)
            for number, body in manifests.requirement_lines(text):
                new = self._edit(ctx, body, text)
                if new is not None:
                    lines[number - 1] = lines[number - 1].replace(body, new, 1)
            return "".join(lines)
        if name == "pyproject.toml":
            return self._pyproject(ctx, text)
        if name == "setup.cfg":
            return self._setup_cfg(ctx, text)
        return text

    def _pyproject(self, ctx: ManifestContext, text: str) -> str:
        doc = manifests.parse_toml(text)
        changed = 0
        for array in manifests.toml_arrays(doc):
            changed += manifests.edit_array_strings(array, lambda s: self._edit(ctx, s, text))
        for table in manifests.poetry_tables(doc):
            for key in list(table.keys()):
                if manifests.normalize(key) != "mcp":
                    continue
                value = table[key]
                spec = value.get("version") if isinstance(value, dict) else value
                if not isinstance(spec, str) or not manifests.needs_bump(spec):
                    continue
                if ctx.safe_only:
                    self.report(ctx, manifests.line_of(text, f"{key} ="), "raise the Poetry `mcp` constraint", "manual")
                    continue
                self.report(ctx, manifests.line_of(text, f"{key} ="), f"Poetry `mcp` `{spec}` -> `{manifests.TARGET}`",
                            "review")
                if isinstance(value, dict):
                    value["version"] = manifests.TARGET
                else:
                    table[key] = manifests.TARGET
                changed += 1
        return doc.as_string() if changed else text

    def _setup_cfg(self, ctx: ManifestContext, text: str) -> str:
        parser = configparser.ConfigParser()
        try:
            parser.read_file(io.StringIO(text))
        except configparser.Error as exc:
            raise ValueError(f"setup.cfg does not parse, left untouched: {exc}") from exc
        block = parser.get("options", "install_requires", fallback="")
        lines = text.splitlines(keepends=True)
        for raw in block.splitlines():
            body = raw.strip()
            new = self._edit(ctx, body, text) if body else None
            if new is None:
                continue
            for i, line in enumerate(lines):
                if line.strip() == body:
                    lines[i] = line.replace(body, new, 1)
                    break
        return "".join(lines)
