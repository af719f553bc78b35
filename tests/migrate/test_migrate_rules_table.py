"""Rows of the rules whose own module (``tests/migrate/rules/test_mcpNNN.py``) is not written yet:
before/after, negative and idempotence cases, run with the per-rule modules' checks. A row moves to
its rule's module when that module is written (and the file goes with the last row);
``test_migrate_rules_layout`` keeps every rule covered."""

from __future__ import annotations

import pytest
from migrate_helpers import (
    SERVER,
    Case,
    check_before_after,
    check_idempotent,
    check_idempotent_with_every_rule,
    check_negative,
)

CASES: list[Case] = [
    Case("MCP021", "from mcp.server.lowlevel.server import request_ctx\nctx = request_ctx.get()\n", None, {"manual"}, 1),
    Case("MCP022", "from mcp.client.auth import OAuthClientProvider\np = OAuthClientProvider(callback_handler=cb)\n",
         None, {"manual"}, 1),
    Case("MCP032", "from mcp.client.streamable_http import GetSessionIdCallback\n", None, {"manual"}, 1),
    Case("MCP036", SERVER + "@mcp.tool('add', 'Adds numbers')\nasync def add(a: int) -> int:\n    return a\n",
         None, {"manual"}, 1),
    Case("MCP042", "from mcp.types import LATEST_PROTOCOL_VERSION\n", None, {"manual"}, 1),
    Case("MCP059", "from mcp.server.lowlevel import Server\nimport mcp.types as types\napp = Server('s')\n"
                   "ok = types.ListToolsRequest in app.request_handlers\n", None, {"manual"}, 1),
    Case("MCP068", "from mcp.shared.session import RequestResponder\n", None, {"manual"}, 1),
    Case("MCP070", "from mcp.client.streamable_http import StreamableHTTPTransport\n"
                   "t = StreamableHTTPTransport('http://x', headers={})\n", None, {"manual"}, 1),
    Case("MCP104", "import logging\nimport mcp.types\nlogging.getLogger('httpx').setLevel(logging.WARNING)\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[tuple[str, str]] = [
    ("MCP021", "import contextvars\nrequest_ctx = contextvars.ContextVar('x')\nrequest_ctx.get()\n"),
    ("MCP022", "from mcp.client.auth import OAuthClientProvider\np = OAuthClientProvider(storage=s)\n"),
    ("MCP032", "from mcp.client.streamable_http import streamable_http_client\n"),
    ("MCP036", SERVER + "@mcp.tool('add', description='Adds')\nasync def add(a: int) -> int:\n    return a\n"),
    ("MCP042", "import mcp.types\nLATEST_PROTOCOL_VERSION = '2025-06-18'\nprint(LATEST_PROTOCOL_VERSION)\n"),
    ("MCP059", "import mcp.types\nclass Router:\n    request_handlers = {}\nRouter().request_handlers\n"),
    ("MCP068", "from mylib.shared.session import RequestResponder\n"),
    ("MCP070", "from mcp.client.streamable_http import StreamableHTTPTransport\nt = StreamableHTTPTransport('u')\n"),
    ("MCP104", "import logging\nlogging.getLogger('myapp')\n"),
]


def _ids(cases: list[Case]) -> list[str]:
    return [f"{c.rule}-{i}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_before_after(case: Case) -> None:
    check_before_after(case)


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_idempotent(case: Case) -> None:
    check_idempotent(case)


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_second_run_with_every_rule_changes_and_finds_nothing_new(case: Case) -> None:
    check_idempotent_with_every_rule(case)


@pytest.mark.parametrize(("rule", "source"), NEGATIVE, ids=[f"{r}-{i}" for i, (r, _) in enumerate(NEGATIVE)])
def test_negative(rule: str, source: str) -> None:
    check_negative(rule, source)
