"""MCP049 resource-lookup-exceptions: resource lookups raise ``ResourceNotFoundError``/``ResourceError``, not ``ValueError``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

RECEIVER_CLASSES = frozenset(
    f"mcp.server.{pkg}.{path}"
    for pkg in ("fastmcp", "mcpserver")
    for path in (
        "resources.ResourceManager",
        "resources.resource_manager.ResourceManager",
        "resources.ResourceTemplate",
        "resources.templates.ResourceTemplate",
    )
)


class Rule(CallDetector):
    META = RuleMeta(
        "MCP049",
        "resource-lookup-exceptions",
        Kind.REQUIRED,
        Safety.REPORT,
        "`ResourceManager.get_resource()` / template creation raise `ResourceNotFoundError`/`ResourceError`, not `ValueError`",
        "resource-not-found-returns-32602-and-resource-lookups-raise-typed-exceptions-sep-2164",
    )
    TRIGGERS = ("get_resource", "create_resource")
    METHODS = frozenset({"get_resource", "create_resource"})
    RECEIVERS = RECEIVER_CLASSES
    MESSAGE = "raises ResourceNotFoundError/ResourceError now (not ValueError): update the except clauses around it"
