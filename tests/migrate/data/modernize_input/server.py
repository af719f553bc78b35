"""A v1 (mcp 1.x) server whose tools ask the client for input in the middle of a call: an
elicitation, a sampling request and a roots listing (written for test_migrate_modernize.py)."""

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel

mcp = FastMCP("modernize-fixture")


class Booking(BaseModel):
    confirm: bool
    seats: int


@mcp.tool()
async def book(date: str, ctx: Context) -> str:
    """Book a table once the user confirms."""
    answer = await ctx.elicit(message=f"Book a table on {date}?", schema=Booking)
    if answer.action == "accept":
        return f"booked {answer.data.seats} seats on {date}" if answer.data.confirm else "not confirmed"
    return f"no booking ({answer.action})"


@mcp.tool()
async def reserve(date: str, party: int, ctx: Context) -> str:
    """Reserve a table; Christmas Day needs a confirmation first."""
    if date == "12-25":
        answer = await ctx.elicit(f"The {date} menu is fixed, {party} guests: confirm?", Booking)
        if answer.action != "accept" or not answer.data.confirm:
            return "not reserved"
    return f"reserved for {party} on {date}"


@mcp.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Summarize a text with the client's model."""
    prompt = f"Summarize: {text}"
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=64,
    )
    return f"{result.model}: {result.content.text}"


@mcp.tool()
async def workspace(ctx: Context) -> list[str]:
    """The client's roots, sorted."""
    listed = await ctx.session.list_roots()
    return sorted(str(root.uri) for root in listed.roots)


if __name__ == "__main__":
    mcp.run()
