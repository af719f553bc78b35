"""MCP028 get-context-removed: `mcp.get_context()` -> injected `ctx: Context` parameter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import Case, RuleTests, migrate_source

STATIC = ("get_context() was removed and v2 rejects a Context parameter on a "
          "static resource: make it a template (`{param}` in the URI) and add `ctx: Context` (from "
          "mcp.server.mcpserver import Context), or move the context-dependent part into a tool")

CASES: list[Case] = [
    Case("MCP028", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP('x')
        @mcp.tool()
        def t() -> str:
            return mcp.get_context().request_id
        @mcp.prompt()
        async def p(topic: str = "x") -> str:
            ctx = mcp.get_context()
            await ctx.info(topic)
            return topic
        """, """
        from mcp.server.fastmcp import FastMCP
        from mcp.server.mcpserver import Context
        mcp = FastMCP('x')
        @mcp.tool()
        def t(ctx: Context) -> str:
            return ctx.request_id
        @mcp.prompt()
        async def p(topic: str = "x", *, ctx: Context) -> str:
            await ctx.info(topic)
            return topic
        """, {"fixed"}),
    Case("MCP028", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.resource('x://static')\n"
                   "def r() -> str:\n    return mcp.get_context().request_id\n", None, {"manual"}, 1),
    Case("MCP028", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\ndef helper() -> str:\n"
                   "    return mcp.get_context().request_id\n", None, {"manual"}, 1),
    # the URI is the `uri=` keyword wherever it stands: braces in another argument make no template
    Case("MCP028", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP('x')
        @mcp.resource(description='{not a template}', uri='x://static')
        def s() -> str:
            return mcp.get_context().request_id
        @mcp.resource(name='n', uri='x://{a}')
        def t(a: str) -> str:
            return mcp.get_context().request_id
        """, """
        from mcp.server.fastmcp import FastMCP
        from mcp.server.mcpserver import Context
        mcp = FastMCP('x')
        @mcp.resource(description='{not a template}', uri='x://static')
        def s() -> str:
            # TODO(mcp-migrate MCP028): STATIC
            return mcp.get_context().request_id
        @mcp.resource(name='n', uri='x://{a}')
        def t(a: str, ctx: Context) -> str:
            return ctx.request_id
        """.replace("STATIC", STATIC), {"manual", "fixed"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\nclass App:\n    def get_context(self): ...\nApp().get_context()\n",
]


class TestMCP028(RuleTests):
    rule = "MCP028"
    cases = CASES
    negative = NEGATIVE


STATIC_AND_TEMPLATE = """
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")
@mcp.resource("x://static")
def static() -> str:
    return str(mcp.get_context().request_id)
@mcp.resource("x://{name}")
def templated(name: str) -> str:
    return mcp.get_context().request_id + name
@mcp.tool()
def tool() -> str:
    return mcp.get_context().request_id
"""


def test_a_static_resource_keeps_a_marker_and_the_module_imports_under_v2(tmp_path: Path) -> None:
    """v2 rejects a Context parameter on a static resource at decoration time (a ValueError on import):
    the static one keeps its call and a marker, the others take the parameter, and the file imports."""
    new, findings = migrate_source(STATIC_AND_TEMPLATE)
    assert [(f.line, f.status) for f in findings if f.rule == "MCP028"] == [(6, "manual"), (9, "fixed"), (12, "fixed")]
    assert "def static() -> str:" in new and "def templated(name: str, ctx: Context) -> str:" in new
    assert new.count("# TODO(mcp-migrate MCP028)") == 1
    (tmp_path / "srv.py").write_text(new, encoding="utf-8")
    probe = ("import asyncio, srv\n"
             "print(sorted(str(r.uri) for r in asyncio.run(srv.mcp.list_resources())),"
             " sorted(t.uri_template for t in asyncio.run(srv.mcp.list_resource_templates())))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['x://static'] ['x://{name}']"


@pytest.mark.xfail(strict=True, reason="known gap: only calls spelled `<server>.get_context()` are seen; the bound "
                                       "method taken into a name first is not (AttributeError under v2, no marker)")
def test_get_context_bound_to_a_name_first() -> None:
    source = """
    from mcp.server.fastmcp import FastMCP
    mcp = FastMCP('x')
    @mcp.tool()
    def t() -> str:
        get = mcp.get_context
        return get().request_id
    """
    assert migrate_source(source, "MCP028")[1] != []
