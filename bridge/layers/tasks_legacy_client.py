"""Direction B tasks shell: a 2025-11-25 client's experimental tasks (through the legacy front) served by
a server that speaks the 2026 ``io.modelcontextprotocol/tasks`` extension (a 2026 server, or a 2025 tasks
server behind ``TasksUpstream``'s direction A: the two compose).

The legacy front hands canonical requests to the upstream; for a 2025 client (``ctx.client_era``) this
layer answers ``tasks/get``, ``tasks/result``, ``tasks/list``, ``tasks/cancel`` and a ``tools/call`` that
carried ``params.task`` (kept by the front under ``TASK_REQUEST_META``). ``tasks/result`` polls the
upstream's ``tasks/get``; the task's ``inputRequests`` come back to the legacy front as an
``input_required`` result, which its MRTR loop turns into real server->client requests on the 2025
session; the retried ``tasks/result`` carries the answers, forwarded with ``tasks/update``. Decisions
are functions of ``mcp_eras.bridge.translate.legacy_client.tasks``.

``tasks/list`` lists the caller principal's 2025-client tasks (the canonical request does not name the
2025 session; anonymous callers share one principal, like ``requestState`` binding); scaled out, those held by
every instance (``TasksUpstream.listing``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit
from mcp_eras.bridge.layers.tasks_room import TaskRoom
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.jsonrpc import METHOD_NOT_FOUND, Message
from mcp_eras.bridge.translate.legacy_client import tasks as tb

Serve = Callable[[Message, CallContext, Emit], Awaitable[Message]]


class ClientTasksOwner(Protocol):
    """What the 2025 clients' task layer uses of the tasks layer it serves in (``TasksUpstream``): the records, their
    caps, ids and clock, and the upstream's discovery."""

    settings: Settings
    store: tk.TaskStore
    room: TaskRoom
    now_ms: Callable[[], int]
    mint: Callable[[], str]

    listing: Callable[[str | None], Awaitable[list[tk.TaskRecord]]] | None

    async def discover(self, ctx: CallContext) -> Message: ...


class LegacyClientTasks:
    def __init__(self, owner: ClientTasksOwner, serve: Serve) -> None:
        self.owner = owner
        self.serve = serve
        """The 2026 path (direction A when the upstream is a 2025 server, else the upstream itself)."""
        self.upstream_tasks: bool | None = None

    def wants(self, request: Message, ctx: CallContext) -> bool:
        return tb.served_here(request, ctx.client_era)

    async def supported(self, ctx: CallContext) -> bool:
        if self.upstream_tasks is None:
            discover = await self.owner.discover(CallContext(principal=ctx.principal, authorization=ctx.authorization))
            self.upstream_tasks = tk.advertises_extension(discover.get("capabilities"))
        return self.upstream_tasks

    async def handle(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        method = request["method"]
        rid = request["id"]
        supported = await self.supported(ctx)
        route = tb.route(method, supported)
        if route == "tools":
            resp = await self.serve(request, ctx, emit)
            if supported and isinstance(resp.get("result"), dict):
                resp = {**resp, "result": tb.tools_with_task_support(resp["result"])}
            return resp
        if route == "plain":
            return await self.serve(tb.without_task_request(request), ctx, emit)
        if route == "create":
            return await self._create(request, ctx, emit)
        if route == "not_found":
            return jsonrpc.error_response(rid, METHOD_NOT_FOUND, f"Method not found: {method}")
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        if route == "list":
            listing = self.owner.listing
            records = await listing(ctx.principal) if listing is not None else self.owner.store.owned_by(ctx.principal)
            return tb.list_answer(rid, records, params.get("cursor"))
        record = self._owned(ctx, tk.task_id_param(params))
        if route == "get":
            record = await self._refresh(request, record, ctx, emit)
            return tb.answer(rid, tb.legacy_task(record))
        if route == "cancel":
            tb.check_cancellable(record)
            if record.upstream_id is not None:
                await self.serve(tb.upstream_request(request, "tasks/cancel", {"taskId": record.upstream_id}), ctx, emit)
            record = self._owned(ctx, record.bridge_id)
            task = tb.cancelled(record, self.owner.now_ms())
            self.owner.store.put(record)
            return tb.answer(rid, task)
        return await self._result(request, record, ctx, emit)

    def _owned(self, ctx: CallContext, task_id: str) -> tk.TaskRecord:
        record = tk.owned(self.owner.store, ctx.principal, task_id, self.owner.now_ms())
        if record.client_era != eras.LEGACY:
            raise tk.not_found(task_id)
        return record

    async def _create(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        ask = tb.task_request(request) or {}
        with self.owner.room.admitted(ctx.principal):  # (a task counts as unfinished until a poll sees it end)
            resp = await self.serve(tb.modern_call(request), ctx, emit)
            result = resp.get("result")
            if not tb.creates_task(result):
                return resp
            record = tb.new_record(result, bridge_id=self.owner.mint(), principal=ctx.principal, session=None,
                                   now_ms=self.owner.now_ms(), requested_ttl=tb.requested_ttl(ask))
            self.owner.store.put(record)
        return tb.answer(request["id"], tb.create_result(record))

    async def _refresh(self, request: Message, record: tk.TaskRecord, ctx: CallContext, emit: Emit) -> tk.TaskRecord:
        """One upstream ``tasks/get``; a visible change is also announced (2025 ``notifications/tasks/status``)."""
        if record.terminal or record.upstream_id is None:
            return record
        resp = await self.serve(tb.upstream_request(request, "tasks/get", {"taskId": record.upstream_id}), ctx, emit)
        record = self._owned(ctx, record.bridge_id)
        if tb.refreshed(record, resp, self.owner.now_ms()):
            self.owner.store.put(record)
            await emit(tb.status_notification(record))
        return record

    async def _result(self, request: Message, record: tk.TaskRecord, ctx: CallContext, emit: Emit) -> Message:
        """2025 ``tasks/result``: block until terminal (bounded by the request timeout), asking the client
        for the task's inputs on the way (2025 §Result Retrieval, §Input Required Status)."""
        rid = request["id"]
        params = request["params"]
        answers = tb.take_answers(record, params.get("inputResponses"))
        if answers:
            self.owner.store.put(record)
            resp = await self.serve(tb.upstream_request(request, "tasks/update", tb.update_params(record, answers)), ctx, emit)
            if "error" in resp:
                return tb.input_refused(rid, resp["error"])
        deadline = time.monotonic() + self.owner.settings.request_timeout
        while True:
            record = await self._refresh(request, self._owned(ctx, record.bridge_id), ctx, emit)
            kind, value = tb.result_step(record)
            if kind == "done":
                return {"jsonrpc": "2.0", "id": rid, **value}
            if kind == "ask":
                round_ = tb.input_round(record, value)
                self.owner.store.put(record)
                return jsonrpc.result_response(rid, round_)
            left = deadline - time.monotonic()
            if left <= 0:
                raise tb.result_timeout(record)
            await asyncio.sleep(tb.poll_wait_s(value, left))


__all__ = ["LegacyClientTasks"]
