"""Fleet subcommands (probe, verify, reload) registered on the main typer app."""

from __future__ import annotations
