"""Hot-path choices made once at start-up: third-party fixes, and the optional ``mcp-eras[fast]`` extra.

httpcore asks ``import sniffio`` on every request to learn the async library; when sniffio is not
installed that failing import scans ``sys.path`` each time (~0.1 ms per upstream request, measured
with cProfile). Recording the absence once makes later imports fail immediately, which is exactly
what they would do anyway.

``mcp-eras[fast]`` installs uvloop (a libuv event loop) and httptools (llhttp, the HTTP/1.1 parser
uvicorn's ``[standard]`` extra uses). When they are importable the bridge uses them, as uvicorn does
with ``loop="auto"``/``http="auto"``: the HTTP fronts parse requests with httptools and every command
runs on uvloop. ``MCP_BRIDGE_FAST=0`` keeps the pure-Python defaults (asyncio loop, h11) even then.

The fast paths that lean on other libraries' private attributes check them here once, at start (``missing``,
``untested``), and step aside for the normal path with one warning (``fall_back``) when they are not there.
"""

from __future__ import annotations

import asyncio
import dis
import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


def apply() -> None:
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def fast_enabled() -> bool:
    return os.environ.get("MCP_BRIDGE_FAST", "").strip().lower() not in ("0", "false", "no", "off")


def has(module: str) -> bool:
    return fast_enabled() and importlib.util.find_spec(module) is not None


def loop_name() -> str:
    """uvicorn's ``loop`` setting: uvloop when installed (and not turned off), else asyncio."""
    return "uvloop" if has("uvloop") else "asyncio"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop when it is installed (and not turned off)."""
    if has("uvloop"):
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(main)
    return asyncio.run(main)


def _task_of_loop() -> Any:
    """``asyncio.current_task(loop)`` without its Python frame: on 3.11 that function is Python around the task table
    it reads (``asyncio.tasks._current_tasks``, the C accelerator's own); from 3.12 it is C itself. Two calls per
    relayed call use it (a call's deadline, the client-gone watch)."""
    table = getattr(asyncio.tasks, "_current_tasks", None)
    if sys.version_info < (3, 12) and isinstance(table, dict):
        return table.get
    return asyncio.current_task


current_task: Any = _task_of_loop()
"""``current_task(loop)``: the task running on ``loop`` (which must be given: the running loop), or None."""


GC_YOUNG_THRESHOLD = 10_000
"""Container allocations (net of frees) between two young-generation collections (Python's default is 700)."""


def serving() -> None:
    """The process is about to serve: start-up's objects leave the collector's view (``gc.freeze``: a full collection
    no longer walks every module, class and function), and young collections run once per ``GC_YOUNG_THRESHOLD``
    allocations instead of 700. A relayed call frees what it allocates by reference counting; with many calls in
    flight (64 callers) their live objects kept tripping the 700 mark, and each young collection walked them and
    promoted them to older generations (walked again later): 4% of the bridge's instructions per call at 64 callers,
    counted with ``bench/instructions.py``. ``MCP_BRIDGE_GC=default`` keeps Python's settings."""
    if os.environ.get("MCP_BRIDGE_GC", "").strip().lower() == "default":
        return
    import gc

    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


# --- the fast paths' hold on other libraries' internals ---------------------------------------------------------------
# Each fast path (``front.fast_post``, ``front.sse_response``, ``upstream.lean_http``/``http_pool``) names the
# private attributes of uvicorn, Starlette and httpx it relies on, and the versions it was tested on (pinned in
# pyproject.toml). It checks them once, when it is set up: on another version, or when one is gone, the normal path
# serves instead, and ``fall_back`` says so once on stderr.


def assigned(*functions: Callable[..., Any]) -> set[str]:
    """The attribute names these functions assign (``obj.name = ...``): what an instance holds once they ran."""
    return {ins.argval for fn in functions for ins in dis.get_instructions(fn) if ins.opname == "STORE_ATTR"}


def missing(owner: type, names: Iterable[str], *, set_by: Iterable[str] = ("__init__",)) -> list[str]:
    """``owner.name`` for each name that ``owner`` neither defines nor assigns in its ``set_by`` methods (its own or a
    base's)."""
    functions = (vars(cls).get(method) for cls in owner.__mro__ for method in set_by)
    held = assigned(*(f for f in functions if hasattr(f, "__code__")))
    return [f"{owner.__name__}.{name}" for name in names if name not in held and not hasattr(owner, name)]


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def untested(dist: str, lowest: tuple[int, ...], below: tuple[int, ...]) -> str | None:
    """Why ``dist``'s installed version is not one a fast path was tested on (``lowest`` <= v < ``below``), or None."""
    found = version(dist)
    numbers = tuple(int(part) if part.isdigit() else -1 for part in found.split(".")[:len(lowest)])
    if lowest <= numbers < below:
        return None
    span = f">={'.'.join(map(str, lowest))},<{'.'.join(map(str, below))}"
    return f"it was tested on {dist}{span}"


_fallen_back: set[str] = set()


def fall_back(what: str, dist: str, reason: str) -> None:
    """Say once per process, on stderr, that the fast path ``what`` is off: ``dist``'s version and ``reason``."""
    if what in _fallen_back:
        return
    _fallen_back.add(what)
    print(f"mcp-bridge: warning: {what} off with {dist} {version(dist)}: {reason}; the normal path serves instead",
          file=sys.stderr)
