"""The rule catalogue, derived from each rule's ``RuleMeta`` (one truth: the rule modules).

``table()`` lists every rule as (slug, class, guide anchor), class from its fix safety: AUTO
(safe), AUTO+NOTE (review), MANUAL (report-only). ``PLANNED`` holds the catalogue entries that
have no rule module yet, so that the listing says what is not implemented.
"""

from __future__ import annotations

from mcp_eras.migrate.model import Safety

CLASS = {Safety.SAFE: "AUTO", Safety.REVIEW: "AUTO+NOTE", Safety.REPORT: "MANUAL"}
PLANNED: dict[str, tuple[str, str, str]] = {}  # every catalogue entry has a rule module


def table() -> dict[str, tuple[str, str, str]]:
    """ID -> (slug, class, anchor) of every implemented rule, then the planned ones."""
    from mcp_eras.migrate.rules import all_rules

    found = {r.META.id: (r.META.slug, CLASS[r.META.safety], r.META.anchor) for r in all_rules()}
    return found | {k: v for k, v in PLANNED.items() if k not in found}
