"""Rule catalogue invariants: IDs, slugs and metadata of every rule module."""

from __future__ import annotations

import re

from migrate.model import Kind, Safety
from migrate.rules import all_rules, select_rules


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


def test_every_rule_matches_its_catalogue_entry() -> None:
    from migrate.catalogue import CATALOGUE

    expected_safety = {"AUTO": Safety.SAFE, "AUTO+NOTE": Safety.REVIEW, "MANUAL": Safety.REPORT}
    for rule in all_rules():
        slug, klass, anchor = CATALOGUE[rule.META.id]
        assert rule.META.slug == slug, rule.META.id
        assert rule.META.anchor == anchor, rule.META.id
        # a rule may be stricter than the catalogue (report instead of guess), never laxer
        order = [Safety.SAFE, Safety.REVIEW, Safety.REPORT]
        assert order.index(rule.META.safety) >= order.index(expected_safety[klass]), rule.META.id
