"""MCP020 rootmodel-unions: Message unions are plain unions: drop `.root`, wrapper constructors, and `X.model_validate` on unions."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP020", "import mcp.types as types\nmsg = types.JSONRPCMessage.model_validate(data)\n", None, {"manual"}, 1),
    Case("MCP020", """
        import mcp.types as types
        from mcp.types import ClientNotification
        async def go(session) -> None:
            await session.send_notification(ClientNotification(types.InitializedNotification()))
        """, """
        import mcp.types as types
        from mcp.types import ClientNotification
        async def go(session) -> None:
            await session.send_notification(types.InitializedNotification())
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import JSONRPCMessage\nJSONRPCMessage.model_validate({})\n",
]


class TestMCP020(RuleTests):
    rule = "MCP020"
    cases = CASES
    negative = NEGATIVE
