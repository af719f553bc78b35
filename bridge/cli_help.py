"""How the commands show their help: option groups, a word for each value, environment variables on request.

Typer prints a type in angle brackets for every parameter (``<bool>`` for a flag, ``<list[str]>``,
``<float>``), gives each option six columns and, at 80 columns, cuts long option names and environment
variables with ``…``. Commands built with ``Command`` (and apps with ``Group``) instead show:

* each option as one cell, ``--port, -p PORT``, beside its help and default, in the panel its
  ``rich_help_panel`` names (``render``);
* the declared ``metavar`` (``URL``, ``N``, ``SECONDS``, ``KEY=VALUE``), else a word for the type (``TEXT``,
  ``N``, ``NUMBER``, ``PATH``, the choices), and nothing for a flag;
* no environment variables in ``-h``: ``--help-env`` (``HelpEnvOpt``) prints every one in full, with its
  option, default and meaning. (An error about a value read from a variable still names the variable.)

Only typer, rich (typer's own dependency) and the standard library are imported here (``mcp-migrate`` uses it too).
"""

from __future__ import annotations

import inspect
import os
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

TYPE_WORDS = {"int": "N", "int range": "N", "float": "NUMBER", "float range": "NUMBER", "str": "TEXT", "path": "PATH",
              "file": "FILE", "directory": "DIR", "datetime": "TIME"}


def _word(shown: str) -> str:
    """``<list[str]>`` -> ``TEXT``, ``<int range>`` -> ``N``, ``<text|json>`` -> ``text|json``."""
    inner = shown.strip("<>").removesuffix("...").rstrip(">")
    if inner.startswith("list[") and inner.endswith("]"):
        inner = inner[5:-1]
    return TYPE_WORDS.get(inner, inner.upper() if inner.isidentifier() else inner)


def tidy(param: Any, ctx: Any) -> None:
    """Give an option without a declared metavar one: none for a flag, else a word for its type (idempotent;
    typer releases that print no ``<type>`` are left as they are)."""
    if getattr(param, "param_type_name", None) != "option" or param.metavar is not None:
        return
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        param.metavar = ""
    elif hasattr(param, "display_type_rich"):
        shown = param.display_type_rich(ctx)
        if isinstance(shown, str) and shown.startswith("<"):
            param.metavar = _word(shown)


class Command(TyperCommand):
    """A typer command whose help follows the module docstring, its options in two columns (``render``)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            tidy(param, ctx)
        return params

    def format_help(self, ctx: Any, formatter: Any) -> None:
        try:
            render(self, ctx)
        except ImportError:  # typer without rich (typer-slim): its plain layout
            super().format_help(ctx, formatter)


class Group(TyperGroup):
    """A typer app (command group): its few options (version, completion, help) with typer's layout, without
    ``<bool>`` and without the variables typer derives for its completion options."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            tidy(param, ctx)
            param.show_envvar = False
        return params


# --- the help page ---------------------------------------------------------------------------------
# typer's own panels give every parameter six columns (long, short, negative long, negative short, type, help)
# and measure the help cell as wide as the screen, so at 80 columns rich cuts option names with "…". Here an
# option is one cell (its names and metavar, never wrapped) beside its help (wrapped, with the default).


def names_of(param: Any) -> str:
    """``--port, -p PORT``, ``--pass-environment / --no-pass-environment``, an argument's metavar."""
    if getattr(param, "param_type_name", None) == "argument":
        return str(param.metavar or param.name.upper())
    names = ", ".join(sorted(param.opts, key=lambda o: not o.startswith("--")))
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    return f"{names} {param.metavar or ''}".rstrip()


def default_of(param: Any, ctx: Any) -> str | None:
    """The default shown in ``-h``: a declared text, else the value (None: nothing worth showing)."""
    shown = getattr(param, "show_default", None)
    if isinstance(shown, str):
        return shown
    value = param.default
    if shown is False or (shown is None and not ctx.show_default) or callable(value):
        return None
    if value is None or value is False or value == [] or value == ():
        return None
    if value is True:
        return param.opts[0] if param.secondary_opts else None
    return str(getattr(value, "value", value))


def _panels(command: Any, ctx: Any) -> dict[str, list[Any]]:
    """Arguments, the ungrouped options, then each ``rich_help_panel`` in declaration order."""
    panels: dict[str, list[Any]] = {"Arguments": [], "Options": []}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        kind = "Arguments" if param.param_type_name == "argument" else "Options"
        panels.setdefault(getattr(param, "rich_help_panel", None) or kind, []).append(param)
    return {name: params for name, params in panels.items() if params}


def render(command: Any, ctx: Any) -> None:
    """Print ``command``'s help on stdout: usage, description, then a panel per group of parameters."""
    from rich import box
    from rich.console import Console
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    width = os.environ.get("TERMINAL_WIDTH", "")
    console = Console(highlight=False, width=int(width) if width.isdigit() else None)
    console.print(Padding(Text(command.get_usage(ctx)), 1))
    first, *rest = inspect.cleandoc(command.help or "").partition("\f")[0].split("\n\n")
    if first:
        console.print(Padding(Text(" ".join(first.split())), (0, 1)))
        for paragraph in rest:
            console.print(Padding(Text(" ".join(paragraph.split()), style="dim"), (1, 1, 0, 1)))
        console.print()
    for title, params in _panels(command, ctx).items():
        table = Table(show_header=False, box=None, padding=(0, 1), pad_edge=False, expand=True)
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column(ratio=1, overflow="fold")
        for param in params:
            cell = Text(" ".join((param.help or "").split()))
            default = default_of(param, ctx)
            if default is not None:
                cell.append(f" [default: {default}]", style="dim")
            if param.required:
                cell.append(" [required]", style="dim red")
            table.add_row(names_of(param), cell)
        console.print(Panel(table, title=title, title_align="left", border_style="dim", box=box.ROUNDED))
    if command.epilog:
        console.print(Padding(Text(inspect.cleandoc(command.epilog)), 1))


# --- --help-env ----------------------------------------------------------------------------------


def envvar_of(param: Any, ctx: Any) -> str | None:
    """The environment variable an option reads (explicit, or the context's prefix + its name), or None."""
    if getattr(param, "param_type_name", None) != "option" or not param.expose_value:
        return None
    if param.envvar:
        return param.envvar if isinstance(param.envvar, str) else " ".join(param.envvar)
    if getattr(param, "allow_from_autoenv", False) and ctx.auto_envvar_prefix and param.name:
        return f"{ctx.auto_envvar_prefix}_{param.name.upper()}"
    return None


def _default(param: Any) -> str:
    if isinstance(param.show_default, str):
        return param.show_default
    value = param.default
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or value == [] or callable(value):
        return "-"
    return str(getattr(value, "value", value))


def _meaning(param: Any) -> str:
    return " ".join((param.help or "").split())


def env_rows(ctx: Any) -> list[tuple[str, str, str, str]]:
    """(variable, option, default, meaning) of every option of ``ctx.command`` that reads a variable."""
    rows = []
    for param in ctx.command.get_params(ctx):
        name = envvar_of(param, ctx)
        if name is not None:
            option = next((o for o in param.opts if o.startswith("--")), param.opts[0])
            rows.append((name, option, _default(param), _meaning(param)))
    return rows


def env_table(ctx: Any) -> str:
    rows = [("VARIABLE", "OPTION", "DEFAULT", "MEANING"), *env_rows(ctx)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])), row[3]]).rstrip() for row in rows]
    return (f"Environment variables of `{ctx.command_path}`: each sets the option beside it, which wins when given too.\n"
            "Flags take 1/true/yes or 0/false/no; a repeatable option takes several values separated by spaces.\n\n"
            + "\n".join(lines) + "\n")


def _print_env(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        typer.echo(env_table(ctx), nl=False)
        raise typer.Exit(0)


HelpEnvOpt = Annotated[bool, typer.Option("--help-env", is_eager=True, callback=_print_env, allow_from_autoenv=False,
                                          help="List the environment variable of every option, in full, and exit.")]

__all__ = ["Command", "Group", "HelpEnvOpt", "env_rows", "env_table", "envvar_of", "tidy"]
