"""``python -m mcp_eras.migrate`` is ``mcp-migrate``."""

from mcp_eras.migrate.cli import main

main()
