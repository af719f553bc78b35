"""The mcp-migrate tests' shared helpers (``migrate_helpers``) get pytest's assertion messages too."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("migrate_helpers")
