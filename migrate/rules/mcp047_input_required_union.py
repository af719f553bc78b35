"""MCP047 input-required-union: direct ``get_prompt()``/``read_resource()`` callers must narrow out
``InputRequiredResult``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP047",
        "input-required-union",
        Kind.REQUIRED,
        Safety.REPORT,
        "Direct `get_prompt()`/`read_resource()` callers must narrow out `InputRequiredResult`",
        "mcpserverget_prompt-and-read_resource-may-return-inputrequiredresult",
    )
    TRIGGERS = ("get_prompt", "read_resource")
    METHODS = frozenset({"get_prompt", "read_resource"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = "may return InputRequiredResult in v2: narrow it out (assert not isinstance(result, InputRequiredResult))"
