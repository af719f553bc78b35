"""MCP034 client-auth-incidental-imports: names that ``mcp.client.auth`` only re-exported by accident are gone."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP034",
        "client-auth-incidental-imports",
        Kind.REQUIRED,
        Safety.REPORT,
        "Names imported from `mcp.client.auth` that were only incidental re-exports (`httpx`, `logger`, `urljoin`, ...)",
    )
    TRIGGERS = ("mcp.client.auth",)
    NAMES = frozenset(
        {
            "mcp.client.auth.MCP_PROTOCOL_VERSION",
            "mcp.client.auth.anyio",
            "mcp.client.auth.base64",
            "mcp.client.auth.hashlib",
            "mcp.client.auth.httpx",
            "mcp.client.auth.logger",
            "mcp.client.auth.logging",
            "mcp.client.auth.oauth2.MCP_PROTOCOL_VERSION",
            "mcp.client.auth.oauth2.anyio",
            "mcp.client.auth.oauth2.base64",
            "mcp.client.auth.oauth2.hashlib",
            "mcp.client.auth.oauth2.httpx",
            "mcp.client.auth.oauth2.logger",
            "mcp.client.auth.oauth2.logging",
            "mcp.client.auth.oauth2.secrets",
            "mcp.client.auth.oauth2.string",
            "mcp.client.auth.oauth2.time",
            "mcp.client.auth.oauth2.urljoin",
            "mcp.client.auth.oauth2.urlparse",
            "mcp.client.auth.secrets",
            "mcp.client.auth.string",
            "mcp.client.auth.time",
            "mcp.client.auth.urljoin",
            "mcp.client.auth.urlparse",
        }
    )
    MESSAGE = "this name was only an incidental re-export of mcp.client.auth: import it from its real home"
