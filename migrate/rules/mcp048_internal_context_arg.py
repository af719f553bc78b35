"""MCP048 internal-context-arg: internal ``Tool.run``/``ToolManager.call_tool``/``Prompt.render``/
``ResourceTemplate.create_resource`` need a positional ``context``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

RECEIVER_CLASSES = frozenset(
    f"mcp.server.{pkg}.{path}"
    for pkg in ("fastmcp", "mcpserver")
    for path in (
        "tools.Tool",
        "tools.base.Tool",
        "tools.ToolManager",
        "tools.tool_manager.ToolManager",
        "prompts.Prompt",
        "prompts.base.Prompt",
        "resources.ResourceTemplate",
        "resources.templates.ResourceTemplate",
    )
)


class Rule(CallDetector):
    META = RuleMeta(
        "MCP048",
        "internal-context-arg",
        Kind.REQUIRED,
        Safety.REPORT,
        "`Tool.run`, `ToolManager.call_tool`, `Prompt.render`, `ResourceTemplate.create_resource` require a positional `context`",
        "mcpservercall_tool-read_resource-get_prompt-now-accept-a-context-parameter",
    )
    TRIGGERS = ("run", "call_tool", "render", "create_resource")
    METHODS = frozenset({"render", "create_resource", "call_tool", "run"})
    RECEIVERS = RECEIVER_CLASSES
    MESSAGE = "this internal API takes a positional `context` in v2: pass the request's Context"
