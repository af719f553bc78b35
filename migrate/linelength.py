"""Keep the lines a rewrite makes within the project's configured line length.

The limit is read from the nearest configuration above the file, first found wins per directory:
``[tool.ruff] line-length`` (pyproject.toml, ruff.toml, .ruff.toml), ``[tool.black] line-length``,
then flake8's ``max-line-length`` (setup.cfg, tox.ini, .flake8). With none up to the project root
(the first directory holding pyproject.toml, setup.cfg or .git) the limit is 88, the default of
both ruff and black.

Only lines the run wrote are touched (a line equal to one of the original text is left as it is):
a comment over the limit is continued on following comment lines (a ``# TODO(mcp-migrate ...)``
marker keeps its first line, so later runs still find it), and a code line over the limit is split
at its last bracket pair with content (black's right-hand split), its items one per line when the
bracket's content is still too long, or else an assigned or returned value is put in parentheses.
Every split must give the same AST, or that line stays as it was: the result never means anything
else.
"""

from __future__ import annotations

import ast
import configparser
import io
import tokenize
import tomllib
from collections import Counter
from functools import lru_cache
from pathlib import Path

DEFAULT_LINE_LENGTH = 88
MIN_LINE_LENGTH = 40  # below this a configured value is taken as a mistake, not a wish
MARKER = "# TODO(mcp-migrate "
OPENERS = {"(": ")", "[": "]", "{": "}"}
KEYWORDS = frozenset({"def", "class", "if", "elif", "while", "for", "with", "async", "lambda", "assert", "del",
                      "import", "from", "raise", "global", "nonlocal", "try", "except", "match", "case"})


# ------------------------------------------------------------------------------------ configuration
def _toml_length(path: Path, ruff_file: bool) -> int | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    tool = data.get("tool", {}) if not ruff_file else {"ruff": data}
    for section, key in (("ruff", "line-length"), ("black", "line-length"), ("black", "line_length"),
                         ("flake8", "max-line-length"), ("flake8", "max_line_length")):
        value = tool.get(section, {}).get(key) if isinstance(tool.get(section), dict) else None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _ini_length(path: Path) -> int | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    for key in ("max-line-length", "max_line_length"):
        value = parser.get("flake8", key, fallback=None)
        if value is not None and value.strip().isdigit():
            return int(value.strip())
    return None


@lru_cache(maxsize=256)
def _directory_length(directory: Path) -> tuple[int | None, bool]:
    """(the limit this directory configures or None, whether it is a project root)."""
    for name, ruff_file in (("ruff.toml", True), (".ruff.toml", True), ("pyproject.toml", False)):
        if (directory / name).is_file():
            value = _toml_length(directory / name, ruff_file)
            if value is not None:
                return value, True
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        if (directory / name).is_file():
            value = _ini_length(directory / name)
            if value is not None:
                return value, True
    root = any((directory / name).exists() for name in ("pyproject.toml", "setup.cfg", ".git"))
    return None, root


def configured_line_length(path: str | Path) -> int:
    """The line length the project of ``path`` asks for (``DEFAULT_LINE_LENGTH`` when none)."""
    directory = Path(path).absolute().parent
    for folder in (directory, *directory.parents):
        value, root = _directory_length(folder)
        if value is not None:
            return value if value >= MIN_LINE_LENGTH else DEFAULT_LINE_LENGTH
        if root:
            break
    return DEFAULT_LINE_LENGTH


# ------------------------------------------------------------------------------------ fitting
def _tree(code: str) -> str | None:
    try:
        return ast.dump(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _wrap_comment(line: str, limit: int) -> list[str]:
    indent = line[: len(line) - len(line.lstrip())]
    text = line.lstrip()
    lead = "#   " if text.startswith(MARKER) else "# "
    words = text.split(" ")
    out: list[str] = []
    current = indent + words[0]
    for word in words[1:]:
        if not word:
            continue
        if len(current) + 1 + len(word) > limit and current.strip() not in ("#", lead.strip()):
            out.append(current)
            current = indent + lead + word
        else:
            current += " " + word
    out.append(current)
    return out


def _brackets(text: str) -> list[tuple[int, int, int]] | None:
    """(depth, open, close) of each bracket pair in one logical line, or None when the line is not
    one whole logical line (an open bracket or string continues on another line)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    stack: list[tuple[str, int]] = []
    pairs: list[tuple[int, int, int]] = []
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in OPENERS:
            stack.append((tok.string, tok.start[1]))
        elif tok.type == tokenize.OP and tok.string in OPENERS.values():
            if not stack or OPENERS[stack[-1][0]] != tok.string:
                return None
            _, start = stack.pop()
            pairs.append((len(stack), start, tok.start[1]))
        elif tok.type in (tokenize.NL, tokenize.NEWLINE) and tok.start[0] > 1:
            return None
    return None if stack else pairs


def _items(body: str) -> list[str]:
    """``body`` cut at its top-level commas."""
    pairs = _brackets(body) or []
    inside = [(s, e) for _, s, e in pairs]
    parts, last = [], 0
    for i, char in enumerate(body):
        if char == "," and not any(s < i < e for s, e in inside) and not _in_string(body, i):
            parts.append(body[last:i].strip())
            last = i + 1
    tail = body[last:].strip()
    if tail:
        parts.append(tail)
    return parts


def _in_string(text: str, position: int) -> bool:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text + "\n").readline)
        return any(t.type == tokenize.STRING and t.start[1] <= position < t.end[1] for t in tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return True


def _value_start(text: str) -> int | None:
    """Where the value of a one-line ``target = value`` (or ``return value``) starts, else None."""
    if text.startswith("return "):
        return len("return ")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    if tokens and tokens[0].type == tokenize.NAME and tokens[0].string in KEYWORDS:
        return None
    depth = 0
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in OPENERS:
            depth += 1
        elif tok.type == tokenize.OP and tok.string in OPENERS.values():
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == "=" and depth == 0:
            return tok.end[1] + 1 if text[tok.end[1]:tok.end[1] + 1] == " " else None
    return None


def _split_code(line: str, limit: int) -> list[list[str]]:
    """Candidate splits of one code line, best first."""
    indent = line[: len(line) - len(line.lstrip())]
    text = line.lstrip()
    pairs = _brackets(text)
    if pairs is None:
        return []
    inner = indent + "    "
    out: list[list[str]] = []
    for _depth, start, end in sorted(pairs, key=lambda p: (p[0], -p[2])):
        body = text[start + 1:end].strip()
        if not body:
            continue
        head, tail = indent + text[: start + 1], indent + text[end:]
        if len(head) > limit or len(tail) > limit:
            continue
        if len(inner) + len(body) <= limit:
            out.append([head, inner + body, tail])
        items = _items(body)
        if len(items) > 1:
            out.append([head, *(f"{inner}{item}," for item in items), tail])
    value = _value_start(text)
    if value is not None and "#" not in text[value:]:  # `x = <value>` / `return <value>`: the value in parentheses
        out.append([indent + text[:value] + "(", inner + text[value:].strip(), indent + ")"])
    return out


def fit_lines(original: str, new: str, limit: int) -> str:
    """``new`` with the lines the run wrote (absent from ``original``) kept within ``limit``."""
    newline = "\r\n" if "\r\n" in new else "\n"
    lines = new.split(newline)
    seen = Counter(original.split(newline))
    todo = []
    for number, line in enumerate(lines):
        if seen[line] > 0:
            seen[line] -= 1
        elif len(line) > limit:
            todo.append(number)
    if not todo:
        return new
    expected = _tree(new)
    if expected is None:  # syntax newer than this interpreter: nothing can be checked, nothing is split
        return new
    result = list(lines)
    for number in reversed(todo):  # from the bottom: earlier numbers stay valid
        line = result[number]
        if line.lstrip().startswith("#"):
            candidates = [_wrap_comment(line, limit)]
        else:
            candidates = [c for c in _split_code(line, limit) if all(len(x) <= limit for x in c)]
        for candidate in candidates:
            trial = result[:number] + candidate + result[number + 1:]
            if _tree(newline.join(trial)) == expected:
                result = trial
                break
    return newline.join(result)
