"""The bases every rule module builds on (one import for the rule modules; the code lives by
concept in ``mcp_eras.migrate.rules._lib``: ``context`` (file context, ignores, markers), ``transformer``
(``RuleTransformer``, ``Combined``), ``detectors`` (report-only and keyword-edit bases),
``rename`` (``SymbolRename``)). A manifest rule edits dependency manifests (``manifest_base``)."""

from __future__ import annotations

from mcp_eras.migrate.resolve import dotted
from mcp_eras.migrate.rules._lib.context import (
    HIDDEN,
    IGNORE_RE,
    MARKER_PREFIX,
    FileContext,
    build_dotted,
    ignore_table,
)
from mcp_eras.migrate.rules._lib.detectors import CallDetector, Detector, KeywordEdit, SubclassDetector
from mcp_eras.migrate.rules._lib.rename import SymbolRename
from mcp_eras.migrate.rules._lib.transformer import STATEMENT_CLASSES, STATEMENT_TYPES, Combined, RuleTransformer

__all__ = [
    "HIDDEN", "IGNORE_RE", "MARKER_PREFIX", "STATEMENT_CLASSES", "STATEMENT_TYPES", "CallDetector", "Combined",
    "Detector", "FileContext", "KeywordEdit", "RuleTransformer", "SubclassDetector", "SymbolRename",
    "build_dotted", "dotted", "ignore_table",
]
