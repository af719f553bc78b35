"""MCP077 oauth-client-info-types: ``OAuthClientInformationFull`` is no longer an
``OAuthClientMetadata``: ``isinstance`` checks and code relying on the subclassing are reported."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

METADATA = frozenset({"mcp.shared.auth.OAuthClientMetadata"})


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP077",
        "oauth-client-info-types",
        Kind.REQUIRED,
        Safety.REPORT,
        "`OAuthClientInformationFull` is no longer an `OAuthClientMetadata`",
        "oauthclientinformationfull-no-longer-subclasses-oauthclientmetadata-and-parses-server-substituted-metadata",
    )
    TRIGGERS = ("OAuthClientMetadata",)

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "issubclass")):
            return
        if len(node.args) == 2 and self.resolves_to(node.args[1].value, METADATA):
            self.report(node, "OAuthClientInformationFull no longer subclasses OAuthClientMetadata: this check "
                              "changes meaning", fixed=False)
