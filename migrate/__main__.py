"""``python -m migrate`` is ``mcp-migrate``."""

from migrate.cli import main

main()
