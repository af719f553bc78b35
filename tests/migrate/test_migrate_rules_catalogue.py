"""Rule catalogue invariants: IDs, slugs and metadata of every rule module."""

from __future__ import annotations

import re

from mcp_eras.migrate.model import Kind, Safety
from mcp_eras.migrate.rules import all_rules, select_rules


def test_ids_and_slugs_unique_and_well_formed() -> None:
    metas = list({id(r.META): r.META for r in all_rules()}.values())  # a rule's two halves share one META
    assert len({m.id for m in metas}) == len(metas)
    assert len({m.slug for m in metas}) == len(metas)
    for meta in metas:
        assert re.fullmatch(r"MCP\d{3}", meta.id)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta.slug)
        kind = {"0": Kind.REQUIRED, "1": Kind.OPTIONAL, "2": Kind.ADVISORY}[meta.id[3]]
        assert meta.kind is kind, meta.id
        if kind is Kind.ADVISORY:
            assert meta.safety is Safety.REPORT


def test_module_name_matches_id_and_slug() -> None:
    for rule in all_rules():
        module = rule.__module__.rsplit(".", 1)[1]
        assert module == f"{rule.META.id.lower()}_{rule.META.slug.replace('-', '_')}"


def test_selection_by_id_prefix_slug_and_ignore() -> None:
    assert select_rules(["MCP001"]) == ["MCP001"]
    assert select_rules(["fastmcp-renamed"]) == ["MCP001"]
    assert "MCP001" not in select_rules(None, ["MCP001"])
    assert all(i.startswith("MCP0") for i in select_rules(["MCP0"]))
    assert not any(i.startswith("MCP1") for i in select_rules())


def test_the_catalogue_is_derived_from_the_rules() -> None:
    from mcp_eras.migrate.catalogue import CLASS, PLANNED, table

    derived = table()
    for rule in all_rules():
        assert derived[rule.META.id] == (rule.META.slug, CLASS[rule.META.safety], rule.META.anchor)
        assert rule.META.id not in PLANNED  # implemented: no longer planned
    assert set(PLANNED) <= set(derived)
    # every rule links into the migration guide, except the few the guide does not cover
    assert {r.META.id for r in all_rules() if not r.META.anchor} <= {"MCP013", "MCP036", "MCP063", "MCP066", "MCP076"}
