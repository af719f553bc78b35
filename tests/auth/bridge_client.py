"""One client session through ``mcp-bridge serve --stdio`` to an OAuth-protected upstream, for tests/auth.

    python bridge_client.py --era 2026-07-28|2025-11-25 --upstream URL --store DIR [--calls N] [--pause S]
                            [--bridge-python PY]

Run it with the interpreter of the client's era (mcp 2.3.0 for 2026-07-28, mcp 1.x for 2025-11-25). It starts the
bridge with ``--oauth-token-store DIR``, debug logging (on this process's stderr) and ``BROWSER`` set to the
headless opener (its own environment decides where the opener logs), calls the upstream's ``whoami`` tool N
times, ``S`` seconds apart, in the same session, and prints one JSON object: ``{"results": [text or
{"error": message}, ...]}``. Exit status 0 when the session opened (whatever the calls answered), 1 when it
did not.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

OPENER = Path(__file__).resolve().parent.parent / "conformance" / "headless_opener.py"
MODERN, LEGACY = "2026-07-28", "2025-11-25"
READ_TIMEOUT = 90.0  # a call may wait for a sign-in in the (headless) browser


def bridge(options: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    argv = [options.bridge_python, "-m", "mcp_eras.bridge", "serve", "--stdio", "--upstream", options.upstream,
            "--oauth-token-store", options.store, "--log-level", "debug"]
    return argv, {**os.environ, "BROWSER": str(OPENER)}


def text_of(result: Any) -> Any:
    if getattr(result, "isError", False) or getattr(result, "is_error", False):
        return {"error": str(result.content[0].text if result.content else "tool error")}
    return result.content[0].text


async def calls(peer: Any, options: argparse.Namespace) -> list[Any]:
    import anyio

    results: list[Any] = []
    for n in range(options.calls):
        if n:
            await anyio.sleep(options.pause)
        try:
            results.append(text_of(await peer.call_tool("whoami", {})))
        except Exception as exc:  # an error answer is a result here; the test judges it
            results.append({"error": f"{type(exc).__name__}: {exc}"})
    return results


async def modern(options: argparse.Namespace) -> list[Any]:
    from mcp import Client, StdioServerParameters

    argv, env = bridge(options)
    async with Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env), mode=MODERN, cache=None,
                      read_timeout_seconds=READ_TIMEOUT) as client:
        return await calls(client, options)


async def legacy(options: argparse.Namespace) -> list[Any]:
    from datetime import timedelta

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv, env = bridge(options)
    async with stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], env=env)) as (read, write), \
            ClientSession(read, write, read_timeout_seconds=timedelta(seconds=READ_TIMEOUT)) as session:
        await session.initialize()
        return await calls(session, options)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--era", choices=[MODERN, LEGACY], required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--bridge-python", default=sys.executable)
    options = parser.parse_args()
    import anyio

    try:
        results = anyio.run(modern if options.era == MODERN else legacy, options)
    except Exception as exc:
        print(f"bridge_client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
