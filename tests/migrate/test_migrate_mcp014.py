"""MCP014 anyurl-to-str."""

from __future__ import annotations

from migrate_helpers import assert_idempotent, migrate_source

SOURCE = """
from pydantic import AnyUrl, FileUrl
from mcp import types
a = types.Resource(uri=AnyUrl("file:///about.txt"), name="about")
b = types.Resource(uri=FileUrl(f"file:///{name}.txt"), name=name)
c = types.Resource(uri=AnyUrl("https://example.com"), name="site")
"""


def test_unwraps_literal_and_wraps_dynamic() -> None:
    new, findings = migrate_source(SOURCE, "MCP014")
    assert 'types.Resource(uri="file:///about.txt", name="about")' in new
    assert 'types.Resource(uri=str(FileUrl(f"file:///{name}.txt")), name=name)' in new
    # pydantic normalises this one (trailing slash): keep v1's exact string
    assert 'uri=str(AnyUrl("https://example.com"))' in new
    assert len(findings) == 3


def test_own_models_untouched_g3() -> None:
    source = "from pydantic import AnyUrl, BaseModel\nclass M(BaseModel):\n    uri: AnyUrl\nm = M(uri=AnyUrl('x://y'))\n"
    new, findings = migrate_source(source, "MCP014")
    assert new == source and not findings


def test_idempotent() -> None:
    assert_idempotent(SOURCE, "MCP014")
