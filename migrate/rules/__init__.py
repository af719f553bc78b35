"""The rule catalogue: one module per rule, named ``mcpNNN_<slug>.py``.

Each module defines ``Rule``: a ``RuleTransformer`` (Python sources) or a ``ManifestRule``
(dependency manifests) whose ``META`` carries the ID, slug, kind and fix safety; a module may add a
``PythonRule`` with the same ``META`` when one rule has both halves.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from mcp_eras.migrate.model import Kind, RuleMeta


@cache
def all_rules() -> tuple[Any, ...]:
    found: list[Any] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("mcp"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        # ``Rule``, and ``PythonRule`` where one ID has a manifest half and a Python half (MCP011)
        found.extend(rule for rule in (getattr(module, "Rule", None), getattr(module, "PythonRule", None)) if rule)
    found.sort(key=lambda r: r.META.id)
    return tuple(found)


def catalogue() -> dict[str, RuleMeta]:
    return {rule.META.id: rule.META for rule in all_rules()}


def _matches(meta: RuleMeta, token: str) -> bool:
    token = token.strip()
    if not token:
        return False
    upper = token.upper()
    return meta.id.upper().startswith(upper) or meta.slug == token.lower() or upper == "ALL"


def select_rules(select: list[str] | None = None, ignore: list[str] | None = None) -> list[str]:
    """Rule IDs enabled by ``--select``/``--ignore`` (IDs, ID prefixes like ``MCP0`` or slugs).

    Without ``--select``: required rules and advisories; optional normalisations are opt-in.
    """
    chosen: list[str] = []
    for rule in all_rules():
        meta: RuleMeta = rule.META
        if select:
            on = any(_matches(meta, tok) for tok in select)
        else:
            on = meta.kind is not Kind.OPTIONAL
        if on and ignore and any(_matches(meta, tok) for tok in ignore):
            on = False
        if on and meta.id not in chosen:
            chosen.append(meta.id)
    return chosen


def unknown_tokens(tokens: list[str]) -> list[str]:
    metas = [rule.META for rule in all_rules()]
    return [t for t in tokens if t.strip() and not any(_matches(m, t) for m in metas)]
