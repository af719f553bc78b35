"""Direction A, pure: a 2025-11-25 server behind a 2026-07-28 front (a modern client, a legacy server)."""
