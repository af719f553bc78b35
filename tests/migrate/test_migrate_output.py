"""Issue 31: output a reviewer should not have to clean -- a new import goes where isort would put it in
the file's own import block (never after the local imports), and a rule's marker stays on its statement
when an import is put before it."""

from __future__ import annotations

from pathlib import Path

from migrate_helpers import assert_idempotent, migrate_source, migrate_tree, unwrapped

CLIENT = """
import json
import os

from mcp.client.streamable_http import streamablehttp_client
from pydantic import BaseModel

from .config import URL


async def go() -> None:
    async with streamablehttp_client(URL, headers={"k": os.environ["K"]}) as (read, write, _):
        print(json.dumps({}), BaseModel)
"""


def test_a_new_import_goes_into_its_section_in_order() -> None:
    new, _ = migrate_source(CLIENT, "MCP006")
    assert new.startswith("\nimport json\nimport os\n\nimport httpx2\nfrom mcp.client.streamable_http import "
                          "streamable_http_client\nfrom pydantic import BaseModel\n\nfrom .config import URL\n")
    assert_idempotent(CLIENT)


def test_an_import_put_first_takes_the_header_comment_not_the_markers() -> None:
    source = "# client setup\nfrom mcp.shared.session import RequestResponder\nx = RequestResponder\n"
    new, _ = migrate_source(source, "MCP068")
    lines = new.splitlines()
    assert lines[0] == "# client setup"
    marker = next(i for i, line in enumerate(lines) if "TODO(mcp-migrate MCP068)" in line)
    assert lines[marker + 1] == "from mcp.shared.session import RequestResponder"
    assert_idempotent(source, "MCP068")


def test_an_import_whose_use_moved_to_another_module_goes(tmp_path: Path) -> None:
    pkg = tmp_path / "svc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "app.py").write_text('import os\n\nfrom mcp.server.fastmcp import FastMCP\n\n'
                                'mcp = FastMCP("x", port=int(os.environ.get("PORT", "8000")))\n')
    (pkg / "__main__.py").write_text('from .app import mcp\n\nif __name__ == "__main__":\n    mcp.run(transport="sse")\n')
    assert migrate_tree(tmp_path) == 0
    app = (pkg / "app.py").read_text()
    assert app.startswith("from mcp.server.mcpserver import MCPServer\n") and "import os" not in app
    assert "# TODO(mcp-migrate MCP003): moved to the start site in __main__.py with the imports their values need\n" in \
        unwrapped(app)
    main = (pkg / "__main__.py").read_text()
    assert main.startswith("import os\n\nfrom .app import mcp\n")
    assert 'mcp.run(transport="sse", port=int(os.environ.get("PORT", "8000")))' in main
    assert migrate_tree(tmp_path, "fix", "--diff") == 0
