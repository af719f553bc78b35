"""MCP001 fastmcp-renamed: `mcp.server.fastmcp`/`FastMCP` -> `mcp.server.mcpserver`/`MCPServer`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests, assert_idempotent, dedent, migrate_source

# the standard checks (RuleTests) on the plainest shapes; the hand-written tests below cover the rest
CASES: list[Case] = [
    Case("MCP001", """
        from mcp.server.fastmcp import FastMCP, Context, Image
        mcp = FastMCP("Demo")
        """, """
        from mcp.server.mcpserver import MCPServer, Context, Image
        mcp = MCPServer("Demo")
        """, {"fixed"}),
    Case("MCP001", "from mcp.server import Server, FastMCP\napp = FastMCP('x')\n",
         "from mcp.server import Server\nfrom mcp.server.mcpserver import MCPServer\napp = MCPServer('x')\n", {"fixed"}),
    Case("MCP001", "import mcp.server.fastmcp as fm\ndef register(server: fm.FastMCP) -> None: ...\n",
         "import mcp.server.mcpserver as fm\ndef register(server: fm.MCPServer) -> None: ...\n", {"fixed"}),
]

NEGATIVE: list[str] = [
    "class FastMCP:\n    pass\nserver = FastMCP()\n",
    "from mylib.server.fastmcp import FastMCP\nserver = FastMCP('x')\n",
]


class TestMCP001(RuleTests):
    rule = "MCP001"
    cases = CASES
    negative = NEGATIVE


def test_basic_import_and_constructor() -> None:
    new, findings = migrate_source(
        """
        from mcp.server.fastmcp import FastMCP, Context, Image
        mcp = FastMCP("Demo")
        """,
        "MCP001",
    )
    assert new == dedent(
        """
        from mcp.server.mcpserver import MCPServer, Context, Image
        mcp = MCPServer("Demo")
        """
    )
    assert {f.rule for f in findings} == {"MCP001"}


def test_alias_keeps_alias() -> None:
    new, _ = migrate_source("from mcp.server.fastmcp import FastMCP as F\napp = F('x')\n", "MCP001")
    assert new == "from mcp.server.mcpserver import MCPServer as F\napp = F('x')\n"


def test_module_import_and_attribute_chain() -> None:
    new, _ = migrate_source("import mcp.server.fastmcp\napp = mcp.server.fastmcp.FastMCP('x')\n", "MCP001")
    assert new == "import mcp.server.mcpserver\napp = mcp.server.mcpserver.MCPServer('x')\n"


def test_module_alias_and_submodule() -> None:
    new, _ = migrate_source(
        """
        import mcp.server.fastmcp as fm
        from mcp.server.fastmcp.prompts import base
        from mcp.server.fastmcp.server import Context
        def register(server: fm.FastMCP) -> None: ...
        """,
        "MCP001",
    )
    assert "import mcp.server.mcpserver as fm" in new
    assert "from mcp.server.mcpserver.prompts import base" in new
    assert "from mcp.server.mcpserver import Context" in new
    assert "server: fm.MCPServer" in new


def test_mcp_server_reexport_split() -> None:
    new, _ = migrate_source("from mcp.server import Server, FastMCP\napp = FastMCP('x')\n", "MCP001")
    assert new == "from mcp.server import Server\nfrom mcp.server.mcpserver import MCPServer\napp = MCPServer('x')\n"


def test_lazy_and_type_checking_imports_and_generics() -> None:
    new, _ = migrate_source(
        """
        from typing import TYPE_CHECKING, Any
        if TYPE_CHECKING:
            from mcp.server.fastmcp import FastMCP
        def build() -> "Any":
            from mcp.server.fastmcp import FastMCP
            server: FastMCP[Any] = FastMCP("x")
            return isinstance(server, FastMCP)
        """,
        "MCP001",
    )
    assert "fastmcp" not in new and "FastMCP" not in new
    assert "server: MCPServer[Any] = MCPServer(\"x\")" in new


def test_dotted_string_gets_review_marker() -> None:
    new, findings = migrate_source('patch("mcp.server.fastmcp.server.FastMCP.run")\n', "MCP001")
    assert 'patch("mcp.server.mcpserver.server.MCPServer.run")' in new
    assert "# TODO(mcp-migrate MCP001):" in new
    assert [f.status for f in findings] == ["review"]


def test_local_name_fastmcp_untouched() -> None:
    source = "class FastMCP: ...\nx = FastMCP()\ns = 'uses FastMCP in prose'\n"
    new, findings = migrate_source(source, "MCP001")
    assert new == source and findings == []


def test_guard_g1_standalone_fastmcp_untouched() -> None:
    source = "from fastmcp import FastMCP\nimport mcp.types\napp = FastMCP('x')\n"
    new, findings = migrate_source(source)
    assert new == source
    assert [f.rule for f in findings] == ["G1"]


def test_guard_g10_dual_version_shim_untouched() -> None:
    source = dedent(
        """
        try:
            from mcp.server.mcpserver import MCPServer
        except ImportError:
            from mcp.server.fastmcp import FastMCP as MCPServer
        """
    )
    new, findings = migrate_source(source)
    assert new == source
    assert [f.rule for f in findings] == ["G10"]


def test_idempotent() -> None:
    assert_idempotent("from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n", "MCP001")
