"""Run a plan of MCP operations with a real SDK client and print era-neutral JSON of the answers.

Runs under either SDK: ``mcp`` 2.3.0 (``mcp.Client``; ``--mode legacy|auto|2026-07-28``) or
``mcp`` 1.29 (``ClientSession``, always 2025-11-25). Usage::

    driver.py --mode MODE --plan JSON [--roots DIR ...] -- COMMAND [ARGS ...]

The plan is a JSON list of steps: ``{"op": "list_tools"}``, ``{"op": "call_tool", "name": N,
"args": {...}}``, ``{"op": "list_resources"}``, ``{"op": "read_resource", "uri": U}``,
``{"op": "list_prompts"}``, ``{"op": "get_prompt", "name": N, "args": {...}}``. The output is one
JSON object: ``{"steps": [{"op": ..., "result" | "error": ...}, ...]}`` with era-specific and volatile
fields removed (``_meta``, ``resultType``, ``ttlMs``, ``cacheScope``, cursors, a false ``isError``), so
the same plan run directly and through the bridge can be compared with ``==``.

A ``call_tool`` step with ``"until_changed": true`` repeats the call (at most ``MAX_REPEATS`` times)
until its answer differs from that tool's previous answer and reports the last one: a server that applies
what the client told it asynchronously (server-filesystem applies the client's roots after answering
``roots/list``, while calls go on) races the next call even on a direct connection; the repeated call
waits for the state to change through the protocol itself, and gives the old answer if it never does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp

V2 = hasattr(mcp, "Client")  # mcp 2.x has the high-level Client; 1.x only ClientSession
DROP = {"_meta", "resultType", "ttlMs", "cacheScope", "nextCursor"}
MAX_REPEATS = 500
"""Bound of an ``until_changed`` step (see the module docstring)."""
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "sampled"}, "model": "test-model", "stopReason": "endTurn"}


def neutral(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: neutral(v) for k, v in value.items() if k not in DROP and not (k == "isError" and v is False)}
    if isinstance(value, list):
        return [neutral(v) for v in value]
    return value


def dump(model: Any) -> Any:
    if model is None:
        return None
    return neutral(model.model_dump(mode="json", by_alias=True, exclude_none=True))


def error_of(exc: BaseException) -> dict[str, Any]:
    err = getattr(exc, "error", None)
    code = getattr(err, "code", None) if err is not None else getattr(exc, "code", None)
    return {"code": code, "type": type(exc).__name__ if code is None else "MCPError"}


async def run_plan(session: Any, plan: list[dict[str, Any]], roots: list[str] | None = None) -> list[dict[str, Any]]:
    out = []
    last: dict[str, Any] = {}  # the latest result of each tool, for until_changed
    for step in plan:
        op = step["op"]
        try:
            if op == "list_tools":
                result = await session.list_tools()
            elif op == "call_tool":
                result = await session.call_tool(step["name"], step.get("args", {}))
                for _ in range(MAX_REPEATS if step.get("until_changed") else 0):
                    if dump(result) != last.get(step["name"]):
                        break
                    result = await session.call_tool(step["name"], step.get("args", {}))
                last[step["name"]] = dump(result)
            elif op == "set_roots":  # the client's roots change (2025-11-25 client/roots.mdx §Root List Changes)
                assert roots is not None
                roots[:] = step["roots"]
                await session.send_roots_list_changed()
                result = None
            elif op == "list_resources":
                result = await session.list_resources()
            elif op == "read_resource":
                result = await session.read_resource(step["uri"])
            elif op == "list_prompts":
                result = await session.list_prompts()
            elif op == "get_prompt":
                result = await session.get_prompt(step["name"], step.get("args", {}))
            else:
                raise ValueError(f"unknown op {op}")
            out.append({"op": op, "result": dump(result)})
        except Exception as exc:  # noqa: BLE001 - every failure is an answer to compare
            out.append({"op": op, "error": error_of(exc)})
    return out


def roots_result(types: Any, roots: list[str]) -> Any:
    return types.ListRootsResult(roots=[types.Root(uri=Path(r).resolve().as_uri(), name=Path(r).name) for r in roots])


async def run_v2(args: argparse.Namespace, plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    async def sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult.model_validate(SAMPLED)

    async def roots(context: Any) -> Any:
        return roots_result(types, args.roots)

    client = Client(StdioServerParameters(command=args.command[0], args=args.command[1:], env=dict(os.environ)), mode=args.mode, cache=None,
                    read_timeout_seconds=60, sampling_callback=sample, list_roots_callback=roots if args.roots else None,
                    client_info=types.Implementation(name="published-driver", version="1"))
    async with client:
        return await run_plan(client, plan)


async def run_v1(args: argparse.Namespace, plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client

    async def sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult.model_validate(SAMPLED)

    async def roots(context: Any) -> Any:
        return roots_result(types, args.roots)

    # the SDKs pass only a safe subset of the environment by default; the test sets server variables
    params = StdioServerParameters(command=args.command[0], args=args.command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(
        read, write, sampling_callback=sample, list_roots_callback=roots if args.roots else None,
        client_info=types.Implementation(name="published-driver", version="1"),
    ) as session:
        await session.initialize()
        return await run_plan(session, plan, args.roots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--plan", required=True)
    parser.add_argument("--roots", nargs="*", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    plan = json.loads(args.plan)
    steps = anyio.run(run_v2 if V2 else run_v1, args, plan)
    json.dump({"steps": steps}, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
