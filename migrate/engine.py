"""Phase 2: transform files (in parallel) with the project index as read-only context.

Never make it worse: a file that does not decode or parse, or whose transform raises, or whose
output would not parse and ``compile()``, is left byte-for-byte untouched and named in the
result. Encoding, BOM and line endings are preserved because libcst round-trips the source text
exactly outside the edited nodes.
"""

from __future__ import annotations

import ast
import codecs
import io
import os
import sys
import tokenize
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from mcp_eras.migrate.compat import compiles, lowered
from mcp_eras.migrate.index import ProjectIndex, index_file, module_name
from mcp_eras.migrate.linelength import configured_line_length, fit_lines
from mcp_eras.migrate.model import FileResult, Finding
from mcp_eras.migrate.resolve import ImportTable, statement_lines
from mcp_eras.migrate.rules import all_rules
from mcp_eras.migrate.rules.base import MARKER_PREFIX, Combined, FileContext, RuleTransformer, ignore_table
from mcp_eras.migrate.rules.manifest_base import ManifestContext, ManifestRule

SDK_PREFIXES = ("mcp.server.fastmcp", "mcp.server.mcpserver")


@dataclass(frozen=True)
class Options:
    rules: tuple[str, ...]
    safe_only: bool = False
    keep_texts: bool = True  # keep original/new text for diffs (fix mode only needs the bytes)
    markers: str = "all"  # source markers: "all", "action" (not for advisories) or "none"


@dataclass
class Decoded:
    text: str
    encoding: str
    bom: bool
    prefix: bytes = b""  # the byte-order mark a manifest was read with, written back as it was


# UTF-32 first: its little-endian mark starts with UTF-16's
MANIFEST_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
                 (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode_manifest(data: bytes) -> Decoded:
    """A manifest's text by its byte-order mark (a Windows ``pip freeze > requirements.txt`` writes
    UTF-16 with one), UTF-8 without one."""
    for mark, encoding in MANIFEST_BOMS:
        if data.startswith(mark):
            return Decoded(data[len(mark):].decode(encoding), encoding, False, mark)
    return Decoded(data.decode("utf-8"), "utf-8", False)


def decode(data: bytes) -> Decoded:
    """Decode Python source honouring a BOM and a PEP 263 coding cookie."""
    if b"\x00" in data:
        raise ValueError("binary file")
    bom = data.startswith(codecs.BOM_UTF8)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    body = data[len(codecs.BOM_UTF8):] if bom else data
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    return Decoded(body.decode(encoding), encoding, bom)


def encode(decoded: Decoded, text: str) -> bytes:
    return (decoded.prefix or (codecs.BOM_UTF8 if decoded.bom else b"")) + text.encode(decoded.encoding)


# ------------------------------------------------------------------------------------ guards
def guard_reason(table: ImportTable, code: str) -> tuple[str, str] | None:
    """G1 (standalone ``fastmcp`` package) and G10 (dual-version shim): leave such files alone."""
    imported = [q for names in table.imports.values() for q in names] + table.modules
    if any(name == "fastmcp" or name.startswith("fastmcp.") for name in imported):
        return ("G1", "uses the standalone `fastmcp` package (its own `mcp` range applies); not SDK code, left alone")
    v1 = any(n.startswith("mcp.server.fastmcp") or n == "mcp.server.FastMCP" for n in imported)
    v2 = any(n.startswith("mcp.server.mcpserver") for n in imported)
    if v1 and v2:
        return ("G10", "already supports both SDK majors (v1 and v2 imports side by side); left alone")
    if v1 and ("mcp.__version__" in code or 'version("mcp")' in code or "version('mcp')" in code):
        return ("G10", "branches on the installed `mcp` version (dual-version shim); left alone")
    return None


# ------------------------------------------------------------------------------------ python
def transform_python(path: str, code: str, options: Options, index: ProjectIndex,
                     module: str | None = None) -> tuple[str, list[Finding], str | None]:
    """Apply the selected Python rules to ``code``. Returns (new code, findings, failure)."""
    findings: list[Finding] = []
    index.finalize()
    if "mcp" not in code and "MCP" not in code and path not in index.site_paths:
        # nothing that could name the SDK: no libcst parse, only the (fast) syntax check
        try:
            ast.parse(code)
        except (SyntaxError, ValueError) as exc:
            return code, findings, f"does not parse: {exc}"
        return code, findings, None
    try:
        tree = cst.parse_module(code)
    except cst.ParserSyntaxError as exc:
        return code, findings, f"does not parse: {str(exc).splitlines()[0]} (line {exc.raw_line})"
    selected = set(options.rules)
    modname = module or Path(path).stem
    wanted = [r for r in all_rules() if r.META.id in selected and issubclass(r, RuleTransformer) and r.wants(code)]
    if not wanted and "fastmcp" not in code:
        return code, findings, None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    ctx = FileContext(path, modname, code, index, options.safe_only, findings, ignore_table(code),
                      frozenset(selected), wrapper)
    ctx.markers = options.markers
    try:
        ctx.stmt_lines = statement_lines(code)
    except (SyntaxError, ValueError, RecursionError):
        try:  # newer syntax than this interpreter: the lowered text keeps every statement's lines
            low = lowered(code)
            ctx.stmt_lines = statement_lines(low) if low is not None else None
        except (SyntaxError, ValueError, RecursionError):
            ctx.stmt_lines = None  # libcst accepted what the stdlib parser rejects: use libcst positions
    guard = guard_reason(ctx.table(), code)
    if guard:
        rule, reason = guard
        findings.append(Finding(rule, rule, path, 1, 1, reason, "skipped", "report-only"))
        return code, findings, None
    rules = [rule(ctx) for rule in wanted]
    if not rules:
        return code, findings, None
    try:
        new_tree = wrapper.module.visit(Combined(rules))
        if ctx.stmt_lines is not None and ctx.visited_statements != len(ctx.stmt_lines):
            # the cheap statement lines did not line up: redo the pass with libcst positions
            findings.clear()
            ctx = FileContext(path, modname, code, index, options.safe_only, findings, ignore_table(code),
                              frozenset(selected), wrapper)
            ctx.markers = options.markers
            new_tree = wrapper.module.visit(Combined([rule(ctx) for rule in wanted]))
    except Exception as exc:  # noqa: BLE001 - any rule failure leaves the file untouched
        return code, findings, f"transform failed: {type(exc).__name__}: {exc}"
    current = new_tree.code
    if current != code:
        # libcst generated it, so compile() is the check that matters: it must still be Python.
        # Syntax newer than this interpreter is lowered first (mcp_eras.migrate.compat), never a crash.
        reason = compiles(current, path)
        if reason is not None:
            return code, findings, f"output would not compile ({reason}); left untouched"
    return current, findings, None


def transform_manifest(path: str, kind: str, text: str, options: Options,
                       project_imports: frozenset[str]) -> tuple[str, list[Finding], str | None]:
    selected = set(options.rules)
    ctx = ManifestContext(path, kind, options.safe_only, [], project_imports)
    current = text
    for rule in all_rules():
        if rule.META.id not in selected or not issubclass(rule, ManifestRule) or kind not in rule.KINDS:
            continue
        try:
            current = rule().apply(ctx, current)
        except ValueError as exc:
            return text, ctx.findings, str(exc)
        except Exception as exc:  # noqa: BLE001 - a manifest rule failure leaves the file untouched
            return text, ctx.findings, f"transform failed in {rule.META.id}: {type(exc).__name__}: {exc}"
    return current, ctx.findings, None


# ------------------------------------------------------------------------------------ per file
@dataclass
class Job:
    path: str
    kind: str
    module: str
    imports: frozenset[str] = frozenset()  # manifests: top-level modules imported by the code below them


@dataclass
class Shared:
    options: Options
    index: ProjectIndex


_SHARED: Shared | None = None


def _init_worker(shared: Shared) -> None:
    global _SHARED
    _SHARED = shared


def process(job: Job, shared: Shared | None = None) -> FileResult:
    shared = shared or _SHARED
    assert shared is not None
    result = FileResult(job.path, job.kind)
    try:
        data = Path(job.path).read_bytes()
    except OSError as exc:
        result.skipped = f"unreadable: {exc.strerror or exc}"
        result.failed = job.kind == "python"
        return result
    try:
        decoded = decode(data) if job.kind == "python" else decode_manifest(data)
        if job.kind != "python" and "\x00" in decoded.text:
            raise ValueError("binary file")
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        result.skipped = f"undecodable: {exc}"
        result.failed = job.kind == "python"
        return result
    except ValueError as exc:
        result.skipped = str(exc)
        return result
    if job.kind == "notebook":
        if "mcp" in decoded.text:
            result.skipped = "notebook: out of scope for mcp-migrate, port its cells by hand"
        return result
    indexed = shared.index.failures.get(job.path)
    if indexed is not None:
        result.skipped = f"project index failed: {indexed}"
        result.failed = True
        return result
    try:
        if job.kind == "python":
            new, findings, failure = transform_python(job.path, decoded.text, shared.options, shared.index,
                                                      job.module)
        else:
            new, findings, failure = transform_manifest(job.path, job.kind, decoded.text, shared.options,
                                                        job.imports)
    except Exception as exc:  # noqa: BLE001 - resolver/guard/any failure skips this file only
        result.skipped = f"transform failed: {type(exc).__name__}: {exc}"
        result.failed = True
        return result
    result.findings = findings
    if failure:
        result.skipped = failure
        result.failed = job.kind == "python" and not failure.startswith(("does not parse", "binary"))
        return result
    if job.kind == "python" and new != decoded.text:
        new = fit_lines(decoded.text, new, configured_line_length(job.path))
    result.markers = new.count(MARKER_PREFIX) if job.kind == "python" else 0  # in the file after this run
    if new != decoded.text:
        result.changed = True
        if shared.options.keep_texts:
            result.original_text = decoded.text
            result.new_text = new
        result.new_bytes = encode(decoded, new)
    return result


# ------------------------------------------------------------------------------------ project
def build_index(files: Iterable[tuple[Path, str]]) -> tuple[ProjectIndex, dict[Path, set[str]], dict[str, str]]:
    """The project index, the top-level modules each Python file imports, and module names."""
    index = ProjectIndex()
    imports: dict[Path, set[str]] = {}
    modules: dict[str, str] = {}
    for path, kind in files:
        if kind != "python":
            continue
        modules[str(path)] = module_name(path.absolute())
        try:
            data = path.read_bytes()
            if b"\x00" in data:
                continue
            code = decode(data).text
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError):
            continue
        try:
            index_file(index, path, code)
        except Exception as exc:  # noqa: BLE001 - one file's index failure skips that file only
            index.failures[str(path)] = f"{type(exc).__name__}: {exc}"
        mine = imports.setdefault(path.absolute(), set())
        for line in code.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(("import ", "from ")):
                word = stripped.split()[1] if len(stripped.split()) > 1 else ""
                if word and not word.startswith("."):
                    mine.add(word.split(".")[0].rstrip(","))
    return index, imports, modules


def imports_below(folder: Path, imports: dict[Path, set[str]]) -> frozenset[str]:
    found: set[str] = set()
    for path, names in imports.items():
        if path.is_relative_to(folder):
            found |= names
    return frozenset(found)


def run(files: list[tuple[Path, str]], options: Options, jobs: int = 1,
        progress: Callable[[int, int], None] | None = None) -> list[FileResult]:
    index, imports, modules = build_index(files)
    index.finalize()  # once, before the index is shipped to the workers
    shared = Shared(options, index)
    work = [
        Job(str(path), kind, modules.get(str(path), path.stem),
            imports_below(path.absolute().parent, imports) if kind != "python" else frozenset())
        for path, kind in files
    ]
    results: list[FileResult] = []
    total = len(work)
    if jobs <= 1 or total < 8:
        for n, job in enumerate(work, start=1):
            results.append(process(job, shared))
            if progress:
                progress(n, total)
        return results
    workers = min(jobs, os.cpu_count() or 1, total)
    chunk = max(1, min(64, total // (workers * 8) or 1))
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(shared,)) as pool:
        for n, result in enumerate(pool.map(process, work, chunksize=chunk), start=1):
            results.append(result)
            if progress:
                progress(n, total)
    return results


def write_results(results: list[FileResult]) -> list[FileResult]:
    """Write every changed file in place (binary: exact bytes, line endings untouched)."""
    failed: list[FileResult] = []
    for result in results:
        if result.changed and result.new_bytes is not None:
            try:
                Path(result.path).write_bytes(result.new_bytes)
            except OSError as exc:
                result.skipped = f"could not write: {exc.strerror or exc}"
                result.failed = True
                result.changed = False
                failed.append(result)
    return failed


def log(message: str) -> None:
    print(message, file=sys.stderr)
