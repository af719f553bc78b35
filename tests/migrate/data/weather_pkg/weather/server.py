from mcp.server.fastmcp import FastMCP

from weather import prompts, resources, tools  # noqa: F401  (registers the handlers)
from weather.app import mcp


def create_server() -> FastMCP:
    return mcp
