"""MCP059 lowlevel-handler-dicts."""

from __future__ import annotations

import pytest
from migrate_helpers import assert_idempotent, migrate_source

S = "from mcp.server.lowlevel import Server\nimport mcp.types as types\napp = Server('s')\n"


def test_membership_tests_use_the_method_getters() -> None:
    source = S + "ok = types.ListToolsRequest in app.request_handlers\n" \
                 "no = types.ProgressNotification not in app.notification_handlers\n"
    new, findings = migrate_source(source, "MCP059")
    assert new == S + 'ok = app.get_request_handler("tools/list") is not None\n' \
                      'no = app.get_notification_handler("notifications/progress") is None\n'
    assert {f.status for f in findings} == {"fixed"}
    assert_idempotent(source, "MCP059")


@pytest.mark.parametrize("line", [
    "h = app.request_handlers[types.CallToolRequest]\n",
    "app.request_handlers[types.CallToolRequest] = handler\n",
    "ok = types.ElicitRequest in app.request_handlers\n",
])
def test_reads_assignments_and_unknown_keys_are_reported(line: str) -> None:
    new, findings = migrate_source(S + line, "MCP059")
    assert new == S + "# TODO(mcp-migrate MCP059): request_handlers/notification_handlers were removed: v2 keys " \
                      "handlers by method (get_request_handler(method), add_request_handler(method, params_type, " \
                      "handler(ctx, params)))\n" + line
    assert {f.status for f in findings} == {"manual"}


def test_an_unproven_receiver_keyed_by_an_sdk_request_class_is_reported() -> None:
    """fastapi-mcp 0.4.0's tests: ``fastapi_mcp.server.request_handlers[types.CallToolRequest](request)``."""
    source = "from mcp import types\nasync def call(app, request):\n" \
             "    await app.server.request_handlers[types.CallToolRequest](request)\n"
    new, findings = migrate_source(source, "MCP059")
    assert new.count("# TODO(mcp-migrate MCP059)") == 1 and {f.status for f in findings} == {"manual"}
    assert_idempotent(source, "MCP059")


def test_negative() -> None:
    source = "import mcp.types\nclass Router:\n    request_handlers = {}\nRouter().request_handlers\n"
    assert migrate_source(source, "MCP059") == (source, [])


@pytest.mark.xfail(strict=True, reason="known gap: `.get(X) is None` lookups are reported, not rewritten")
def test_get_lookups() -> None:
    source = S + "missing = app.request_handlers.get(types.ListToolsRequest) is None\n"
    assert 'app.get_request_handler("tools/list") is None' in migrate_source(source, "MCP059")[0]
