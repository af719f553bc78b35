from mcp.server.fastmcp import Context

from weather.app import mcp
from weather.router import describe

CITIES = {"oslo": 4, "paris": 17, "lima": 22}


@mcp.tool()
async def forecast(city: str, days: int = 1) -> str:
    """Temperature forecast for a city."""
    temperature = CITIES.get(city.lower())
    if temperature is None:
        raise ValueError(f"unknown city: {city}")
    return f"{city}: {temperature}°C for {days} day(s)"


@mcp.tool()
async def classify(command: str) -> str:
    """Parse a command line."""
    return describe(command)


@mcp.tool()
async def report(city: str, ctx: Context) -> dict[str, int]:
    """Structured temperature report."""
    await ctx.info(f"report for {city}")
    return {"temperature": CITIES.get(city.lower(), 0)}


@mcp.tool()
async def server_name(upper: bool = False) -> str:
    """Name of the server answering."""
    ctx = mcp.get_context()
    name = ctx.fastmcp.name
    return name.upper() if upper else name
