import json

from . import app
from .tools import CITIES


@app.mcp.resource("weather://cities", mime_type="application/json")
async def cities() -> str:
    """Cities with a forecast."""
    return json.dumps(sorted(CITIES))


@app.mcp.resource("weather://{city}/now")
async def now(city: str) -> str:
    """Current temperature."""
    return str(CITIES.get(city, "?"))
