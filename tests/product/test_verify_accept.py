"""`mcp-bridge verify --accept FILE` (known, expected differences do not fail) and `--quiet`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from product_helpers import bridge

from mcp_eras.bridge.fleet import verify_accept
from mcp_eras.bridge.fleet.verify import Difference

import peers

VARIANT = peers.SAMPLES / "fleet" / "variant_server.py"


def test_entries_match_by_section_item_pattern_and_optional_kind_and_values() -> None:
    diffs = [Difference("tools", "echo", "changed", {"d": 1}, {"d": 2}), Difference("calls", "tools/call fail", "changed", 1, 2),
             Difference("prompts", "hello", "only-old", {}, None)]
    entries = [{"section": "tools", "item": "echo", "kind": "changed", "new": {"d": 2}},
               {"section": "calls", "item": "tools/call *", "reason": "SDK v2 error codes"},
               {"section": "resources", "item": "*"}]
    left, accepted, unused = verify_accept.split(diffs, entries)
    assert [d.item for d in accepted] == ["echo", "tools/call fail"]
    assert [d.item for d in left] == ["hello"]
    assert unused == [{"section": "resources", "item": "*"}]
    assert not verify_accept.matches({"section": "tools", "item": "echo", "kind": "only-new"}, diffs[0].to_json())
    assert not verify_accept.matches({"section": "tools", "item": "echo", "old": {"d": 9}}, diffs[0].to_json())


def test_bad_accept_files_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "a.json"
    bad.write_text('[{"section": "tools"}]')
    with pytest.raises(ValueError, match="needs 'section' and 'item'"):
        verify_accept.load(bad)
    bad.write_text('{"section": "tools", "item": "x", "kind": "gone"}\n')
    with pytest.raises(ValueError, match="'kind' must be one of"):
        verify_accept.load(bad)
    proc = bridge("verify", "a", "b", "--accept", str(bad))
    assert proc.returncode == 2 and proc.stderr.startswith("mcp-bridge: --accept: ") and "Traceback" not in proc.stderr


@pytest.mark.legacy_peer
def test_accepted_differences_pass_and_quiet_prints_nothing(tmp_path: Path) -> None:
    old = shlex.join([peers.legacy_python(), str(VARIANT), "stdio"])
    new = shlex.join([peers.legacy_python(), str(VARIANT), "stdio", "--drift", "description"])
    loud = bridge("verify", old, new, "--json", timeout=120)
    assert loud.returncode == 1, loud.stderr[-2000:]
    diffs = json.loads(loud.stdout)["differences"]
    assert [(d["section"], d["item"]) for d in diffs] == [("tools", "echo")]
    quiet = bridge("verify", old, new, "--quiet", timeout=120)
    assert quiet.returncode == 1 and quiet.stdout == ""
    assert quiet.stderr.strip().splitlines()[-1] == "mcp-bridge: verify: 1 difference(s)"
    accept = tmp_path / "accept.jsonl"
    accept.write_text(json.dumps({"section": "tools", "item": "echo", "kind": "changed", "reason": "reworded"}) + "\n")
    ok = bridge("verify", old, new, "--accept", str(accept), timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr[-2000:]
    assert "EQUIVALENT" in ok.stdout and "accepted: tools 'echo' (changed)" in ok.stdout
