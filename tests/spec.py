"""The spec's own data for tests: 2026-07-28 example messages and JSON Schema validation per era.

Data under tests/data/spec/ comes from the public specification repository
modelcontextprotocol/modelcontextprotocol (see tests/data/spec/README.md for commit and license).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SPEC = Path(__file__).resolve().parent / "data" / "spec"
EXAMPLES = SPEC / "2026-07-28" / "examples"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"


def example(kind: str, name: str | None = None) -> Any:
    """One example message of the 2026-07-28 schema (the first of its folder unless named)."""
    folder = EXAMPLES / kind
    path = folder / name if name else sorted(folder.iterdir())[0]
    return json.loads(path.read_text())


def examples(kind: str) -> list[tuple[str, Any]]:
    return [(p.name, json.loads(p.read_text())) for p in sorted((EXAMPLES / kind).iterdir())]


@cache
def _validator(era: str, definition: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SPEC / era / "schema.json").read_text())
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


@cache
def _ext_tasks_validator(definition: str) -> jsonschema.Draft202012Validator:
    core = json.loads((SPEC / MODERN / "schema.json").read_text())["$defs"]
    ext = json.loads((SPEC / "ext-tasks" / "schema.json").read_text())["$defs"]
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": {**core, **ext}})


def ext_tasks(definition: str, instance: Any) -> None:
    """Validate against the 2026-07-28 tasks extension schema (ext-tasks/schema.json over the core schema)."""
    _ext_tasks_validator(definition).validate(instance)


def valid(era: str, definition: str, instance: Any) -> None:
    """Raise jsonschema.ValidationError unless ``instance`` is a valid ``definition`` of ``era``."""
    _validator(era, definition).validate(instance)


def legacy(definition: str, instance: Any) -> None:
    valid(LEGACY, definition, instance)


def modern(definition: str, instance: Any) -> None:
    valid(MODERN, definition, instance)
