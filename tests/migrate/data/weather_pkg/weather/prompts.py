from .app import mcp


@mcp.prompt()
async def brief(city: str, style: str = "short") -> str:
    """Ask for a weather brief."""
    return f"Write a {style} weather brief for {city}."
