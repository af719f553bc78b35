"""Direction B, pure: where the upstream's notifications during a 2025 client's request go.

On that request's stream when they are about it (progress, logs: 2025-11-25 basic/transports.mdx §Sending Messages
to the Server item 6, the SSE stream of the POST), to the session's stream of unsolicited messages when they are list
changes (§Listening for Messages from the Server: the GET stream on HTTP), nowhere else. The shell
(``mcp_eras.bridge.front.legacy_runner``) sends them.
"""

from __future__ import annotations

from enum import Enum

from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import session as ls


class NoteTo(Enum):
    """Where an upstream notification during a 2025 request goes."""

    REQUEST = "request"
    """The request's own stream (progress, logs)."""
    SESSION = "session"
    """The session's unsolicited messages (list changes: the GET stream on HTTP)."""


def route_note(state: ls.SessionState, level: str | None, note: Message) -> tuple[NoteTo, Message] | None:
    """Where an upstream notification during a request goes, as which frame; None when the client gets none of it
    (progress that does not increase, logs below the level the request started with, what a 2025 client has no
    notification for)."""
    method = note.get("method")
    if method == "notifications/progress":
        return (NoteTo.REQUEST, note) if ls.admit_progress(state, note) else None
    if method == "notifications/message":
        return (NoteTo.REQUEST, note) if ls.admit_log(level, note) else None
    out = lf.to_legacy_notification(note)
    if out is not None and out.get("method") in lf.LISTEN_NOTIFICATIONS:
        return NoteTo.SESSION, out
    return None
