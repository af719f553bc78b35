from mcp.server.fastmcp import FastMCP

mcp = FastMCP("schemas")


@mcp.tool()
async def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool()
async def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


if __name__ == "__main__":
    mcp.run()
