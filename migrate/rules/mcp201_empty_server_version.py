"""MCP201 empty-server-version: servers built without ``version=`` report an empty ``serverInfo.version``
(v1 reported the mcp package version)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER, SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP201",
        "empty-server-version",
        Kind.ADVISORY,
        Safety.REPORT,
        'Servers constructed without `version=` report `serverInfo.version == ""`',
        "unversioned-servers-report-an-empty-version",
    )
    TRIGGERS = ("FastMCP(", "MCPServer(", "Server(")
    CALLEES = SERVER_CLASS | LOWLEVEL_SERVER
    MISSING = "version"
    MESSAGE = 'no version=: v2 reports serverInfo.version == "" (v1 reported the mcp package version); pass version='
