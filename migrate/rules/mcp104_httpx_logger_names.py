"""MCP104 httpx-logger-names (optional): ``logging.getLogger("httpx"/"httpcore")`` no longer tunes the
SDK's HTTP client, whose loggers are ``httpx2``/``httpcore2``: reported with the new names."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

GET_LOGGER = frozenset({"logging.getLogger"})
NEW = {"httpx": "httpx2", "httpcore": "httpcore2"}


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP104",
        "httpx-logger-names",
        Kind.OPTIONAL,
        Safety.REPORT,
        '`logging.getLogger("httpx"/"httpcore")` no longer affects the SDK client -> also tune `httpx2`/`httpcore2`',
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("getLogger",)

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or not self.resolves_to(node.func, GET_LOGGER):
            return
        value = node.args[0].value
        name = value.evaluated_value if isinstance(value, cst.SimpleString) else None
        if name in NEW:
            self.report(node, f"the SDK logs to {NEW[name]!r} now: tune that logger as well", fixed=False)
