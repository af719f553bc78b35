"""MCP014 anyurl-to-str (more cases in test_migrate_mcp014.py)."""

from __future__ import annotations

import pytest
from migrate_helpers import migrate_source


@pytest.mark.xfail(strict=True, reason="known gap: a URL object bound to a name first is not followed")
def test_a_url_bound_to_a_name_first() -> None:
    source = """
    from pydantic import AnyUrl
    from mcp import ClientSession
    async def go(session: ClientSession) -> None:
        uri = AnyUrl("greeting://World")
        await session.read_resource(uri)
    """
    assert 'uri = "greeting://World"' in migrate_source(source, "MCP014")[0]
