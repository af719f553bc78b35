"""Import housekeeping after a rule removed the last use of an imported name."""

from __future__ import annotations

import re
import sys

import libcst as cst


def _module_name(node: cst.BaseExpression | None) -> str:
    return cst.Module([]).code_for_node(node) if node is not None else ""


def drop_unused(module: cst.Module, names: dict[str, frozenset[str]]) -> cst.Module:
    """Remove ``from <module> import <name>`` (``names``: module -> names) at module level when the
    name occurs nowhere else in the file (a mention in a string or comment keeps it: conservative).
    An import statement left empty disappears; its leading comments move to the next statement."""
    code = module.code
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    changed = False
    for stmt in module.body:
        if carried and hasattr(stmt, "leading_lines"):
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        imp = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        wanted = names.get(_module_name(imp.module)) if isinstance(imp, cst.ImportFrom) and not imp.relative else None
        if not wanted or isinstance(imp, cst.ImportFrom) and isinstance(imp.names, cst.ImportStar):
            body.append(stmt)
            continue
        assert isinstance(imp, cst.ImportFrom) and not isinstance(imp.names, cst.ImportStar)
        kept = [alias for alias in imp.names
                if not (alias.asname is None and isinstance(alias.name, cst.Name) and alias.name.value in wanted
                        and len(re.findall(rf"\b{re.escape(alias.name.value)}\b", code)) == 1)]
        if len(kept) == len(imp.names):
            body.append(stmt)
            continue
        changed = True
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            body.append(stmt.with_changes(body=[imp.with_changes(names=kept)]))
        else:
            carried = [line for line in stmt.leading_lines if line.comment is not None]
    return module.with_changes(body=body) if changed else module


def _import_key(stmt: cst.BaseStatement) -> tuple[int, int, str] | None:
    """isort's default order of a one-import line: section (future, standard library, third party,
    local), ``import x`` before ``from x import``, then the module name; None for anything else."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    imp = stmt.body[0]
    if isinstance(imp, cst.Import):
        name, kind = _module_name(imp.names[0].name), 0
    elif isinstance(imp, cst.ImportFrom):
        if imp.relative:
            return (3, 1, "." * len(imp.relative) + _module_name(imp.module))
        name, kind = _module_name(imp.module), 1
    else:
        return None
    top = name.split(".")[0]
    section = 0 if top == "__future__" else 1 if top in sys.stdlib_module_names else 2
    return (section, kind, name.lower())


def add_imports(module: cst.Module, lines: list[str]) -> cst.Module:
    """Add import statements (``"import x\n"`` source lines) missing from ``module`` to its top-level
    import block where isort would put them (by section, then ``import`` before ``from``, then name),
    never before the module docstring or ``__future__`` imports; after the last import otherwise."""
    code = module.code
    missing = [line for line in lines if line not in code]
    if not missing:
        return module
    body = list(module.body)
    for line in missing:
        new = cst.parse_statement(line)
        key = _import_key(new)
        last = 0
        block: list[tuple[int, tuple[int, int, str]]] = []
        for i, stmt in enumerate(body):
            found = _import_key(stmt)
            if found is not None:
                block.append((i, found))
                last = i + 1
            elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
                last = 1
            elif block:
                break  # the first top-level import block only
        position = last
        if key is not None and block and key[0] > 0:
            later = [i for i, found in block if found > key]
            same = [i for i, found in block if found[0] == key[0]]
            if same:  # within its own section, before the first that sorts after it
                position = next((i for i in later if i <= same[-1]), same[-1] + 1)
            elif later:
                position = later[0]
        following = dict(block).get(position)
        if following is not None:
            # put before an import X: first in the block or in X's section, it takes X's leading comments
            # and blank lines (X's own markers stay on X: they speak of that statement); before the first
            # import of a later section, it opens a section of its own and X keeps its lines
            first = body[position]
            lines = list(first.leading_lines)
            cut = next((n for n, ln in enumerate(lines) if ln.comment is not None
                        and ln.comment.value.startswith("# TODO(mcp-migrate ")), len(lines))
            other = key is not None and following[0] != key[0]
            if other and position != block[0][0]:
                new, kept = new.with_changes(leading_lines=[cst.EmptyLine()]), lines
            else:
                new, kept = new.with_changes(leading_lines=lines[:cut]), lines[cut:]
            if other and not any(ln.comment is None for ln in kept):
                kept = [cst.EmptyLine(), *kept]  # a blank line between its section and the next
            body[position] = first.with_changes(leading_lines=kept)
        elif key is not None and block and position == block[-1][0] + 1 and block[-1][1][0] < key[0]:
            new = new.with_changes(leading_lines=[cst.EmptyLine()])  # a section of its own, after the others
        body.insert(position, new)
    return module.with_changes(body=body)
