"""mcp-bridge: translate the Model Context Protocol between 2025-11-25 and 2026-07-28, both ways."""

from mcp_eras.bridge import _perf

_perf.apply()
