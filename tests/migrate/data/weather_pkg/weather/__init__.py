"""Weather demo server (v1 layout)."""

from .app import mcp

__all__ = ["mcp"]
