from mcp.server.fastmcp import FastMCP

mcp = FastMCP(
    "weather",
    instructions="Forecasts for a few cities.",
    host="127.0.0.1",
    stateless_http=True,
    json_response=True,
)
