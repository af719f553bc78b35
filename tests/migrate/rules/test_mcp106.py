"""MCP106 era-portable-input (``--modernize``): a tool's mid-call ``ctx.elicit()`` /
``ctx.session.create_message()`` / ``ctx.session.list_roots()`` -> a ``Resolve(...)`` parameter."""

from __future__ import annotations

from pathlib import Path

from migrate_helpers import Case, RuleTests, dedent, migrate_source, migrate_tree

HEAD = "        from mcp.server.mcpserver import Context, MCPServer\n\n        mcp = MCPServer('x')\n"
FAILS = "fails on 2026-07-28 connections and is not rewritten, because "
NESTED = ("it is asked in a loop, an else/except branch or inside an expression; ask through {} that decides from "
          "the tool's arguments")
REVIEW = "the input requests now run in resolvers before the body, so {}: check that this is right"
FIRST = "the question comes before statements that used to run first"
TRY = "errors of the request are no longer caught by the `try` around it"
HOW = "a resolver (`Annotated[T, Resolve(fn)]`, `fn` returning `{}(...)` from mcp.server.mcpserver)"

CASES: list[Case] = [
    # the answer bound to a name: that name becomes the parameter, the question's arguments the resolver's
    Case("MCP106", HEAD + '''

        @mcp.tool()
        async def ask(city: str, ctx: Context) -> str:
            """Ask."""
            answer = await ctx.elicit(f"Units for {city}?", Units)
            return answer.action
        ''', '''\
        from typing import Annotated

        from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve

        mcp = MCPServer('x')


        async def _ask_answer(city: str) -> Elicit[Units]:
            return Elicit(f"Units for {city}?", Units)


        @mcp.tool()
        async def ask(city: str, ctx: Context, answer: Annotated[ElicitationResult[Units], Resolve(_ask_answer)]) -> str:
            """Ask."""
            return answer.action
        ''', {"fixed"}),
    # sampling read through an attribute (tools offered: the SDK injects the WithTools result), keyword-only after a
    # defaulted parameter; an unused answer; roots inside a call's argument: marked
    Case("MCP106", HEAD + '''

        @mcp.tool()
        async def summary(text: str, ctx: Context, limit: int = 10) -> str:
            return (await ctx.session.create_message(messages=[msg(text)], max_tokens=limit, tools=TOOLS)).model


        @mcp.tool()
        async def roots(ctx: Context) -> int:
            await ctx.elicit(message="ready?", schema=Ok)
            return len((await ctx.request_context.session.list_roots()).roots)
        ''', '''\
        from typing import Annotated

        from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve, Sample
        from mcp.types import CreateMessageResultWithTools

        mcp = MCPServer('x')


        async def _summary_sampled(text: str, limit: int) -> Sample:
            return Sample(messages=[msg(text)], max_tokens=limit, tools=TOOLS)


        @mcp.tool()
        async def summary(text: str, ctx: Context, limit: int = 10, *, sampled: SAMPLED) -> str:
            return sampled.model


        async def _roots_elicited() -> Elicit[Ok]:
            return Elicit(message="ready?", schema=Ok)


        @mcp.tool()
        async def roots(ctx: Context, elicited: Annotated[ElicitationResult[Ok], Resolve(_roots_elicited)]) -> int:
            # TODO(mcp-migrate MCP106): `ctx.request_context.session.list_roots()` FAILSROOTS
            return len((await ctx.request_context.session.list_roots()).roots)
        '''.replace("FAILS", FAILS).replace("ROOTS", NESTED.format(HOW.format("ListRoots"))).replace(
            "SAMPLED", "Annotated[CreateMessageResultWithTools, Resolve(_summary_sampled)]"), {"fixed", "manual"}, 1),
    # statements before the question: it is asked first now (review marker on the handler); a name bound before
    # cannot be the parameter: a fresh one is, and the assignment stays
    Case("MCP106", HEAD + '''

        # booking
        @mcp.tool()
        async def book(date: str, ctx: Context) -> str:
            await ctx.info("booking")
            answer = None
            answer = await ctx.elicit(f"Book {date}?", schema=Booking)
            return answer.action
        ''', '''\
        from typing import Annotated

        from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve

        mcp = MCPServer('x')


        # booking
        async def _book_elicited(date: str) -> Elicit[Booking]:
            return Elicit(f"Book {date}?", schema=Booking)


        # TODO(mcp-migrate MCP106): REVIEW
        @mcp.tool()
        async def book(date: str, ctx: Context, elicited: ELICITED) -> str:
            await ctx.info("booking")
            answer = None
            answer = elicited
            return answer.action
        '''.replace("REVIEW", REVIEW.format(FIRST)).replace("ELICITED", "Annotated[ElicitationResult[Booking], Resolve(_book_elicited)]"),
        {"review"}, 1),
    # a tool defined in a factory: the resolver goes next to it (its name is resolved where the tool is defined)
    Case("MCP106", """\
        from mcp.server.mcpserver import Context, MCPServer


        def create() -> MCPServer:
            mcp = MCPServer('x')

            @mcp.tool
            async def ask(ctx: Context) -> str:
                roots = await ctx.session.list_roots()
                return str(roots)

            return mcp
        """, """\
        from typing import Annotated

        from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
        from mcp.types import ListRootsResult


        def create() -> MCPServer:
            mcp = MCPServer('x')

            async def _ask_roots() -> ListRoots:
                return ListRoots()

            @mcp.tool
            async def ask(ctx: Context, roots: Annotated[ListRootsResult, Resolve(_ask_roots)]) -> str:
                return str(roots)

            return mcp
        """, {"fixed"}),
    # ... but not under `from __future__ import annotations` (the SDK then looks names up in module globals)
    Case("MCP106", """
        from __future__ import annotations
        from mcp.server.mcpserver import Context, MCPServer


        def create() -> MCPServer:
            mcp = MCPServer('x')

            @mcp.tool()
            async def ask(ctx: Context) -> str:
                return str(await ctx.session.list_roots())

            return mcp
        """, None, {"manual"}, 1),
    # a local computed from the arguments without side effects is computed again in the resolver (and leaves the
    # handler when nothing else reads it); a `try` around the request: review marker; asked under an `if`: the
    # resolver asks under the same test, and the `if` block keeps the rest
    Case("MCP106", HEAD + '''

        @mcp.tool()
        async def poem(topic: str, ctx: Context) -> str:
            """Poem."""
            prompt = f"Write about {topic}"
            try:
                # ask the model
                result = await ctx.session.create_message(messages=[msg(prompt)], max_tokens=100)
                return result.model
            except Exception as e:
                return str(e)


        @mcp.tool()
        async def book(date: str, ctx: Context) -> str:
            if date == "2024-12-25":
                result = await ctx.elicit(message=f"{date} is full: another?", schema=Prefs)

                if result.action == "accept":
                    return result.data.when
                return "cancelled"
            return date
        ''', '''\
        from typing import Annotated

        from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve, Sample
        from mcp.types import CreateMessageResult

        mcp = MCPServer('x')


        async def _poem_result(topic: str) -> Sample:
            prompt = f"Write about {topic}"
            return Sample(messages=[msg(prompt)], max_tokens=100)


        # TODO(mcp-migrate MCP106): REVIEW
        @mcp.tool()
        async def poem(topic: str, ctx: Context, result: Annotated[CreateMessageResult, Resolve(_poem_result)]) -> str:
            """Poem."""
            try:
                return result.model
            except Exception as e:
                return str(e)


        async def _book_result(date: str) -> Elicit[Prefs] | None:
            if date == "2024-12-25":
                return Elicit(message=f"{date} is full: another?", schema=Prefs)
            return None


        @mcp.tool()
        async def book(date: str, ctx: Context, result: Annotated[ElicitationResult[Prefs], Resolve(_book_result)]) -> str:
            if date == "2024-12-25":
                if result.action == "accept":
                    return result.data.when
                return "cancelled"
            return date
        '''.replace("REVIEW", REVIEW.format(TRY)), {"review", "fixed"}, 1),
    # shapes a resolver cannot take: each gets a marker saying why and what to do
    Case("MCP106", HEAD + '''

        @mcp.tool()
        async def branch(date: str, ctx: Context) -> str:
            for day in date.split():
                answer = await ctx.elicit(f"Book {day}?", Booking)
            day = date.strip()
            again = await ctx.elicit(f"Book {day}?", Booking)
            sampled = await ctx.session.create_message(messages=[], max_tokens=5, related_request_id=ctx.request_id)
            return "x"


        @mcp.prompt()
        async def prompt(ctx: Context) -> str:
            roots = await ctx.session.list_roots()
            return str(roots)


        async def helper(ctx: Context) -> object:
            return await ctx.elicit("Sure?", Ok)


        @mcp.tool()
        async def other_forms(ctx: Context) -> str:
            url = await ctx.elicit_url("Sign in", "https://example.com", elicitation_id="1")
            raw = await ctx.session.elicit("Name?", {"type": "object"})
            return url.action + raw.action
        ''', None, {"manual"}, 7),
]

NEGATIVE: list[str] = [
    # not a Context: another object's elicit/list_roots
    dedent(HEAD) + "@mcp.tool()\nasync def t(client: Client) -> str:\n    x = await client.elicit('a', B)\n"
           "    return str(await client.session.list_roots())\n",
    # already era-portable
    "from typing import Annotated\nfrom mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve\n"
    "mcp = MCPServer('x')\nasync def _ask() -> Elicit[B]:\n    return Elicit('a', B)\n@mcp.tool()\n"
    "async def t(a: Annotated[B, Resolve(_ask)]) -> str:\n    return str(a)\n",
]


class TestMCP106(RuleTests):
    rule = "MCP106"
    cases = CASES
    negative = NEGATIVE


def test_opt_in_only() -> None:
    """Not a default rule: only ``--modernize`` (or selecting MCP106) rewrites."""
    new, findings = migrate_source(CASES[0].before)
    assert "Resolve" not in new and "MCP106" not in {f.rule for f in findings}


def test_with_the_default_rules_the_advisory_of_a_rewritten_site_goes(tmp_path: Path) -> None:
    """With the v1 imports and every default rule: one pass migrates and modernizes, and MCP207 ("raises
    NoBackChannelError") is no longer reported for the sites that now ask through a resolver."""
    source = dedent('''
        from mcp.server.fastmcp import Context, FastMCP
        mcp = FastMCP("x", version="1")
        @mcp.tool()
        async def ask(ctx: Context) -> str:
            roots = await ctx.session.list_roots()
            return str(len(roots.roots))
        @mcp.prompt()
        async def p(ctx: Context) -> str:
            return str(await ctx.session.list_roots())
        ''')
    (tmp_path / "server.py").write_text(source)
    assert migrate_tree(tmp_path, "--modernize", "--markers", "all") == 0
    new = (tmp_path / "server.py").read_text()
    assert "from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve\n" in new
    assert "from mcp.types import ListRootsResult\n" in new
    assert "roots: Annotated[ListRootsResult, Resolve(_ask_roots)]" in new
    assert new.count("TODO(mcp-migrate MCP207)") == 1 and new.count("TODO(mcp-migrate MCP106)") == 1
    assert migrate_tree(tmp_path, "fix", "--diff", "--modernize", "--markers", "all") == 0  # converged
    (tmp_path / "server.py").write_text(source)
    assert migrate_tree(tmp_path, "--modernize", "--ignore", "MCP106") == 0
    assert "Resolve" not in (tmp_path / "server.py").read_text()


def test_two_questions_in_a_row_keep_their_order_without_a_review(tmp_path: Path) -> None:
    """Resolvers run in parameter order: a second question after the first needs no review marker; a local
    read from the Context (a per-request value) is not computed again in a resolver."""
    new, findings = migrate_source(HEAD + '''

        @mcp.tool()
        async def two(ctx: Context) -> str:
            name = await ctx.elicit("Name?", Name)
            color = await ctx.elicit("Color?", Color)
            rid = ctx.request_id
            again = await ctx.elicit(f"Sure, {rid}?", Ok)
            return f"{name.action} {color.action} {again.action}"
        ''', "MCP106")
    assert [(f.status, f.message.split(",")[0]) for f in findings] == [
        ("fixed", "-> the `name` parameter"), ("fixed", "-> the `color` parameter"),
        ("manual", "`ctx.elicit()` fails on 2026-07-28 connections and is not rewritten")]
    assert "its arguments use `rid`" in findings[2].message
    assert "name: Annotated[ElicitationResult[Name], Resolve(_two_name)], color: Annotated" in new


def test_modernize_from_the_project_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-migrate]\nmodernize = true\n")
    (tmp_path / "server.py").write_text(dedent(CASES[0].before))
    assert migrate_tree(tmp_path) == 0
    assert "Resolve(_ask_answer)" in (tmp_path / "server.py").read_text()
