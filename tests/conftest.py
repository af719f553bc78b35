from __future__ import annotations

import pytest

import peers


@pytest.fixture(scope="session")
def legacy_python() -> str:
    return peers.legacy_python()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
