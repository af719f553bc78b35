"""rules/_lib/imports.drop_unused: only names that nothing else mentions are removed."""

from __future__ import annotations

import libcst as cst
from migrate_helpers import dedent

from mcp_eras.migrate.rules._lib.imports import drop_unused

NAMES = {"mcp.server.session": frozenset({"ServerSession"}), "pydantic": frozenset({"AnyUrl"})}


def run(code: str) -> str:
    return drop_unused(cst.parse_module(dedent(code)), NAMES).code


def test_a_name_used_nowhere_else_is_dropped_and_the_statement_with_it() -> None:
    assert run("# keep me\nfrom mcp.server.session import ServerSession\nx = 1\n") == "# keep me\nx = 1\n"
    assert run("from pydantic import AnyUrl, BaseModel\nclass M(BaseModel): ...\n") == (
        "from pydantic import BaseModel\nclass M(BaseModel): ...\n")


def test_a_name_still_mentioned_or_aliased_or_unlisted_stays() -> None:
    for code in ("from pydantic import AnyUrl\nu = AnyUrl('x://y')\n",
                 "from pydantic import AnyUrl\n# AnyUrl is documented here\n",
                 "from pydantic import AnyUrl as U\n",
                 "from mylib import ServerSession\n",
                 "from pydantic import *\n"):
        assert run(code) == dedent(code)

