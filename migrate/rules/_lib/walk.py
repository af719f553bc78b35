"""Every node below a node, in source order (for the pre-scans rules make before their pass)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and its descendants, pre-order (an assignment comes before the uses after it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
