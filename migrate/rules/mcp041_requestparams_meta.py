"""MCP041 requestparams-meta: ``RequestParams.Meta`` model -> ``RequestParamsMeta`` TypedDict."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP041",
        "requestparams-meta",
        Kind.REQUIRED,
        Safety.REPORT,
        "`RequestParams.Meta` model -> `RequestParamsMeta` TypedDict",
        "requestparamsmeta-replaced-with-requestparamsmeta-typeddict",
    )
    TRIGGERS = ("Meta",)
    NAMES = frozenset({"mcp.types.NotificationParams.Meta", "mcp.types.RequestParams.Meta"})
    MESSAGE = "RequestParams.Meta is a TypedDict now (RequestParamsMeta): build a dict, read keys with .get('progress_token')"
