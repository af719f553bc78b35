"""mcp_eras.bridge.translate.lines: a stdio child's stdout chunks cut into lines; a line over the frame limit is
dropped as it streams and the stream resynchronises on the next line (issue #33)."""

from __future__ import annotations

import json

from mcp_eras.bridge.translate.lines import LineSplitter, Oversized, over_limit_error, oversized_response_id


def test_a_line_split_across_chunks_comes_out_whole() -> None:
    lines = LineSplitter(100)
    assert lines.feed(b'{"a"') == []
    assert lines.feed(b":1") == []
    assert lines.feed(b'}\n{"b"') == [b'{"a":1}']
    assert lines.feed(b":2}\n") == [b'{"b":2}']
    assert lines.finish() == b""


def test_many_lines_in_one_chunk_come_out_in_order() -> None:
    lines = LineSplitter(100)
    assert lines.feed(b"one\ntwo\n\nthree\nfour") == [b"one", b"two", b"", b"three"]
    assert lines.finish() == b"four", "the last line without a newline, at end of stream"
    assert lines.finish() == b""


def test_the_limit_counts_a_line_without_its_newline() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"12345\n") == [b"12345"]
    assert lines.feed(b"12") == []
    assert lines.feed(b"345") == []
    assert not lines.overflow
    assert lines.feed(b"\n") == [b"12345"]
    assert not lines.overflow


def test_a_long_line_is_replaced_by_its_size_and_the_lines_after_it_are_served() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"ok\n123456\nlater\n") == [b"ok", Oversized(6, b"123456", b"123456"), b"later"]
    assert lines.oversized == 1
    assert lines.feed(b"more\n") == [b"more"]
    assert lines.finish() == b""


def test_a_long_line_is_dropped_as_it_arrives_and_never_held_whole() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"ok\n123") == [b"ok"]
    assert not lines.overflow
    assert lines.feed(b"456") == []
    assert lines.overflow, "6 bytes held back without a newline: the line is over the limit whatever follows"
    for _ in range(1000):
        assert lines.feed(b"x" * 1000) == []
    assert len(lines._partial) == 0 and len(lines._tail) <= 256
    out = lines.feed(b"END\nnext\n")
    assert out[1:] == [b"next"]
    dropped = out[0]
    assert isinstance(dropped, Oversized) and dropped.size == 6 + 1000 * 1000 + 3
    assert dropped.head == b"123456" + b"x" * 250 and dropped.tail.endswith(b"xEND")
    assert not lines.overflow


def test_a_long_last_line_at_end_of_stream_is_reported() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"1234") == []
    assert lines.feed(b"56") == []
    assert lines.finish() == Oversized(6, b"123456", b"123456")


def big(frame: dict) -> Oversized:
    data = json.dumps(frame).encode()
    return Oversized(len(data), data[:256], data[-256:])


def test_the_id_of_an_oversized_response_is_found_first_or_last() -> None:
    blob = "x" * 5000
    assert oversized_response_id(big({"jsonrpc": "2.0", "id": 7, "result": {"text": blob}})) == 7
    assert oversized_response_id(big({"id": "a-1", "jsonrpc": "2.0", "error": {"message": blob}})) == "a-1"
    # The TypeScript SDK's order: result first, id last.
    assert oversized_response_id(big({"result": {"text": blob, "id": 5}, "jsonrpc": "2.0", "id": 9})) == 9
    assert oversized_response_id(big({"jsonrpc": "2.0", "result": {"text": blob}, "id": 11})) == 11
    # Not a response, or an id hidden in the middle: unknown.
    assert oversized_response_id(big({"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage", "params": {"x": blob}})) is None
    assert oversized_response_id(big({"jsonrpc": "2.0", "method": "notifications/message", "params": {"id": 4, "x": blob}})) is None
    assert oversized_response_id(big({"result": {"text": blob, "id": 5}, "jsonrpc": "2.0"})) is None


def test_the_error_in_place_of_an_oversized_answer_names_the_limit() -> None:
    err = over_limit_error(7, Oversized(52428800, b"", b""), 16777216)
    assert err["id"] == 7 and err["error"]["code"] == -32603
    assert "frame limit" in err["error"]["message"] and "16777216" in err["error"]["message"]
    assert err["error"]["data"] == {"limit": "max_line_bytes", "maxLineBytes": 16777216, "bytes": 52428800}
