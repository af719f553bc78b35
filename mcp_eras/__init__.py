"""mcp-eras: the Model Context Protocol across its 2025-11-25 and 2026-07-28 revisions.

``mcp_eras.bridge`` (the ``mcp-bridge`` command) and ``mcp_eras.migrate`` (``mcp-migrate``) are the two
tools; ``mcp-eras`` is the umbrella command that reaches both (``mcp_eras.cli``).
"""

from importlib import metadata

try:
    __version__ = metadata.version("mcp-eras")
except metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"
