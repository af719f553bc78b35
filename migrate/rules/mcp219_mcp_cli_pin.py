"""MCP219 mcp-cli-pin (advisory): ``mcp dev``/``mcp install`` now pin ``mcp==<installed>`` in the uv
environment they spawn (python-sdk ``docs/migration.md`` § "mcp dev and mcp install pin the spawned
environment to your SDK version"). Reported where Python code runs them: an argument list
``["mcp", "dev"|"install", ...]`` or a command string ``"mcp dev ..."`` handed to ``subprocess``,
``os.system`` or asyncio's subprocess functions."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

RUNNERS = frozenset({
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
    "os.system", "os.popen", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell",
})
COMMANDS = ("dev", "install")


def _words(node: cst.Call) -> list[str]:
    """The first words of the command ``node`` runs (argument list, command string, or exec args)."""
    if not node.args:
        return []
    first = node.args[0].value
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    if isinstance(first, cst.List | cst.Tuple):
        items = [e.value for e in first.elements]
    elif isinstance(first, cst.SimpleString) and len(positional) == 1:
        text = first.evaluated_value
        return text.split()[:2] if isinstance(text, str) else []
    else:
        items = positional  # create_subprocess_exec("mcp", "dev", ...)
    words = []
    for item in items[:2]:
        value = item.evaluated_value if isinstance(item, cst.SimpleString) else None
        if not isinstance(value, str):
            break
        words.append(value)
    return words


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP219",
        "mcp-cli-pin",
        Kind.ADVISORY,
        Safety.REPORT,
        "`mcp dev`/`mcp install` now pin `mcp==<installed>` in the spawned uv environment",
        "mcp-dev-and-mcp-install-pin-the-spawned-environment-to-your-sdk-version",
    )
    TRIGGERS = ("mcp dev", "mcp install", '"dev"', "'dev'", '"install"', "'install'")

    def visit_Call(self, node: cst.Call) -> None:
        words = _words(node)
        if len(words) == 2 and words[0] == "mcp" and words[1] in COMMANDS and self.resolves_to(node.func, RUNNERS):
            self.report(node, f"`mcp {words[1]}` now pins mcp=={{installed}} in the environment it spawns: extra "
                              "packages still come from --with/--with-editable", fixed=False)
