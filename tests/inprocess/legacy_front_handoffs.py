"""Count shell -> core hand-offs on direction B's walks: a 2025 ``tools/call`` through the stdio legacy front
to a 2026 server, plain and with one ``input_required`` round (same counter as ``handoffs.py``).

Run as a script to print the numbers (``python tests/inprocess/legacy_front_handoffs.py``);
``test_legacy_front_handoffs.py`` pins an upper bound.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from handoffs import count_handoffs  # noqa: E402
from legacy_front_fakes import ListeningUpstream  # noqa: E402

from mcp_eras.bridge.config import Settings  # noqa: E402
from mcp_eras.bridge.front.legacy import LegacyStdioSession  # noqa: E402
from mcp_eras.bridge.translate import jsonrpc  # noqa: E402


class Client:
    """One 2025 stdio client, kept across the warm-up walk and the counted one."""

    def __init__(self) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.session = LegacyStdioSession(ListeningUpstream(capabilities={"tools": {}}), Settings(), self.frames.put)
        self.ids = 0
        self.ready = False

    async def response(self, rid: Any) -> dict[str, Any]:
        while True:
            async with asyncio.timeout(10):
                frame = await self.frames.get()
            if frame.get("id") == rid and "method" not in frame:
                return frame
            if frame.get("method") == "elicitation/create":
                await self.session.on_frame(jsonrpc.result_response(frame["id"], {"action": "accept", "content": {"name": "Ada"}}))

    async def call(self, name: str) -> dict[str, Any]:
        if not self.ready:
            await self.session.on_frame(jsonrpc.request("init", "initialize", {
                "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "c", "version": "1"}}))
            await self.response("init")
            self.ready = True
        self.ids += 1
        await self.session.on_frame(jsonrpc.request(self.ids, "tools/call", {"name": name, "arguments": {"text": "hi"}}))
        return await self.response(self.ids)


def walk(name: str, expected: str) -> Any:
    client: list[Client] = []

    async def run(_unused: Any) -> None:
        if not client:
            client.append(Client())
        response = await client[0].call(name)
        assert response["result"]["content"][0]["text"] == expected, response

    return run


plain_call = walk("echo", "hi")
mrtr_call = walk("ask", "Ada")


if __name__ == "__main__":
    for label, w in (("2025 tools/call", plain_call), ("2025 tools/call with one input_required round", mrtr_call)):
        total, by_name = count_handoffs(w)
        print(f"{label}: {total} hand-offs")
        for name, n in sorted(by_name.items()):
            print(f"    {n:3d}  {name}")
