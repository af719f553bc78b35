"""bridge.jsonrpc.parse_frame: the nesting cap at its exact edge, on the shortest frames that reach it (the short-frame
bound and the bracket count skip the depth walk only where it could not refuse)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import MAX_DEPTH, FrameError


def _nested(depth: int) -> bytes:
    """A request whose deepest value sits ``depth`` levels down, as short as such a frame can be."""
    inner = depth - 2  # the frame > params > the nested arrays
    return b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + b"[" * inner + b"]" * inner + b"}}"


def _bare(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH])
def test_frames_at_the_cap_are_accepted(depth: int) -> None:
    assert jsonrpc.parse_frame(_nested(depth))["method"] == "m"
    assert jsonrpc.parse_frame(_nested(depth).decode())["method"] == "m"


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, MAX_DEPTH + 2])
def test_frames_past_the_cap_are_refused(depth: int) -> None:
    for frame in (_nested(depth), _nested(depth).decode()):
        with pytest.raises(FrameError, match="nested deeper"):
            jsonrpc.parse_frame(frame)


def test_the_shortest_frame_past_the_cap_is_not_taken_for_short() -> None:
    """``[[...]]`` MAX_DEPTH + 1 deep is exactly 2 * (MAX_DEPTH + 1) bytes: the shortest frame that is too deep."""
    frame = _bare(MAX_DEPTH + 1)
    assert len(frame) == 2 * (MAX_DEPTH + 1)
    assert jsonrpc.too_deep(frame, jsonrpc.orjson.loads(frame))
    assert not jsonrpc.too_deep(_bare(MAX_DEPTH), jsonrpc.orjson.loads(_bare(MAX_DEPTH)))


@pytest.mark.parametrize("rid", ["true", "false", "1.5", "null", "[1]", '{"a":1}'])
def test_ids_that_are_not_strings_or_integers_are_refused(rid: str) -> None:
    with pytest.raises(FrameError, match="id must be a string or an integer"):
        jsonrpc.parse_frame(b'{"jsonrpc":"2.0","id":' + rid.encode() + b',"method":"m"}')
    with pytest.raises(FrameError, match="response without a valid id"):
        jsonrpc.parse_frame(b'{"jsonrpc":"2.0","id":' + rid.encode() + b',"result":{}}')


@pytest.mark.parametrize("rid", ['"a"', "0", "-7", "12345678901234567890"])
def test_string_and_integer_ids_are_taken(rid: str) -> None:
    assert jsonrpc.parse_frame(b'{"jsonrpc":"2.0","id":' + rid.encode() + b',"method":"m"}')["method"] == "m"
    assert "result" in jsonrpc.parse_frame(b'{"jsonrpc":"2.0","id":' + rid.encode() + b',"result":{}}')
