"""A client helper reading typed results."""

from mcp import ClientSession


async def summary(session: ClientSession) -> list[str]:
    lines = []
    result = await session.call_tool("forecast", {"city": "Oslo"})
    if result.isError:
        lines.append("forecast failed")
    listed = await session.list_tools()
    for tool in listed.tools:
        lines.append(f"{tool.name}: {sorted(tool.inputSchema.get('properties', {}))}")
    contents = await session.read_resource("weather://cities")
    for item in contents.contents:
        lines.append(str(item.mimeType))
    return lines
