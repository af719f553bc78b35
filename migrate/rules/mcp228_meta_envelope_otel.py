"""MCP228 meta-envelope-otel (advisory): every outbound request now carries ``params._meta`` (and
OpenTelemetry is on by default), so tests asserting exact wire messages break (python-sdk
``docs/migration.md`` § "Every outbound request now carries a _meta envelope; OpenTelemetry is on
by default"). Reported: an ``assert`` that compares with a JSON-RPC request spelled out as a string,
bytes or dict literal (``"jsonrpc"`` and ``"method"`` in it)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import RuleTransformer


def _wire_literal(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        return isinstance(text, str) and '"jsonrpc"' in text and '"method"' in text
    if isinstance(node, cst.Dict):
        keys = {e.key.evaluated_value for e in node.elements
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)}
        return {"jsonrpc", "method"} <= keys
    return False


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP228",
        "meta-envelope-otel",
        Kind.ADVISORY,
        Safety.REPORT,
        "Every outbound request carries `params._meta` and OTel spans; raw-byte assertions break",
        "every-outbound-request-now-carries-a-_meta-envelope-opentelemetry-is-on-by-default",
    )
    TRIGGERS = ("jsonrpc",)

    def visit_Assert(self, node: cst.Assert) -> None:
        test = node.test
        if isinstance(test, cst.Comparison) and any(_wire_literal(n) for n in walk(test)):
            self.report(node, "v2 adds params._meta (and OTel trace context) to every request: compare parsed "
                              "messages without _meta, not exact wire text", fixed=False)
