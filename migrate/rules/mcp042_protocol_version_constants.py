"""MCP042 protocol-version-constants: ``LATEST_PROTOCOL_VERSION`` changed meaning;
``SUPPORTED_PROTOCOL_VERSIONS`` is deprecated and a tuple."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP042",
        "protocol-version-constants",
        Kind.REQUIRED,
        Safety.REPORT,
        '`LATEST_PROTOCOL_VERSION` is now "2026-07-28"; `SUPPORTED_PROTOCOL_VERSIONS` deprecated and a tuple',
        "supported_protocol_versions-deprecated-latest_protocol_version-changed-meaning",
    )
    TRIGGERS = ("PROTOCOL_VERSION",)
    NAMES = frozenset(
        {
            "mcp.shared.version.LATEST_PROTOCOL_VERSION",
            "mcp.shared.version.SUPPORTED_PROTOCOL_VERSIONS",
            "mcp.types.LATEST_PROTOCOL_VERSION",
            "mcp.types.version.SUPPORTED_PROTOCOL_VERSIONS",
        }
    )
    MESSAGE = "protocol version constants changed meaning: use LATEST_HANDSHAKE_VERSION/HANDSHAKE_PROTOCOL_VERSIONS for the handshake"
