"""MCP061 lowlevel-run-stateless: ``server.run(r, w, opts, stateless=True)`` -> no ``stateless=``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP061", "lowlevel-run-stateless", Kind.REQUIRED, Safety.REVIEW,
        '`server.run(r, w, opts, stateless=True)` -> drop `stateless=`',
        'serverrun-no-longer-takes-a-stateless-flag',
    )
    TRIGGERS = ("stateless=",)
    METHODS = frozenset({"run"})
    RECEIVERS = LOWLEVEL_SERVER
    DROP_KW = frozenset({"stateless"})
    REVIEW = True
    MESSAGE = "`stateless=` dropped: statelessness now comes from StreamableHTTPSessionManager(stateless=True)"
