"""A 2025 session keeps at most ``streams.POST_STREAMS_KEPT`` POST streams for replay (issue #33, acceptance 3).

Each call answered on an SSE stream left a stream record (about 1 KB, not counted by the byte ledgers) for the whole
retention: through a real bridge process, a session of elicitation round trips grew by 2 to 3 KB per call (6,000 calls:
+17 MB) although its kept events stayed within their byte cap. Past the count the oldest ended streams are forgotten.
"""

from __future__ import annotations

import pytest
from test_legacy_session_memory import big_answer, delete, front, session

from mcp_eras.bridge.translate.legacy_client import streams

pytestmark = pytest.mark.anyio

KEPT = 16


async def test_a_session_keeps_at_most_the_newest_post_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "POST_STREAMS_KEPT", KEPT)
    async with front() as (_upstream, legacy, app):
        client = await session(app)
        for n in range(1, 3 * KEPT + 1):
            await big_answer(client, n, 16)
        (slot,) = legacy.sessions.values()
        post = [key for key in slot.streams if key != streams.GET_KEY]
        assert len(post) <= KEPT, f"{len(post)} POST streams kept"
        newest = await client.get_stream({"last-event-id": f"{post[-1]}.0"})  # the newest stays resumable
        assert (await newest.messages())[-1]["id"] == 3 * KEPT
        oldest = await client.get_stream({"last-event-id": "p1.0"})  # forgotten: a fresh GET stream, not a replay
        assert oldest.is_sse
        await delete(client)
    assert not legacy.sessions
