"""MCP046 mount-path-removed: ``mount_path`` is gone from the server constructor and start methods."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP046", "mount-path-removed", Kind.REQUIRED, Safety.REVIEW,
        'Drop `mount_path` from the constructor, `run()`, `run_sse_async()`, `sse_app()`',
        'mount_path-parameter-removed-from-mcpserver',
    )
    TRIGGERS = ("mount_path",)
    CALLEES = SERVER_CLASS
    METHODS = frozenset({"run", "run_sse_async", "sse_app"})
    RECEIVERS = SERVER_CLASS
    DROP_KW = frozenset({"mount_path"})
    REVIEW = True
    MESSAGE = "`mount_path` dropped: mount the app under that path with Starlette's Mount instead"
