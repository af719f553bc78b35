"""Introspect an MCP server module under whichever `mcp` major is installed (run as a script).

    python migrate_introspect.py FILE

Imports FILE (as part of its package when it sits in one), finds the server instances it builds
(module-level objects, or instances created by calling its ``main`` with the event loop and
uvicorn stubbed out), connects an in-memory client and prints JSON: tools (name + input schema),
prompts (name + arguments), resources (name + uri) and resource templates (name + uriTemplate).
Exit code 3 means the module did not import; 4 means no server instance was found.

With ``MIGRATE_INTROSPECT_RUN=1`` a module whose servers are only built inside the coroutine its
``main`` runs (packaged stdio servers: ``asyncio.run(serve())``) is run for real up to the point where
it would start serving: the stdio transport, ``Server.run`` and uvicorn stop it there, with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any


class _Stop(BaseException):
    pass


def _field(obj: Any, *names: str) -> Any:
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return None


def _import(path: Path) -> Any:
    parts = [path.stem] if path.stem != "__init__" else []
    parent = path.parent
    while (parent / "__init__.py").exists():
        parts.insert(0, parent.name)
        parent = parent.parent
    sys.path.insert(0, str(parent))
    sys.argv = [str(path)]
    return importlib.import_module(".".join(parts))


def _server_classes() -> tuple[type, ...]:
    from mcp.server.lowlevel.server import Server

    classes: list[type] = [Server]
    for name in ("mcp.server.mcpserver", "mcp.server.fastmcp"):
        with contextlib.suppress(Exception):
            classes.append(importlib.import_module(name).__dict__.get("MCPServer")
                           or importlib.import_module(name).__dict__["FastMCP"])
    return tuple(classes)


def _lowlevel(server: Any) -> Any:
    return getattr(server, "_mcp_server", None) or getattr(server, "_lowlevel_server", None) or server


def _record(classes: tuple[type, ...]) -> tuple[list[Any], dict[Any, Any]]:
    """Make every server constructed from now on land in the returned list (``_unrecord`` undoes it)."""
    created: list[Any] = []
    originals: dict[Any, Any] = {}
    for cls in classes:
        original = cls.__init__

        def record(self: Any, *a: Any, __orig: Any = original, **k: Any) -> None:
            __orig(self, *a, **k)
            created.append(self)

        originals[cls] = original
        cls.__init__ = record  # type: ignore[method-assign]
    return created, originals


def _unrecord(originals: dict[Any, Any]) -> None:
    for cls, original in originals.items():
        cls.__init__ = original  # type: ignore[method-assign]


def _outermost(created: list[Any]) -> list[Any]:
    """A high-level server owns a lowlevel one: keep only the outermost objects."""
    inner = {id(_lowlevel(s)) for s in created if _lowlevel(s) is not s}
    return [s for s in created if id(s) not in inner]


def _call_main(module: Any, coroutine: Any) -> None:
    """Call the module's ``main`` (a click command with no arguments), handing a coroutine it returns
    to ``coroutine``; whatever it raises is swallowed (the servers built until then are what counts)."""
    entry = getattr(module, "main", None)
    if entry is None:
        return
    with contextlib.suppress(_Stop, SystemExit, Exception):
        if hasattr(entry, "main"):  # click command
            entry.main(args=[], standalone_mode=False)
        else:
            result = entry()
            if asyncio.iscoroutine(result):
                coroutine(result)


def _capture_from_main(module: Any, classes: tuple[type, ...]) -> list[Any]:
    """Call ``main`` with the loop/uvicorn stubbed so the servers it builds are recorded."""
    created, originals = _record(classes)

    def stop(*_a: Any, **_k: Any) -> Any:
        raise _Stop

    import anyio
    patches = [(anyio, "run"), (asyncio, "run")]
    with contextlib.suppress(ImportError):
        import uvicorn
        patches += [(uvicorn, "run")]
    saved = [(obj, name, getattr(obj, name)) for obj, name in patches]
    for obj, name, _ in saved:
        setattr(obj, name, stop)
    try:
        _call_main(module, lambda coroutine: coroutine.close())
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        _unrecord(originals)
    return _outermost(created)


def _capture_by_running(module: Any, classes: tuple[type, ...]) -> list[Any]:
    """Run ``main`` for real until the server it builds would start serving (see the module doc)."""
    created, originals = _record(classes)

    @contextlib.asynccontextmanager
    async def stop_transport(*_a: Any, **_k: Any) -> Any:
        raise _Stop
        yield  # pragma: no cover - an async generator, never reached

    async def stop_run(*_a: Any, **_k: Any) -> Any:
        raise _Stop

    def stop(*_a: Any, **_k: Any) -> Any:
        raise _Stop

    real_run = asyncio.run

    def run(main: Any, **_k: Any) -> Any:
        return real_run(asyncio.wait_for(main, 30))

    import mcp.server.stdio as stdio
    from mcp.server.lowlevel.server import Server

    patches: list[tuple[Any, str, Any]] = [(asyncio, "run", run), (Server, "run", stop_run),
                                           (stdio, "stdio_server", stop_transport)]
    for loaded in list(sys.modules.values()):  # names bound by `from mcp.server.stdio import stdio_server`
        if getattr(loaded, "stdio_server", None) is stdio.stdio_server and loaded is not stdio:
            patches.append((loaded, "stdio_server", stop_transport))
    with contextlib.suppress(ImportError):
        import uvicorn
        patches += [(uvicorn, "run", stop), (uvicorn.Server, "serve", stop_run)]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    for obj, name, value in patches:
        setattr(obj, name, value)
    try:
        _call_main(module, lambda coroutine: real_run(asyncio.wait_for(coroutine, 30)))
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        _unrecord(originals)
    return _outermost(created)


async def _paged(call: Any, *attrs: str) -> list[Any]:
    items: list[Any] = []
    cursor = None
    for _ in range(100):
        result = await (call(cursor=cursor) if cursor else call())
        items.extend(_field(result, *attrs))
        cursor = _field(result, "next_cursor", "nextCursor")
        if not cursor:
            break
    return items


async def _describe(server: Any) -> dict[str, Any]:
    try:
        from mcp import Client  # v2

        opener: Any = Client(server)
    except ImportError:
        from mcp.shared.memory import create_connected_server_and_client_session

        opener = create_connected_server_and_client_session(_lowlevel(server))
    out: dict[str, Any] = {}
    async with opener as client:
        for key, method, attrs in (
            ("tools", "list_tools", ("tools",)),
            ("prompts", "list_prompts", ("prompts",)),
            ("resources", "list_resources", ("resources",)),
            ("templates", "list_resource_templates", ("resource_templates", "resourceTemplates")),
        ):
            try:
                items = await _paged(getattr(client, method), *attrs)
            except Exception:  # noqa: BLE001 - a list the server does not answer counts as unsupported
                out[key] = "unsupported"
                continue
            out[key] = sorted((_item(key, i) for i in items), key=json.dumps)
    return out


def _item(key: str, item: Any) -> dict[str, Any]:
    if key == "tools":
        return {"name": item.name, "input_schema": _field(item, "input_schema", "inputSchema")}
    if key == "prompts":
        args = _field(item, "arguments") or []
        return {"name": item.name, "arguments": sorted([a.name, bool(a.required)] for a in args)}
    if key == "resources":
        return {"name": item.name, "uri": str(item.uri)}
    return {"name": item.name, "uri_template": _field(item, "uri_template", "uriTemplate")}


def main() -> int:
    path = Path(sys.argv[1]).resolve()
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet):
            module = _import(path)
    except BaseException:  # noqa: BLE001 - report any import failure
        print(json.dumps({"import_error": traceback.format_exc(limit=3)[-2000:]}))
        return 3
    classes = _server_classes()
    servers = [v for v in vars(module).values() if isinstance(v, classes)]
    inner = {id(_lowlevel(s)) for s in servers if _lowlevel(s) is not s}
    servers = [s for s in servers if id(s) not in inner]
    if not servers:
        with contextlib.redirect_stdout(quiet):
            servers = _capture_from_main(module, classes)
    if not servers and os.environ.get("MIGRATE_INTROSPECT_RUN") == "1":
        with contextlib.redirect_stdout(quiet):
            servers = _capture_by_running(module, classes)
    if not servers:
        print(json.dumps({"servers": []}))
        return 4
    described = []
    for server in servers:
        try:
            described.append(asyncio.run(_describe(server)))
        except BaseException as exc:  # noqa: BLE001
            described.append({"error": f"{type(exc).__name__}: {exc}"[:500]})
    print(json.dumps({"servers": sorted(described, key=json.dumps)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
