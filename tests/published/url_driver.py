"""``driver.py``'s plans against an MCP endpoint URL (Streamable HTTP) instead of a command.

Usage::

    url_driver.py --mode MODE --plan JSON --url URL [--roots DIR ...]

Same SDKs, modes, callbacks and output as ``driver.py`` (whose plan runner it reuses), so an answer through the
bridge's HTTP front compares with ``==`` to one through its stdio front or a direct connection.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import driver  # (this script's own folder is first on sys.path)


async def run_v2(args: argparse.Namespace, plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import mcp_types as types
    from mcp import Client

    async def sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult.model_validate(driver.SAMPLED)

    async def roots(context: Any) -> Any:
        return driver.roots_result(types, args.roots)

    client = Client(args.url, mode=args.mode, cache=None, read_timeout_seconds=60, sampling_callback=sample,
                    list_roots_callback=roots if args.roots else None,
                    client_info=types.Implementation(name="published-driver", version="1"))
    async with client:
        return await driver.run_plan(client, plan)


async def run_v1(args: argparse.Namespace, plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from mcp import ClientSession, types
    from mcp.client.streamable_http import streamablehttp_client

    async def sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult.model_validate(driver.SAMPLED)

    async def roots(context: Any) -> Any:
        return driver.roots_result(types, args.roots)

    async with streamablehttp_client(args.url) as (read, write, _sid), ClientSession(
        read, write, sampling_callback=sample, list_roots_callback=roots if args.roots else None,
        client_info=types.Implementation(name="published-driver", version="1"),
    ) as session:
        await session.initialize()
        return await driver.run_plan(session, plan, args.roots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--plan", required=True)
    parser.add_argument("--roots", nargs="*", default=[])
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    steps = anyio.run(run_v2 if driver.V2 else run_v1, args, json.loads(args.plan))
    json.dump({"steps": steps}, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
