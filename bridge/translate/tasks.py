"""Tasks across the eras, pure: the task record, its store, owner binding and the shared vocabulary.

The bridge keeps one ``TaskRecord`` per task it hands to a client. The record is plain data (it
round-trips through JSON, so a shared store can hold it) and names both sides of the mapping: the id
the client sees (``bridge_id``, minted by the bridge) and the id the upstream minted (``upstream_id``).

Sources (public):
* 2025-11-25 ``basic/utilities/tasks.mdx`` (experimental tasks: ``params.task``, ``tasks/get``,
  ``tasks/result``, ``tasks/list``, ``tasks/cancel``, ``notifications/tasks/status``).
* The ``io.modelcontextprotocol/tasks`` extension for 2026-07-28 (repository
  ``modelcontextprotocol/experimental-ext-tasks``, ``docs/specification/draft/tasks.mdx`` and
  ``schema/draft/schema.ts``): ``resultType: "task"``, ``tasks/get`` with the result inline,
  ``tasks/update``, ``tasks/cancel`` (empty ack), ``notifications/tasks`` on ``subscriptions/listen``.

Owner binding (2025 tasks.mdx §Security Considerations "Task Isolation and Access Control": when an
authorization context is provided, receivers MUST bind tasks to it and reject others' requests):
a record belongs to the principal that created it; any other caller gets the same -32602 as for an
unknown id (2025 §Error Handling "Invalid or nonexistent taskId"; ext §Error Handling), so a guessed
id reveals nothing. Bridge ids are random (ext §Security Considerations "Task ID unguessability").
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcp_eras.bridge.translate.eras import META_CLIENT_CAPABILITIES, META_RELATED_TASK, MODERN, request_meta
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY, FrameError, Message

EXTENSION = "io.modelcontextprotocol/tasks"
"""The 2026 extension identifier (ext tasks.mdx §Extension Identifier)."""

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""Both eras: terminal statuses never change (2025 §Task Status Lifecycle; ext §Task Status)."""

TASK_METHODS_2026 = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
TASK_METHODS_2025 = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})

NOT_FOUND_MESSAGE = "Failed to retrieve task: Task not found"

MAX_INPUTS_PER_TASK = 64
"""Cap on input requests one task may surface over its lifetime (named error beyond it)."""


def iso(now_ms: int) -> str:
    """An RFC 3339 / ISO 8601 UTC timestamp (both eras: ``createdAt``, ``lastUpdatedAt``)."""
    return datetime.fromtimestamp(now_ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class InputEntry:
    """One server->client request a task is waiting on."""

    key: str
    method: str
    params: dict[str, Any]
    peer_id: str | int | None = None
    """Direction A: the legacy server's JSON-RPC id for the request; direction B: the id the bridge
    used toward the 2025 client (None until sent)."""
    answered: bool = False


@dataclass
class TaskRecord:
    bridge_id: str
    upstream_id: str | None
    """None for a task the bridge settled itself (the upstream answered a task request directly)."""
    principal: str | None
    client_era: str
    upstream_era: str
    status: str
    created_ms: int
    updated_ms: int
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    status_message: str | None = None
    method: str = "tools/call"
    session: str | None = None
    """The 2025 client session that created it (direction B: ``tasks/list`` answers per session)."""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    inputs: dict[str, InputEntry] = field(default_factory=dict)
    next_input: int = 0
    client_capabilities: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskRecord:
        data = dict(data)
        data["inputs"] = {k: InputEntry(**v) for k, v in (data.get("inputs") or {}).items()}
        return cls(**data)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expired(self, now_ms: int) -> bool:
        return self.ttl_ms is not None and now_ms >= self.created_ms + self.ttl_ms

    def pending_inputs(self) -> dict[str, InputEntry]:
        return {k: e for k, e in self.inputs.items() if not e.answered}


class TaskStore(ABC):
    """Where task records live: in memory by default; a shared store keeps the same JSON shape."""

    @abstractmethod
    def put(self, record: TaskRecord) -> None: ...

    @abstractmethod
    def get(self, bridge_id: str) -> TaskRecord | None: ...

    @abstractmethod
    def delete(self, bridge_id: str) -> None: ...

    @abstractmethod
    def owned_by(self, principal: str | None, session: str | None = None) -> list[TaskRecord]:
        """Records of one principal (and, when given, one 2025 session), oldest first."""

    @abstractmethod
    def ids(self) -> list[str]:
        """Ids of every record held."""

    @abstractmethod
    def expired_ids(self, now_ms: int) -> list[str]:
        """Ids of every record whose TTL has passed (swept when the store is at its cap)."""

    @abstractmethod
    def __len__(self) -> int: ...


class MemoryTaskStore(TaskStore):
    """Keeps the JSON form, so whatever works here works with a store that serializes."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Any]] = {}

    def put(self, record: TaskRecord) -> None:
        self._items[record.bridge_id] = record.to_json()

    def get(self, bridge_id: str) -> TaskRecord | None:
        data = self._items.get(bridge_id)
        return TaskRecord.from_json(data) if data is not None else None

    def delete(self, bridge_id: str) -> None:
        self._items.pop(bridge_id, None)

    def owned_by(self, principal: str | None, session: str | None = None) -> list[TaskRecord]:
        out = [TaskRecord.from_json(d) for d in self._items.values() if d["principal"] == principal
               and (session is None or d["session"] == session)]
        return sorted(out, key=lambda r: (r.created_ms, r.bridge_id))

    def ids(self) -> list[str]:
        return list(self._items)

    def expired_ids(self, now_ms: int) -> list[str]:
        return [i for i, d in self._items.items() if d["ttl_ms"] is not None and now_ms >= d["created_ms"] + d["ttl_ms"]]

    def __len__(self) -> int:
        return len(self._items)


def not_found(task_id: Any = None) -> FrameError:
    data = {"taskId": task_id} if isinstance(task_id, str) else None
    return FrameError(INVALID_PARAMS, NOT_FOUND_MESSAGE, data)


def task_id_param(params: Any) -> str:
    """``params.taskId`` of a tasks/* request (both eras: a string), else -32602."""
    task_id = params.get("taskId") if isinstance(params, dict) else None
    if not isinstance(task_id, str) or not task_id:
        raise FrameError(INVALID_PARAMS, "Invalid params: taskId must be a non-empty string")
    return task_id


def owned(store: TaskStore, principal: str | None, task_id: str, now_ms: int) -> TaskRecord:
    """The caller's record for ``task_id``; unknown, foreign and expired ids get the same -32602."""
    record = store.get(task_id)
    if record is None or record.principal != principal:
        raise not_found(task_id)
    if record.expired(now_ms):
        store.delete(task_id)
        raise not_found(task_id)
    return record


def declares_extension(request: Message) -> bool:
    """Whether a 2026 request declares the tasks extension in its per-request capabilities
    (ext tasks.mdx §Capability Negotiation)."""
    meta = request_meta(request) or {}
    caps = meta.get(META_CLIENT_CAPABILITIES)
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def missing_extension(request_id: Any = None) -> FrameError:
    """-32021 MissingRequiredClientCapability naming the extension (2026-07-28 schema
    ``MissingRequiredClientCapabilityError``; ext tasks.mdx §Capability Negotiation)."""
    return FrameError(MISSING_CLIENT_CAPABILITY, "Missing required client capability",
                      {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}, id=request_id)


def with_extension(caps: dict[str, Any] | None) -> dict[str, Any]:
    """A capabilities object (client's or server's) that also declares the extension."""
    out = dict(caps or {})
    extensions = dict(out.get("extensions") or {})
    extensions[EXTENSION] = {}
    out["extensions"] = extensions
    return out


def advertises_extension(caps: Any) -> bool:
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def strip_related_task(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy without ``_meta["io.modelcontextprotocol/related-task"]`` (2025-only association key)."""
    meta = obj.get("_meta")
    if not isinstance(meta, dict) or META_RELATED_TASK not in meta:
        return dict(obj)
    out = {k: v for k, v in obj.items() if k != "_meta"}
    rest = {k: v for k, v in meta.items() if k != META_RELATED_TASK}
    if rest:
        out["_meta"] = rest
    return out


def related_task_of(msg: Message) -> str | None:
    params = msg.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    rel = meta.get(META_RELATED_TASK) if isinstance(meta, dict) else None
    task_id = rel.get("taskId") if isinstance(rel, dict) else None
    return task_id if isinstance(task_id, str) else None


def lost(record: TaskRecord, why: str, now_ms: int) -> None:
    """The upstream forgot a non-terminal task (its session or process ended): the task fails with a
    JSON-RPC error (ext tasks.mdx §Task Execution Errors: ``failed`` carries ``error``)."""
    if record.terminal:
        return
    record.status = "failed"
    record.error = {"code": INTERNAL_ERROR, "message": f"Upstream task lost: {why}"}
    record.status_message = record.error["message"]
    record.updated_ms = now_ms
    for entry in record.inputs.values():
        entry.answered = True


def owner_instance(task_id: str) -> str | None:
    """The bridge instance named by a scaled-out bridge id (``<random>.<instance>``; the random part has no
    dot), else None."""
    _random, dot, owner = task_id.partition(".")
    return owner if dot and owner else None


MAX_LISTED_SHARED = 1000
"""Records of one principal a scaled-out listing reads from the shared store (the task room caps far fewer)."""


def principal_index(principal: str | None) -> str:
    """The shared store's index naming one principal's task records: a digest, so a principal of any length or
    alphabet is a short key and not readable in the store."""
    return hashlib.sha256(b"tasks-of\n" + (principal or "").encode() + (b"" if principal is not None else b"\0")).hexdigest()


def listed_everywhere(local: list[TaskRecord], shared: list[dict[str, Any]], principal: str | None,
                      now_ms: int) -> list[TaskRecord]:
    """One principal's records across instances: this instance's own (the fresher copy of what it holds) and the
    shared copies of the others' (unreadable, foreign or expired ones left out), oldest first."""
    out = {r.bridge_id: r for r in local}
    for data in shared:
        try:
            record = TaskRecord.from_json(data)
        except (TypeError, ValueError, AttributeError):
            continue
        if record.bridge_id not in out and record.principal == principal and not record.expired(now_ms):
            out[record.bridge_id] = record
    return sorted(out.values(), key=lambda r: (r.created_ms, r.bridge_id))


def taken_over(record: TaskRecord, why: str, now_ms: int) -> bool:
    """A record taken over from a bridge instance that is gone; True when the task is lost with it. A 2026
    upstream holds the task itself (any instance reaches it): the task continues. A 2025 upstream's task
    lived in the gone instance's own upstream session: it fails as when an upstream child restarts."""
    if record.upstream_era == MODERN:
        return False
    lost(record, why, now_ms)
    return True


def apply_timing(record: TaskRecord, task: dict[str, Any], ttl_key: str, poll_key: str) -> None:
    """Copy ``statusMessage`` and the era's TTL/poll-interval fields (2025 ``ttl``/``pollInterval``,
    2026 ``ttlMs``/``pollIntervalMs``; both integer milliseconds, TTL null = unlimited)."""
    if isinstance(task.get("statusMessage"), str):
        record.status_message = task["statusMessage"]
    if ttl_key in task and (task[ttl_key] is None or isinstance(task[ttl_key], int)):
        record.ttl_ms = task[ttl_key]
    if isinstance(task.get(poll_key), int):
        record.poll_interval_ms = task[poll_key]


def new_input_key(record: TaskRecord) -> str:
    """Keys unique over the task's lifetime (ext tasks.mdx §Task Update Requests)."""
    if record.next_input >= MAX_INPUTS_PER_TASK:
        raise FrameError(INTERNAL_ERROR, f"Task input limit reached ({MAX_INPUTS_PER_TASK} input requests)",
                         {"limit": MAX_INPUTS_PER_TASK})
    record.next_input += 1
    return f"input-{record.next_input}"
