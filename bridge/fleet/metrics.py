"""Prometheus text exposition (format 0.0.4), written by hand: counters, histograms and gauges
with labels. Pure: no I/O, no clock; the fleet records into one ``Metrics`` and renders it on scrape."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

LATENCY_BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

Labels = tuple[tuple[str, str], ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: Labels, extra: Labels = ()) -> str:
    items = (*labels, *extra)
    if not items:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in items) + "}"


def _num(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


@dataclass
class _Family:
    name: str
    kind: str
    help: str
    label_names: tuple[str, ...]
    values: dict[Labels, float] = field(default_factory=dict)
    keys: dict[tuple[str, ...], Labels] = field(default_factory=dict)
    """Label values in ``label_names`` order -> their series key (``Metrics.inc_values``)."""

    def key(self, labels: dict[str, str]) -> Labels:
        if set(labels) != set(self.label_names):
            raise ValueError(f"{self.name}: labels {sorted(labels)} != {sorted(self.label_names)}")
        return tuple((n, str(labels[n])) for n in self.label_names)


@dataclass
class _Histogram:
    name: str
    help: str
    label_names: tuple[str, ...]
    buckets: tuple[float, ...]
    series: dict[Labels, list[float]] = field(default_factory=dict)
    """Per label set: bucket counts (non-cumulative), then sum, then count."""
    by_values: dict[tuple[str, ...], list[float]] = field(default_factory=dict)
    """Label values in ``label_names`` order -> the same lists as ``series`` (``Metrics.observe_values``)."""


class Metrics:
    def __init__(self, prefix: str = "mcp_bridge") -> None:
        self.prefix = prefix
        self._counters: dict[str, _Family] = {}
        self._hists: dict[str, _Histogram] = {}

    def counter(self, name: str, help: str, label_names: Sequence[str]) -> None:
        self._counters[name] = _Family(f"{self.prefix}_{name}", "counter", help, tuple(label_names))

    def histogram(self, name: str, help: str, label_names: Sequence[str], buckets: Sequence[float] = LATENCY_BUCKETS) -> None:
        self._hists[name] = _Histogram(f"{self.prefix}_{name}", help, tuple(label_names), tuple(sorted(buckets)))

    def inc(self, name: str, labels: dict[str, str], amount: float = 1.0) -> None:
        fam = self._counters[name]
        key = fam.key(labels)
        fam.values[key] = fam.values.get(key, 0.0) + amount

    def inc_values(self, name: str, values: tuple[str, ...], amount: float = 1.0) -> None:
        """``inc`` with the label values given in the family's label order (a hot path: no dict per call)."""
        fam = self._counters[name]
        key = fam.keys.get(values)
        if key is None:
            key = fam.keys[values] = fam.key(dict(zip(fam.label_names, values, strict=True)))
        fam.values[key] = fam.values.get(key, 0.0) + amount

    def observe(self, name: str, labels: dict[str, str], value: float) -> None:
        h = self._hists[name]
        self._observe(h, self._series(h, tuple((n, str(labels[n])) for n in h.label_names)), value)

    def observe_values(self, name: str, values: tuple[str, ...], value: float) -> None:
        """``observe`` with the label values given in the histogram's label order."""
        h = self._hists[name]
        series = h.by_values.get(values)
        if series is None:
            if len(values) != len(h.label_names):
                raise ValueError(f"{h.name}: {len(values)} label values for {h.label_names}")
            series = h.by_values[values] = self._series(h, tuple(zip(h.label_names, map(str, values), strict=True)))
        self._observe(h, series, value)

    def recorder(self, counter: str, histogram: str) -> Callable[[tuple[str, ...], tuple[str, ...], float], None]:
        """``record(counter_values, histogram_values, value)``: ``inc_values(counter, counter_values)`` and
        ``observe_values(histogram, histogram_values, value)`` as one call, the two families looked up once (one relayed
        call records both). A label set not seen yet goes through those methods; families registered again later
        under the same names are not this recorder's."""
        fam, h = self._counters[counter], self._hists[histogram]
        keys, totals, by_values, buckets = fam.keys, fam.values, h.by_values, h.buckets
        top = len(buckets)

        def record(counter_values: tuple[str, ...], histogram_values: tuple[str, ...], value: float) -> None:
            key = keys.get(counter_values)
            if key is None:
                self.inc_values(counter, counter_values)
            else:
                totals[key] = totals.get(key, 0.0) + 1.0
            series = by_values.get(histogram_values)
            if series is None:
                self.observe_values(histogram, histogram_values, value)
                return
            i = bisect_left(buckets, value)  # (``_observe``)
            if i < top:
                series[i] += 1
            series[-2] += value
            series[-1] += 1

        return record

    @staticmethod
    def _series(h: _Histogram, key: Labels) -> list[float]:
        series = h.series.get(key)
        if series is None:
            series = h.series[key] = [0.0] * (len(h.buckets) + 2)
        return series

    @staticmethod
    def _observe(h: _Histogram, series: list[float], value: float) -> None:
        i = bisect_left(h.buckets, value)  # the first bucket whose bound is >= value (the buckets are sorted)
        if i < len(h.buckets):
            series[i] += 1
        series[-2] += value
        series[-1] += 1

    def value(self, name: str, labels: dict[str, str]) -> float:
        fam = self._counters[name]
        return fam.values.get(fam.key(labels), 0.0)

    def totals(self, name: str, by: str, **where: str) -> dict[str, float]:
        """Counter ``name`` summed per value of label ``by``, over the series matching ``where``."""
        out: dict[str, float] = {}
        for key, value in self._counters[name].values.items():
            labels = dict(key)
            if all(labels.get(k) == v for k, v in where.items()):
                out[labels[by]] = out.get(labels[by], 0.0) + value
        return out

    def render(self, gauges: Iterable[tuple[str, str, str, list[tuple[dict[str, str], float]]]] = ()) -> str:
        """Text exposition. ``gauges``: (name, kind, help, [(labels, value)]) computed at scrape time."""
        out: list[str] = []
        for fam in self._counters.values():
            out.append(f"# HELP {fam.name} {fam.help}")
            out.append(f"# TYPE {fam.name} counter")
            for key in sorted(fam.values):
                out.append(f"{fam.name}{_labels(key)} {_num(fam.values[key])}")
        for h in self._hists.values():
            out.append(f"# HELP {h.name} {h.help}")
            out.append(f"# TYPE {h.name} histogram")
            for key in sorted(h.series):
                series = h.series[key]
                running = 0.0
                for i, bound in enumerate(h.buckets):
                    running += series[i]
                    out.append(f"{h.name}_bucket{_labels(key, (('le', _num(bound)),))} {_num(running)}")
                out.append(f"{h.name}_bucket{_labels(key, (('le', '+Inf'),))} {_num(series[-1])}")
                out.append(f"{h.name}_sum{_labels(key)} {_num(series[-2])}")
                out.append(f"{h.name}_count{_labels(key)} {_num(series[-1])}")
        for name, kind, help_, samples in gauges:
            full = f"{self.prefix}_{name}"
            out.append(f"# HELP {full} {help_}")
            out.append(f"# TYPE {full} {kind}")
            for labels, value in samples:
                out.append(f"{full}{_labels(tuple(labels.items()))} {_num(value)}")
        return "\n".join(out) + "\n"


def parse_text(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Read back a text exposition (samples only): for tests and `mcp-bridge` tooling."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        name, brace, rest = head.partition("{")
        labels: dict[str, str] = {}
        if brace:
            body = rest.rstrip("}")
            i = 0
            while i < len(body):
                eq = body.index("=", i)
                key = body[i:eq].lstrip(",")
                j = eq + 2
                buf = []
                while body[j] != '"':
                    if body[j] == "\\":
                        j += 1
                        buf.append({"n": "\n"}.get(body[j], body[j]))
                    else:
                        buf.append(body[j])
                    j += 1
                labels[key] = "".join(buf)
                i = j + 1
        out.setdefault(name, []).append((labels, float(value)))
    return out
