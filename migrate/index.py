"""Phase 1: a whole-project index built with the stdlib ``ast`` parser (fast, read-only).

It records where MCP servers are constructed (with the transport keyword arguments that v2
moved to the start methods), where ``settings.<field>`` is mutated, and every start site
(``run``/``*_app``/``run_*_async``), resolving imported names across modules so that a server
built in ``server.py`` and started in ``main.py`` is recognised as the same instance.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from mcp_eras.migrate.compat import lowered

SERVER_CLASSES = frozenset(
    {
        "mcp.server.fastmcp.FastMCP",
        "mcp.server.fastmcp.server.FastMCP",
        "mcp.server.FastMCP",
        "mcp.server.mcpserver.MCPServer",
        "mcp.server.mcpserver.server.MCPServer",
    }
)
TRANSPORT_KWARGS = (
    "host",
    "port",
    "sse_path",
    "message_path",
    "streamable_http_path",
    "json_response",
    "stateless_http",
    "max_request_body_size",
    "event_store",
    "retry_interval",
    "transport_security",
)
START_METHODS = {
    "run": None,
    "run_sse_async": "sse",
    "run_streamable_http_async": "streamable-http",
    "run_stdio_async": "stdio",
    "sse_app": "sse-app",
    "streamable_http_app": "streamable-app",
}


@dataclass
class ServerCtor:
    key: str
    path: str
    line: int
    var: str = ""
    ordinal: int = 0  # n-th construction bound to ``var`` in this file (line numbers shift between passes)
    scope: str = ""  # enclosing function ("" at module level)
    kwargs: dict[str, str] = field(default_factory=dict)
    literal: dict[str, bool] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)  # settings.<field> = value writes
    settings_lines: dict[str, int] = field(default_factory=dict)

    def moved(self) -> dict[str, str]:
        """Everything that must reach the start sites: constructor kwargs, then settings writes."""
        return {**self.kwargs, **self.settings}


@dataclass
class StartSite:
    key: str
    path: str
    line: int
    method: str
    transport: str | None  # literal transport, "stdio" by default, None when dynamic
    receiver: str = ""
    ordinal: int = 0  # n-th call of ``receiver.method`` in this file
    scope: str = ""
    simple_transport: bool = True  # a dynamic transport given as a plain name/attribute (safe to repeat)
    ignored: bool = False  # an inline ``# mcp-migrate: ignore[...]`` covers it: nothing may move there


@dataclass
class ProjectIndex:
    # "<key>@<path>" -> constructor: scripts outside packages share module names (many server.py)
    servers: dict[str, ServerCtor] = field(default_factory=dict)
    # as collected: keys are what the receiver resolved to in its own file (an import, a factory
    # call ``pkg.f()``, a re-export); ``finalize()`` follows them to the constructor's key
    raw_sites: list[StartSite] = field(default_factory=list)
    factories: dict[str, str] = field(default_factory=dict)  # function qualname -> what it returns
    aliases: dict[str, str] = field(default_factory=dict)  # module-level name -> what it is bound to
    settings_writes: list[tuple[str, str, str, str, int, bool]] = field(default_factory=list)
    tables: dict[str, dict[str, str]] = field(default_factory=dict)  # path -> module-level bindings
    assigned: dict[str, set[str]] = field(default_factory=dict)  # path -> names assigned at module level
    failures: dict[str, str] = field(default_factory=dict)  # path -> why indexing it raised
    sites: dict[str, list[StartSite]] = field(default_factory=dict)
    _final: int = -1

    def add_server(self, ctor: ServerCtor) -> None:
        self.servers[f"{ctor.key}@{ctor.path}"] = ctor

    def _size(self) -> int:
        return len(self.servers) + len(self.raw_sites) + len(self.settings_writes) + len(self.aliases)

    def canonical(self, name: str) -> str:
        """Follow re-exports, module-level aliases and factory calls (``pkg.create()``) from
        ``name`` to what it is bound to in the module that defines it (a server key when it is one)."""
        keys = self._by_key()
        for _ in range(32):
            if name in keys:
                return name
            if name.endswith("()"):
                target = self.factories.get(self.canonical(name[:-2]))
                if target is None:
                    return name
                name = target
                continue
            if name in self.aliases:
                name = self.aliases[name]
                continue
            parts = name.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                head = ".".join(parts[:cut])
                if head in self.aliases:
                    name = ".".join([self.aliases[head], *parts[cut:]])
                    break
            else:
                return self._namespace_key(name, keys)
        return name

    def _namespace_key(self, name: str, keys: dict[str, list[ServerCtor]]) -> str:
        """``pkg.server.mcp`` for a server indexed as ``server.mcp``: a directory without
        ``__init__.py`` (a namespace package, or a script folder on sys.path) names its modules
        without the folder; the only key that is a dotted suffix of ``name`` is the one meant."""
        found = [key for key in keys if name.endswith("." + key)
                 and any(Path(c.path).with_suffix("").as_posix().endswith(name.rsplit(".", 1)[0].replace(".", "/"))
                         for c in keys[key])]
        return found[0] if len(found) == 1 else name

    def is_server(self, name: str) -> bool:
        return self.canonical(name) in self._by_key()

    def finalize(self) -> None:
        """Resolve every start site and settings write to its constructor (after all files)."""
        if self._final == self._size():
            return
        self.sites = {}
        for site in self.raw_sites:
            site.key = self.canonical(site.key)
            self.sites.setdefault(site.key, []).append(site)
        for key, path, attr, source, line, literal in self.settings_writes:
            ctor = self.ctor_for(self.canonical(key), path)
            if ctor is not None:
                ctor.settings[attr] = source
                ctor.settings_lines[attr] = line
                ctor.literal[attr] = literal and ctor.literal.get(attr, True)
        self._final = self._size()

    def ctor_for(self, key: str, path: str) -> ServerCtor | None:
        """The constructor a name resolved to ``key`` in file ``path`` refers to: the one in the same
        file, else in the same directory (a script importing its sibling), else the only candidate."""
        candidates = self._by_key().get(key, [])
        for test in (lambda c: c.path == path, lambda c: Path(c.path).parent == Path(path).parent):
            found = [c for c in candidates if test(c)]
            if found:
                return found[0]
        return candidates[0] if len(candidates) == 1 else None

    def _by_key(self) -> dict[str, list[ServerCtor]]:
        """Constructors grouped by key (phase 2 reads a finished index, so this is computed once)."""
        cached = self.__dict__.get("_grouped")
        if cached is None or sum(len(v) for v in cached.values()) != len(self.servers):
            cached = {}
            for ctor in self.servers.values():
                cached.setdefault(ctor.key, []).append(ctor)
            self.__dict__["_grouped"] = cached
        return cached

    @property
    def site_paths(self) -> set[str]:
        return {site.path for sites in self.sites.values() for site in sites}

    def sites_for(self, ctor: ServerCtor) -> list[StartSite]:
        self.finalize()
        return [s for s in self.sites.get(ctor.key, []) if self.ctor_for(s.key, s.path) is ctor]

    def server_named(self, path: str, var: str, ordinal: int) -> ServerCtor | None:
        for ctor in self.servers.values():
            if ctor.path == path and ctor.var == var and ctor.ordinal == ordinal:
                return ctor
        return None

    def site_named(self, path: str, receiver: str, method: str, ordinal: int) -> StartSite | None:
        self.finalize()
        for sites in self.sites.values():
            for site in sites:
                if (site.path, site.receiver, site.method, site.ordinal) == (path, receiver, method, ordinal):
                    return site
        return None


def module_name(path: Path) -> str:
    """Dotted module name of ``path``, climbing parents while they are packages."""
    parts = [path.stem] if path.stem != "__init__" else []
    parent = path.parent
    while (parent / "__init__.py").exists() and parent != parent.parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts) or path.stem


class _Collector(ast.NodeVisitor):
    def __init__(self, index: ProjectIndex, path: str, module: str, is_package: bool, code: str) -> None:
        self.code = code
        self.index = index
        self.path = path
        self.module = module
        self.is_package = is_package
        self.names: dict[str, str] = {}
        self.scopes: list[tuple[str, dict[str, str]]] = []
        self.counts: dict[tuple[str, ...], int] = {}

    def _next(self, *key: str) -> int:
        value = self.counts.get(key, 0)
        self.counts[key] = value + 1
        return value

    # -- names
    def _bind(self, local: str, target: str) -> None:
        (self.scopes[-1][1] if self.scopes else self.names)[local] = target

    def resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            for _, table in reversed(self.scopes):
                if node.id in table:
                    return table[node.id]
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and not node.args and not node.keywords:  # factory() / app.create()
            base = self.resolve(node.func)
            return f"{base}()" if base else None
        return None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self._bind(alias.asname, alias.name)
            else:
                head = alias.name.split(".")[0]
                self._bind(head, head)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = absolute_module(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                continue
            self._bind(alias.asname or alias.name, f"{module}.{alias.name}")

    def _scope_key(self, var: str) -> str:
        if self.scopes:
            return f"{self.module}.{self.scopes[-1][0]}.<locals>.{var}"
        return f"{self.module}.{var}"

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        prefix = self.scopes[-1][0] + ".<locals>." if self.scopes else ""
        self.scopes.append((prefix + node.name, {}))
        self.generic_visit(node)
        for value in _returns(node):
            key = self.resolve(value)
            if key:
                self.index.factories.setdefault(f"{self.module}.{prefix}{node.name}", key)
        self.scopes.pop()
        if not prefix:
            self._bind(node.name, f"{self.module}.{node.name}")

    @property
    def scope(self) -> str:
        return self.scopes[-1][0] if self.scopes else ""

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if not self.scopes and isinstance(node.target, ast.Name):
            self.index.assigned.setdefault(self.path, set()).add(node.target.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if not self.scopes:
            self.index.assigned.setdefault(self.path, set()).update(
                t.id for t in node.targets if isinstance(t, ast.Name))
        if len(node.targets) != 1:
            return
        target = node.targets[0]
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
            if self.resolve(node.value.func) in SERVER_CLASSES:
                key = self._scope_key(target.id)
                ctor = ServerCtor(key, self.path, node.value.lineno, target.id, self._next("ctor", target.id),
                                  self.scope)
                for kw in node.value.keywords:
                    if kw.arg in TRANSPORT_KWARGS:
                        ctor.kwargs[kw.arg] = ast.get_source_segment(self.code, kw.value) or ast.unparse(kw.value)
                        ctor.literal[kw.arg] = _is_literal(kw.value)
                self.index.add_server(ctor)
                self._bind(target.id, key)
            else:
                called = self.resolve(node.value.func)
                if called:  # possibly a factory: followed after all files are indexed
                    self._bind(target.id, f"{called}()")
            return
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Name | ast.Attribute):
            value = self.resolve(node.value)
            if value:
                self._bind(target.id, value)
            return
        # <server>.settings.<field> = value
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "settings"
            and target.attr in TRANSPORT_KWARGS
        ):
            key = self.resolve(target.value.value)
            if key:
                source = ast.get_source_segment(self.code, node.value) or ast.unparse(node.value)
                self.index.settings_writes.append((key, self.path, target.attr, source, node.lineno,
                                                   _is_literal(node.value)))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in START_METHODS:
            return
        key = self.resolve(func.value)
        if not key:
            return
        transport = START_METHODS[func.attr]
        simple = True
        if func.attr == "run":
            arg: ast.expr | None = node.args[0] if node.args else None
            for kw in node.keywords:
                if kw.arg == "transport":
                    arg = kw.value
            if arg is None:
                transport = "stdio"
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                transport = arg.value
            else:
                transport = None
                simple = isinstance(arg, ast.Name | ast.Attribute)
        receiver = ast.unparse(func.value)
        ordinal = self._next("site", receiver, func.attr)
        lines = self.code.splitlines()[max(node.lineno - 2, 0): node.end_lineno or node.lineno]
        self.index.raw_sites.append(
            StartSite(key, self.path, node.lineno, func.attr, transport, receiver, ordinal, self.scope, simple,
                      any("mcp-migrate: ignore" in line for line in lines))
        )


def _returns(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """Values returned by ``node`` itself (not by functions or classes nested in it)."""
    found: list[ast.expr] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Return) and current.value is not None:
            found.append(current.value)
        elif not isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(current))
    return found


def absolute_module(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The module a (possibly relative) ``from <name> import`` in ``module`` refers to."""
    if not level:
        return name or ""
    parts = module.split(".")
    base = parts[: len(parts) - (level - 1)] if is_package else parts[:-level]
    return ".".join([*base, name] if name else base)


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


INDEX_TRIGGERS = ("mcp", "MCP", ".run(", "_app(", "run_sse_async", "run_streamable_http_async", ".settings.")


def index_file(index: ProjectIndex, path: Path, code: str) -> None:
    if not any(t in code for t in INDEX_TRIGGERS):
        return
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        low = lowered(code)  # syntax newer than this interpreter (same lines); else the file does not parse
        if low is None:
            return
        tree = ast.parse(low)
        code = low
    collector = _Collector(index, str(path), module_name(path.absolute()), path.name == "__init__.py", code)
    collector.visit(tree)
    index.tables[str(path)] = collector.names
    for local, target in collector.names.items():
        if target != f"{collector.module}.{local}":
            index.aliases.setdefault(f"{collector.module}.{local}", target)
