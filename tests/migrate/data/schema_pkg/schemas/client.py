import sys
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


class SchemaClient:
    def __init__(self) -> None:
        self.session: ClientSession | None = None
        self.exit_stack = AsyncExitStack()

    async def connect(self) -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "schemas.server"])
        read, write = await self.exit_stack.enter_async_context(stdio_client(params))
        self.session = await self.exit_stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()

    async def schemas(self) -> list[dict]:
        response = await self.session.list_tools()
        return [
            {"name": tool.name, "required": tool.inputSchema.get("required", []), "properties": sorted(tool.inputSchema["properties"])}
            for tool in response.tools
        ]

    async def call(self, name: str, arguments: dict) -> dict:
        result = await self.session.call_tool(name, arguments)
        texts = [item.text for item in result.content if item.type == "text"]
        return {"error": result.isError, "texts": texts}

    async def close(self) -> None:
        await self.exit_stack.aclose()
