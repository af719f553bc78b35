"""Issue 31: output a reviewer should not have to clean -- a new import goes where isort would put it in
the file's own import block (never after the local imports), and a rule's marker stays on its statement
when an import is put before it."""

from __future__ import annotations

from migrate_helpers import assert_idempotent, migrate_source

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
