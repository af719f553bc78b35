"""MCP003's fallback when a server's start call is not in the project (it is started by the ``mcp``
CLI, a host program or code the index cannot follow): v2's ``MCPServer`` constructor no longer takes
transport settings (``TypeError`` at import), so they leave it and become defaults of the server's
own start methods, which the start call that the program does make receives.

The helper is generated into the migrated file once, after its imports; explicit keyword arguments
at the start call still win (``functools.partial`` keywords are overridden by the caller's)."""

from __future__ import annotations

import libcst as cst

HELPER_NAME = "_mcp_v1_transport_defaults"
HELPER = f'''

def {HELPER_NAME}(server, **settings):
    """mcp-migrate (MCP003): v1 took these transport settings in the server
    constructor, v2 takes them when the server starts. No start call was
    found, so they become defaults of the server's start methods; pass them
    at the call that starts it, then delete this helper."""
    import functools
    import inspect

    for name in (
        "run_sse_async",
        "run_streamable_http_async",
        "sse_app",
        "streamable_http_app",
    ):
        method = getattr(server, name)
        accepted = inspect.signature(method).parameters
        preset = {{k: v for k, v in settings.items() if k in accepted}}
        if preset:
            setattr(server, name, functools.partial(method, **preset))
'''


def helper_position(module: cst.Module) -> int:
    """Index in ``module.body`` after the docstring and the last top-level import."""
    position = 0
    for i, stmt in enumerate(module.body):
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Import | cst.ImportFrom):
            position = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            position = 1
    return position


def has_helper(module: cst.Module) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == HELPER_NAME for s in module.body)


def add_helper(module: cst.Module) -> cst.Module:
    if has_helper(module):
        return module
    body = list(module.body)
    position = helper_position(module)
    helper = cst.parse_module(HELPER.lstrip("\n")).body[0]
    helper = helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    after = body[position:]
    if after:  # two blank lines after the helper, as before any top-level statement that follows a def
        lines = list(after[0].leading_lines)
        blank = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
        after[0] = after[0].with_changes(leading_lines=[*[cst.EmptyLine()] * max(0, 2 - blank), *lines])
    return module.with_changes(body=[*body[:position], helper, *after])


def defaults_call(var: str, args: list[cst.Arg]) -> cst.SimpleStatementLine:
    """``_mcp_v1_transport_defaults(<var>, host=..., port=...)`` with the values as written."""
    code = cst.Module([])
    items = ", ".join(f"{a.keyword.value}={code.code_for_node(a.value)}" for a in args if a.keyword)
    statement = cst.parse_statement(f"{HELPER_NAME}({var}, {items})\n")
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement
