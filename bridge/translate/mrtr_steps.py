"""The steps both MRTR machines return: one vocabulary for the two directions of a multi round-trip request.

2026-07-28 basic/patterns/mrtr.mdx replaces the 2025 server->client requests (``elicitation/create``,
``sampling/createMessage``, ``roots/list``) with an ``input_required`` result that the client answers by retrying
with ``inputResponses``. The bridge translates either way:

* direction A (``legacy_server.call``): a 2025 server asks mid-call; the 2026 client is asked with an
  ``input_required`` round, and its answers go back to the server as the responses to its requests;
* direction B (``legacy_client.mrtr``): a 2026 server answers ``input_required``; the 2025 client is asked with
  real requests, and the server is called again with the answers.

In both, "client" is the peer in front of the bridge and "server" the upstream behind it. A machine takes an event
(a frame from the server, the client's answers, a deadline) and returns a list of steps in the order the shell
executes them; the last is often the one that waits (``AskClient``, ``Resume``) or ends the request (``Finish``).
The steps are plain values, slotted rather than frozen: one is made per relayed frame, and a frozen dataclass sets
each field through ``object.__setattr__``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId


@dataclass(slots=True)
class ToServer:
    """A frame for the server: the request itself, an answer to one of its requests, a refusal, a cancellation."""

    frame: Message


@dataclass(slots=True)
class ToClient:
    """A notification for the client, on the stream of the request being served (progress, logs, completions)."""

    frame: Message


@dataclass(slots=True)
class AskClient:
    """Ask the client for input, by input key.

    Direction A: ``inputs`` are the 2026 ``inputRequests`` entries (request objects without an id, 2026-07-28
    basic/patterns/mrtr.mdx §InputRequests); the client gets them in an ``input_required`` result and answers by
    retrying. Direction B: ``inputs`` are 2025 server->client requests with bridge-minted ids; the shell sends each
    and hands the answers, by the same keys, back to the machine."""

    inputs: dict[str, Any]


@dataclass(slots=True)
class Wake:
    """Call the machine's timer event at ``at_ms`` (a deadline the machine named, e.g. a round's coalescing window)."""

    at_ms: int


@dataclass(slots=True)
class Resume:
    """Call the server with ``request`` (the original request again, with the round's answers) after ``delay``
    seconds, and give the machine its response."""

    request: Message
    delay: float = 0.0


@dataclass(slots=True)
class Finish:
    """The final response for the client: the request is over."""

    response: Message


Step = ToServer | ToClient | AskClient | Wake | Resume | Finish


class GiveUp(Exception):
    """The rounds cannot complete; the request ends with this JSON-RPC error (by default -32603, 2026-07-28
    basic/index.mdx §Error Codes). ``message`` names what failed, ``data`` carries what the client needs to see it."""

    def __init__(self, message: str, data: Any = None, code: int = errors.INTERNAL_ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
        self.code = code

    def to_response(self, request_id: RequestId | None) -> Message:
        return jsonrpc.error_response(request_id, self.code, self.message, self.data)

    def finish(self, request_id: RequestId | None) -> Finish:
        return Finish(self.to_response(request_id))


def to_client(frames: Iterable[Message]) -> list[Step]:
    """``ToClient`` steps for notifications, in order."""
    return [ToClient(frame) for frame in frames]


def to_server(frames: Iterable[Message]) -> list[Step]:
    """``ToServer`` steps for frames, in order."""
    return [ToServer(frame) for frame in frames]


def notes(steps: Iterable[Step]) -> list[Message]:
    """The notifications ``steps`` send the client."""
    return [step.frame for step in steps if isinstance(step, ToClient)]


def final(steps: list[Step]) -> Step:
    """The step that ends a list of steps (the one the shell waits on, or the final response)."""
    return steps[-1]
