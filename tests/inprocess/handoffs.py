"""Count hand-offs between shell and core on one walk: a 2026 ``tools/call`` to a legacy (stdio-like) server.

A hand-off is one call from shell code (``bridge/upstream``, ``bridge/front``) into pure-core code
(``bridge/translate``). Counted with a profile hook on the running thread, so it sees methods of
machine objects as well as module functions. Run as a script to print the numbers
(``python tests/inprocess/handoffs.py``); ``test_handoffs.py`` pins an upper bound.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_legacy import TransportBank  # noqa: E402

from mcp_eras.bridge.config import Settings  # noqa: E402
from mcp_eras.bridge.core import CallContext, discard  # noqa: E402
from mcp_eras.bridge.upstream.legacy import LegacyUpstream  # noqa: E402

CORE = "/bridge/translate/"
# Framing helpers every layer uses (``jsonrpc.is_response``...) live in the pure core too, but a call to one is not a
# hand-off of an event to a machine: they were counted as shell code before they moved into ``translate``.
VOCABULARY = ("/bridge/translate/jsonrpc.py", "/bridge/translate/eras.py")
SHELLS = ("/bridge/upstream/", "/bridge/front/", "/bridge/layers/")


def tools_call(rid: int, name: str = "echo", caps: dict[str, Any] | None = None, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
        "name": name, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": caps or {},
                  "io.modelcontextprotocol/clientInfo": {"name": "counter", "version": "1"}}}}


def count_handoffs(walk: Any) -> tuple[int, Counter[str]]:
    """Run ``walk`` (a coroutine function taking the upstream) twice; count the hand-offs of the second run."""
    seen: Counter[str] = Counter()
    counting = False

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if not counting or event != "call":
            return
        callee = frame.f_code.co_filename
        caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
        if CORE in callee and not callee.endswith(VOCABULARY) and any(s in caller for s in SHELLS):
            seen[f"{Path(callee).stem}.{frame.f_code.co_name}"] += 1

    async def main() -> None:
        nonlocal counting
        upstream = LegacyUpstream(TransportBank(), Settings(), name="count")
        await walk(upstream)  # warm: the session is initialized once
        sys.setprofile(profile)
        counting = True
        try:
            await walk(upstream)
        finally:
            counting = False
            sys.setprofile(None)
            await upstream.aclose()

    asyncio.run(main())
    return sum(seen.values()), seen


async def plain_call(upstream: LegacyUpstream) -> None:
    response = await upstream.call(tools_call(1, text="hi"), CallContext(), discard)
    assert response["result"]["content"][0]["text"] == "hi", response


async def mrtr_call(upstream: LegacyUpstream) -> None:
    caps = {"elicitation": {}}
    first = await upstream.call(tools_call(1, "ask", caps), CallContext(), discard)
    result = first["result"]
    assert result["resultType"] == "input_required", first
    retry = tools_call(2, "ask", caps)
    retry["params"]["requestState"] = result["requestState"]
    retry["params"]["inputResponses"] = {k: {"action": "accept", "content": {}} for k in result["inputRequests"]}
    final = await upstream.call(retry, CallContext(), discard)
    assert final["result"]["content"][0]["text"] == "accept", final


if __name__ == "__main__":
    for label, walk in (("tools/call", plain_call), ("tools/call with one input_required round", mrtr_call)):
        total, by_name = count_handoffs(walk)
        print(f"{label}: {total} hand-offs")
        for name, n in sorted(by_name.items()):
            print(f"    {n:3d}  {name}")
