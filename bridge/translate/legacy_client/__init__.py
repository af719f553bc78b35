"""Direction B, pure: a 2025-11-25 client in front of a 2026-07-28 server (a legacy client, a modern server)."""
