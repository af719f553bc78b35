"""A conformance client of one era that reaches the harness's mock server through the bridge.

The official harness in client mode (``conformance client --command CMD``) starts a mock server per
scenario and runs ``CMD <mock URL>`` with ``MCP_CONFORMANCE_SCENARIO`` (the scenario name) and, for
some scenarios, ``MCP_CONFORMANCE_CONTEXT`` (JSON: pre-registered ``client_id`` / ``client_secret``)
in the environment. This driver is that command. It starts::

    mcp-bridge serve --stdio --upstream <mock URL> [--oauth-... flags]

and talks to the bridge over stdio as a client of ``--era``:

- ``2026-07-28``: mcp 2.3.0's ``Client`` pinned to the stateless 2026-07-28 protocol (run it with the
  project's interpreter); the mock then speaks 2025-11-25 (direction A);
- ``2025-11-25``: mcp 1.x's ``ClientSession`` (run it with the legacy peer interpreter); the mock
  speaks 2026-07-28 (direction B).

What the client does per scenario follows the SDKs' own conformance clients: connect, list the
tools, then call ``add_numbers(5, 3)`` for ``tools_call`` and every listed tool (arguments built from
its input schema) otherwise, and list/read resources and list/get prompts when the server offers
them. Elicitation is accepted with the schema's defaults (SEP-1034), sampling answered with a fixed
text, roots with one root. Tool errors are logged, not fatal: a scenario judges the wire, and some
tools fail on purpose.

Sign-in (``auth/*`` scenarios): the bridge is the OAuth client (issue #35). The driver gives it a fresh
token store, the fixed client ID metadata document URL the SDK conformance clients use, the
pre-registered credentials of ``MCP_CONFORMANCE_CONTEXT`` if any, and ``BROWSER`` set to
``headless_opener.py``, which follows the authorization redirect to the bridge's loopback listener.

Exit status: 0 when the session was set up and the tools listed, 1 otherwise (the harness records it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OPENER = HERE / "headless_opener.py"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
# The client ID metadata document URL the harness's basic-cimd scenario expects (a fixed value in
# the harness and in the SDKs' conformance clients).
CIMD_URL = "https://conformance-test.local/client-metadata.json"
ECHO_TOOL, FOCAL_TOOL = "json_schema_echo", "json_schema_2020_12_tool"  # the schema-preservation scenario's tools
READ_TIMEOUT = 25.0
SAMPLING_TEXT = "conformance sample answer"
ROOT = ("file:///tmp/conformance-root", "conformance-root")


def log(message: str) -> None:
    print(f"client_driver: {message}", file=sys.stderr, flush=True)


# --- SDK-free pieces ------------------------------------------------------------------------------


def context() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    if not raw:
        return {}
    value = json.loads(raw)
    return value if isinstance(value, dict) else {}


def bridge_argv(bridge_python: str, url: str, scenario: str, ctx: dict[str, Any], token_store: str) -> list[str]:
    """The bridge command for one scenario; sign-in flags only where the scenario signs in."""
    argv = [bridge_python, "-m", "mcp_eras.bridge", "serve", "--stdio", "--upstream", url]
    if scenario.startswith("auth/"):
        argv += ["--oauth-token-store", token_store, "--oauth-client-metadata-url", CIMD_URL]
        if ctx.get("client_id"):
            argv += ["--oauth-client-id", str(ctx["client_id"])]
        if ctx.get("client_secret"):
            argv += ["--oauth-client-secret", str(ctx["client_secret"])]
    return argv


def bridge_env(token_store: str) -> dict[str, str]:
    env = dict(os.environ)
    env["BROWSER"] = str(OPENER)
    env.pop("MCP_CONFORMANCE_CONTEXT", None)  # the bridge gets what it needs as flags
    env.setdefault("XDG_CONFIG_HOME", token_store)  # never the user's own token store
    return env


def sample_value(schema: dict[str, Any]) -> Any:
    """A value that satisfies a simple JSON Schema property (default, enum, const or by type)."""
    if "default" in schema:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return {"number": 5, "integer": 3, "boolean": True, "object": {}, "array": [], "null": None}.get(
        str(kind), "test")


def arguments_for(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Arguments for a tool: every property with a default, every required one, nothing else."""
    schema = schema or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    return {name: sample_value(prop or {}) for name, prop in props.items()
            if name in required or "default" in (prop or {})}


def elicitation_content(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Accept content: the schema's defaults (SEP-1034), plus a value for each required field."""
    return arguments_for(schema)


def tool_plan(scenario: str, tools: list[tuple[str, dict[str, Any] | None]],
              ctx: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The calls to make: the ``toolCalls`` the scenario's context names, if any (``http-custom-headers``);
    ``add_numbers(5, 3)`` for ``tools_call``; for ``json-schema-2020-12-preservation`` the focal tool's input schema
    echoed back verbatim as the ``schema`` argument of the echo tool (what that scenario asks of a client);
    otherwise every tool once."""
    names = dict(tools)
    asked = (ctx or {}).get("toolCalls")
    if isinstance(asked, list):
        return [(str(c["name"]), dict(c.get("arguments") or {})) for c in asked if isinstance(c, dict) and "name" in c]
    if scenario == "tools_call":
        return [("add_numbers", {"a": 5, "b": 3})] if "add_numbers" in names else []
    if scenario == "json-schema-2020-12-preservation" and ECHO_TOOL in names:
        return [(ECHO_TOOL, {"schema": names.get(FOCAL_TOOL) or {}})]
    return [(name, arguments_for(schema)) for name, schema in tools]


async def guarded(what: str, call: Callable[[], Awaitable[Any]]) -> Any:
    try:
        result = await call()
    except Exception as exc:  # a refused call is an answer too; the harness judges the wire
        log(f"{what}: {type(exc).__name__}: {exc}")
        return None
    log(f"{what}: ok")
    return result


def callbacks(types: Any, schema_field: str, root_uri: Any) -> tuple[Any, Any, Any]:
    """The client's answers to the server's requests, built from either SDK's ``types`` module."""

    async def elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content=elicitation_content(getattr(params, schema_field, None)))

    async def sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult(role="assistant", model="conformance-driver",
                                         content=types.TextContent(type="text", text=SAMPLING_TEXT))

    async def roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=root_uri, name=ROOT[1])])

    return elicit, sample, roots


async def exercise(peer: Any, tools: list[tuple[str, dict[str, Any] | None]], scenario: str,
                   resources: bool, prompts: bool) -> None:
    """The scenario's calls through ``peer`` (mcp 2.x ``Client`` or mcp 1.x ``ClientSession``: the same methods)."""
    log(f"tools: {[n for n, _ in tools]}")
    for name, args in tool_plan(scenario, tools, context()):
        await guarded(f"tools/call {name}", lambda name=name, args=args: peer.call_tool(name, args))
    if resources:
        found = await guarded("resources/list", peer.list_resources)
        if found is not None and found.resources:
            uri = found.resources[0].uri
            await guarded("resources/read", lambda: peer.read_resource(uri))
    if prompts:
        found = await guarded("prompts/list", peer.list_prompts)
        if found is not None and found.prompts:
            prompt = found.prompts[0]
            args = {a.name: "test" for a in (prompt.arguments or []) if a.required}
            await guarded("prompts/get", lambda: peer.get_prompt(prompt.name, args))


# --- 2026-07-28: mcp 2.3.0 ------------------------------------------------------------------------


async def run_modern(argv: list[str], env: dict[str, str], scenario: str) -> None:
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    elicit, sample, roots = callbacks(types, "requested_schema", ROOT[0])
    client = Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env), mode=MODERN, cache=None,
                    read_timeout_seconds=READ_TIMEOUT, elicitation_callback=elicit, sampling_callback=sample,
                    list_roots_callback=roots,
                    client_info=types.Implementation(name="mcp-eras-conformance-driver", version="0.1.0"))
    async with client:
        listed = await client.list_tools()
        caps = client.server_capabilities
        await exercise(client, [(t.name, t.input_schema) for t in listed.tools], scenario,
                       caps is not None and caps.resources is not None, caps is not None and caps.prompts is not None)


# --- 2025-11-25: mcp 1.x --------------------------------------------------------------------------


async def run_legacy(argv: list[str], env: dict[str, str], scenario: str) -> None:
    from datetime import timedelta

    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
    from pydantic import AnyUrl

    elicit, sample, roots = callbacks(types, "requestedSchema", AnyUrl(ROOT[0]))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(
        read, write, read_timeout_seconds=timedelta(seconds=READ_TIMEOUT), elicitation_callback=elicit,
        sampling_callback=sample, list_roots_callback=roots,
        client_info=types.Implementation(name="mcp-eras-conformance-driver", version="0.1.0"),
    ) as session:
        caps = (await session.initialize()).capabilities
        listed = await session.list_tools()
        await exercise(session, [(t.name, t.inputSchema) for t in listed.tools], scenario,
                       caps.resources is not None, caps.prompts is not None)


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=[MODERN, LEGACY], required=True, help="the client's protocol revision")
    parser.add_argument("--bridge-python", default=sys.executable, help="interpreter that runs mcp_eras.bridge")
    parser.add_argument("url", help="the harness's mock server URL (appended by the harness)")
    options = parser.parse_args(args)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    import anyio

    with tempfile.TemporaryDirectory(prefix="conformance-tokens-") as store:
        os.chmod(store, 0o700)
        argv = bridge_argv(options.bridge_python, options.url, scenario, context(), store)
        env = bridge_env(store)
        log(f"{options.era} client, scenario {scenario!r}: {' '.join(argv[1:])}")
        runner = run_modern if options.era == MODERN else run_legacy
        try:
            anyio.run(runner, argv, env, scenario)
        except Exception as exc:
            log(f"failed: {type(exc).__name__}: {exc}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
