"""MCP025 mcperror-constructor: `McpError(ErrorData(code=..., message=...))` -> `MCPError(code, message[, data])` / `from_error_data(x)`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP025", """
        from mcp import McpError
        from mcp.types import ErrorData, INVALID_PARAMS
        def fail(err: ErrorData) -> None:
            if err:
                raise McpError(err)
            raise McpError(ErrorData(code=INVALID_PARAMS, message="bad"))
        """, """
        from mcp import McpError
        from mcp.types import ErrorData, INVALID_PARAMS
        def fail(err: ErrorData) -> None:
            if err:
                raise McpError.from_error_data(err)
            raise McpError(code=INVALID_PARAMS, message="bad")
        """, {"fixed"}),
    # v1's keyword spelling `McpError(error=...)`
    Case("MCP025", """
        from mcp import McpError
        from mcp.types import ErrorData
        def f(e: ErrorData) -> None:
            if e:
                raise McpError(error=e)
            raise McpError(error=ErrorData(code=1, message='m'))
        """, """
        from mcp import McpError
        from mcp.types import ErrorData
        def f(e: ErrorData) -> None:
            if e:
                raise McpError.from_error_data(error=e)
            raise McpError(code=1, message='m')
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp import McpError\nraise McpError(code=1, message='x')\nclass E(Exception): ...\nraise E(1)\n",
]


class TestMCP025(RuleTests):
    rule = "MCP025"
    cases = CASES
    negative = NEGATIVE
