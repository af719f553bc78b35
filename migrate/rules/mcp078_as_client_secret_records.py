"""MCP078 as-client-secret-records: v2's authorization server rejects client records that use a
secret-based auth method at ``/token``/``/revoke`` but carry no secret.

Flags literal ``OAuthClientInformationFull(...)`` constructions whose ``token_endpoint_auth_method``
is ``client_secret_post``/``client_secret_basic`` (or absent: the v1 default was
``client_secret_post``) while ``client_secret`` is missing or ``None``.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

SECRET_METHODS = frozenset({"client_secret_post", "client_secret_basic"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP078",
        "as-client-secret-records",
        Kind.REQUIRED,
        Safety.REPORT,
        "Hand-provisioned AS client records with a secret-based auth method but no secret are rejected",
        "stricter-client-authentication-at-token-and-revoke",
    )
    TRIGGERS = ("OAuthClientInformationFull",)
    CALLEES = frozenset({"mcp.shared.auth.OAuthClientInformationFull"})

    def visit_Call(self, node: cst.Call) -> None:
        if not self.is_site(node):
            return
        kwargs = {a.keyword.value: a.value for a in node.args if a.keyword}
        if any(a.star for a in node.args):
            return  # **record: not provable
        method = kwargs.get("token_endpoint_auth_method")
        if method is not None and not (isinstance(method, cst.SimpleString) and method.evaluated_value in SECRET_METHODS):
            return
        secret = kwargs.get("client_secret")
        if secret is not None and not (isinstance(secret, cst.Name) and secret.value == "None"):
            return
        self.report(node, "secret-based token_endpoint_auth_method without client_secret: v2 rejects this client at "
                          "/token and /revoke (invalid_client); set token_endpoint_auth_method='none' for public clients",
                    fixed=False)
