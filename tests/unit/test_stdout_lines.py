"""mcp_eras.bridge.translate.lines: a stdio child's stdout chunks cut into lines, with readline's limit."""

from __future__ import annotations

from mcp_eras.bridge.translate.lines import LineSplitter


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


def test_a_long_line_returns_the_lines_before_it_and_nothing_after() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"ok\n123456\nlater\n") == [b"ok"]
    assert lines.overflow
    assert lines.feed(b"more\n") == []
    assert lines.finish() == b""


def test_a_long_line_is_an_overflow_before_its_newline_arrives() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"ok\n123") == [b"ok"]
    assert not lines.overflow
    assert lines.feed(b"456") == []
    assert lines.overflow, "6 bytes held back without a newline: the line is over the limit whatever follows"
    assert lines.feed(b"\nnext\n") == []


def test_a_long_line_after_a_held_back_start_is_an_overflow() -> None:
    lines = LineSplitter(5)
    assert lines.feed(b"1234") == []
    assert lines.feed(b"56\nok\n") == []
    assert lines.overflow
