"""The ``Upstream`` stack: each layer declares what it wraps (``inner``) and what it offers; ``core.layers``/``find``/
``served_by`` walk a real composed stack (single-server mode as the CLI builds it, a fleet server as the fleet router
builds it), and no layer probes another with ``getattr``."""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, find, layers, served_by
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.layers import observe as observe_layer
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.layers.managed import ManagedUpstream
from mcp_eras.bridge.layers.managed import register_metrics as managed_metrics
from mcp_eras.bridge.layers.observe import ObservedUpstream, observe
from mcp_eras.bridge.layers.staged import StagedUpstream
from mcp_eras.bridge.layers.tasks import TasksUpstream, with_tasks
from mcp_eras.bridge.scaleout.wiring import scale_out
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.upstream import factory
from mcp_eras.bridge.upstream.factory import AutoUpstream, ProbeResult, Target, legacy_upstream, make_upstream
from mcp_eras.bridge.upstream.legacy import LegacyUpstream
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream

BRIDGE = Path(__file__).resolve().parents[2] / "bridge"
TARGET = Target(url="http://127.0.0.1:9/mcp")  # never reached: the probe is replaced and nothing is called


class Real(Upstream):
    """A real upstream (no ``inner``) that records what reaches it."""

    era = eras.MODERN  # type: ignore[assignment]

    def __init__(self) -> None:
        self.roots: list[CallContext] = []

    async def start(self) -> None: ...

    async def discover(self, ctx: CallContext) -> Message:
        return {"resultType": "complete", "capabilities": {}}

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"resultType": "complete"}}

    async def aclose(self) -> None: ...

    async def roots_changed(self, ctx: CallContext) -> None:
        self.roots.append(ctx)


def probed_as(era: str) -> Any:
    async def fake_probe(target: Target, settings: Settings, keep_child: bool = False, confirm: bool = True) -> ProbeResult:
        return ProbeResult(era, "streamable-http")  # type: ignore[arg-type]

    return fake_probe


@pytest.mark.anyio
async def test_the_walk_finds_every_layer_of_the_single_server_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``mcp-bridge serve --state-store`` composes it: AutoUpstream -> tasks -> observed -> cluster."""
    settings = Settings()
    auto = make_upstream(TARGET, settings)
    tasks = with_tasks(auto, settings)
    observed, observer = observe(tasks, TARGET, settings)
    cluster, relay, _routes = scale_out(observed, None, settings, "http://127.0.0.1:1")
    assert isinstance(auto, AutoUpstream) and isinstance(tasks, TasksUpstream) and relay is None
    assert list(layers(cluster)) == [cluster, observed, tasks, auto]
    assert served_by(cluster) is None, "the auto upstream has not chosen yet"
    assert find(cluster, TasksUpstream) is tasks and find(cluster, ObservedUpstream) is observed
    assert find(cluster, ClusterUpstream) is cluster and find(observed, ClusterUpstream) is None
    assert tasks.remote is not None, "scale_out found the tasks layer under the observed one and attached it"
    assert tasks.transports() is None

    monkeypatch.setattr(factory, "probe", probed_as(eras.MODERN))
    await cluster.inner.start()  # (the cluster's own start would also beat the registry)
    real = auto.inner
    assert isinstance(real, ModernHttpUpstream)
    assert list(layers(cluster)) == [cluster, observed, tasks, auto, real]
    assert served_by(cluster) is real and served_by(real) is real and find(cluster, ModernHttpUpstream) is real
    assert tasks.transports() is None and tasks._serves_itself(), "a 2026 upstream serves the extension itself"
    observer.upstream = cluster
    metrics = (await observer.metrics_endpoint(None)).body.decode()  # type: ignore[arg-type]
    assert f'mcp_bridge_cluster_forwarded_total{{instance="{settings.instance_id}"}} 0' in metrics, "the walk finds the cluster"
    await cluster.aclose()


@pytest.mark.anyio
async def test_the_walk_finds_every_layer_of_a_fleet_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the fleet router composes a scaled-out server: cluster -> staged -> managed -> tasks -> the real upstream of
    the current generation (built at start)."""
    settings = Settings(upstream_era="auto")
    metrics = Metrics()
    managed_metrics(metrics)
    managed = ManagedUpstream("a", TARGET, settings, metrics, prober=probed_as(eras.MODERN))
    staged = StagedUpstream("a", managed, lambda name: None, metrics, deque())
    cluster, _relay, _routes = scale_out(staged, None, settings, "http://127.0.0.1:1/servers/a")
    attached: list[Upstream] = []
    managed.on_delegate = attached.append
    assert list(layers(cluster)) == [cluster, staged, managed]
    assert served_by(cluster) is None and find(cluster, TasksUpstream) is None, "no generation before the first start"
    await managed.start()
    tasks = managed.inner
    assert isinstance(tasks, TasksUpstream) and attached == [tasks]
    real = tasks.inner
    assert isinstance(real, ModernHttpUpstream)
    assert list(layers(cluster)) == [cluster, staged, managed, tasks, real]
    assert find(cluster, TasksUpstream) is tasks and served_by(staged) is real
    await managed.aclose()
    await cluster.close_cluster()


@pytest.mark.anyio
async def test_roots_changed_reaches_the_real_upstream_once_through_every_layer() -> None:
    real = Real()
    metrics = Metrics()
    observe_layer.register_metrics(metrics)
    top = ObservedUpstream(with_tasks(real, Settings()), metrics)
    ctx = CallContext(principal="p")
    await top.roots_changed(ctx)
    assert real.roots == [ctx]


def test_capabilities_are_declared_with_the_answer_of_an_upstream_without_them() -> None:
    settings = Settings()
    legacy = legacy_upstream(TARGET, settings)
    assert isinstance(legacy, LegacyUpstream)
    assert legacy.transport_factory is not None and legacy.answers_refusals and not legacy.wraps and legacy.inner is None
    real = Real()
    metrics = Metrics()
    observe_layer.register_metrics(metrics)
    wrappers: list[Upstream] = [with_tasks(legacy, settings), ObservedUpstream(legacy, metrics), AutoUpstream(TARGET, settings),
                                StagedUpstream("a", real, lambda name: None, metrics, deque()),
                                ManagedUpstream("a", TARGET, settings, Metrics())]
    for wrapper in [real, *wrappers]:
        assert wrapper.transport_factory is None, type(wrapper).__name__
        assert dict(wrapper.live) == {}, type(wrapper).__name__
        assert not wrapper.answers_refusals, type(wrapper).__name__
    for wrapper in wrappers:
        assert wrapper.wraps, f"{type(wrapper).__name__} serves through its inner"
    assert [layer for layer in layers(wrappers[0])] == [wrappers[0], legacy]
    assert served_by(wrappers[0]) is legacy and served_by(wrappers[2]) is None


def upstream_classes() -> list[type[Upstream]]:
    found: list[type[Upstream]] = []
    todo = [Upstream]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("mcp_eras.bridge."):
                found.append(sub)
            todo.append(sub)
    return found


def test_no_upstream_class_forwards_unknown_attributes() -> None:
    """A class with ``__getattr__`` sends every attribute read through CPython's slow lookup hook; a layer is on
    every call, and what it offers is declared, so none has one."""
    classes = upstream_classes()
    assert {ObservedUpstream, StagedUpstream, TasksUpstream, ClusterUpstream, ManagedUpstream, AutoUpstream} <= set(classes)
    assert [cls.__name__ for cls in classes if "__getattr__" in vars(cls)] == []


UPSTREAM_NAMES = ("up", "upstream", "inner", "delegate", "primary", "target", "cluster", "legacy", "wrapped")
"""Words that name an upstream (or a wrapper of one) in a variable or attribute: ``up``, ``self.inner``,
``entry.legacy``, ``current.cluster``..."""


DECLARED = ("inner", "delegate", "primary", "era", "live", "sessions", "transport_factory", "answers_refusals", "counters")
"""What the layers declare (and what they used to probe each other for, under these names)."""


def probes(source: str) -> list[str]:
    """``getattr``/``hasattr`` calls whose object is named like an upstream (any ``.``- or ``_``-separated word), or
    that ask for one of the declared attributes by name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and node.args:
            subject = ast.unparse(node.args[0])
            words = subject.replace(".", "_").lower().split("_")
            asked = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
            if any(word in UPSTREAM_NAMES for word in words) or "type(" in subject or asked in DECLARED:
                found.append(ast.unparse(node))
    return found


def test_the_probe_check_sees_probes() -> None:
    assert probes('getattr(self.inner, "delegate", None)\nhasattr(current.legacy, "settings")\n') == [
        "getattr(self.inner, 'delegate', None)", "hasattr(current.legacy, 'settings')"]
    assert probes('callable(getattr(type(self.upstream), "counters", None))') == ["getattr(type(self.upstream), 'counters', None)"]
    assert probes('getattr(self, "primary", None)') == ["getattr(self, 'primary', None)"]
    assert probes('getattr(logging, level.upper(), None)\ngetattr(self, key)') == []


def layer_modules() -> list[Path]:
    return sorted([BRIDGE / "core.py", *(BRIDGE / "layers").rglob("*.py"), *(BRIDGE / "scaleout").rglob("*.py"),
                   *(BRIDGE / "fleet").rglob("*.py")])


@pytest.mark.parametrize("path", layer_modules(), ids=lambda p: str(p.relative_to(BRIDGE)))
def test_no_layer_probes_an_upstream(path: Path) -> None:
    assert probes(path.read_text()) == []


def test_the_tasks_shells_do_not_import_their_owner() -> None:
    """``tasks_channel``, ``tasks_room`` and ``tasks_legacy_client`` name what they need of the tasks layer as a protocol:
    importing ``layers.tasks`` back (even for types) would be an import cycle."""
    for name in ("tasks_channel", "tasks_room", "tasks_legacy_client"):
        tree = ast.parse((BRIDGE / "layers" / f"{name}.py").read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "mcp_eras.bridge.layers.tasks" not in imported, name


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
