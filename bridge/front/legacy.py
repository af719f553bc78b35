"""The 2025-11-25 front: a legacy session (Streamable HTTP or stdio) served from a canonical upstream.

The pieces, by concept:

* ``mcp_eras.bridge.translate.legacy_client.session`` / ``legacy_client.mrtr`` / ``legacy_client.listen``: the rules (pure, plain data);
* ``mcp_eras.bridge.front.legacy_runner``: one session's tasks and futures; ``legacy_listener``: its upstream listen;
* ``mcp_eras.bridge.front.legacy_http``: the Streamable HTTP front; ``event_stream``: its replayable SSE streams;
* ``mcp_eras.bridge.front.legacy_stdio``: the stdio front.

This module names the two entry points the CLI and the fleet build.
"""

from __future__ import annotations

from mcp_eras.bridge.front.legacy_http import LegacyHttpFront
from mcp_eras.bridge.front.legacy_stdio import LegacyStdioSession

__all__ = ["LegacyHttpFront", "LegacyStdioSession"]
