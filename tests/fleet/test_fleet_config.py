"""Fleet config: TOML and mcpServers JSON, validation errors that name the line and key, targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_eras.bridge.fleet import config as fc

TOML = """\
[bridge]
request_timeout = 30
drain_timeout = 5

[servers.notes]
command = "python"
args = ["notes.py", "stdio"]
env = { NOTES = "1" }
env_passthrough = ["HOME"]
cwd = "srv"
era = "2025-11-25"

[servers.search]
url = "https://search.example/mcp"
bearer_env = "SEARCH_TOKEN"
headers = { X-Team = "core" }
request_timeout = 7
"""


def test_toml_round_trip_to_targets_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "fleet.toml"
    path.write_text(TOML)
    cfg = fc.load(path)
    assert sorted(cfg.servers) == ["notes", "search"]
    notes = fc.server_target("notes", cfg.servers["notes"], environ={"HOME": "/h", "SECRET": "x"}, base_dir=tmp_path)
    assert notes.command == ["python", "notes.py", "stdio"]
    assert notes.env == {"HOME": "/h", "NOTES": "1"} and notes.inherit_env is False
    assert notes.cwd == str((tmp_path / "srv").resolve())
    search = fc.server_target("search", cfg.servers["search"], environ={"SEARCH_TOKEN": "t0k"})
    assert search.url == "https://search.example/mcp"
    assert search.headers == {"X-Team": "core", "Authorization": "Bearer t0k"}
    s_notes = fc.server_settings(cfg.bridge, cfg.servers["notes"])
    s_search = fc.server_settings(cfg.bridge, cfg.servers["search"])
    assert (s_notes.upstream_era, s_notes.request_timeout) == ("2025-11-25", 30)
    assert (s_search.upstream_era, s_search.request_timeout) == ("auto", 7)


def test_env_passthrough_absent_inherits_everything() -> None:
    cfg = fc.parse('[servers.a]\ncommand = "x"\nenv = { A = "1" }\n')
    target = fc.server_target("a", cfg.servers["a"], environ={"PATH": "/bin"})
    assert target.inherit_env is True and target.env == {"A": "1"}


def test_missing_bearer_env_is_a_config_error() -> None:
    cfg = fc.parse('[servers.s]\nurl = "http://127.0.0.1:1/mcp"\nbearer_env = "NOPE_NOT_SET"\n')
    with pytest.raises(fc.ConfigError, match="NOPE_NOT_SET"):
        fc.server_target("s", cfg.servers["s"], environ={})


def test_mcp_servers_json(tmp_path: Path) -> None:
    path = tmp_path / "hosts.json"
    path.write_text('{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"], "env": {"A": "b"}},\n'
                    ' "web": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"K": "v"}}}}')
    cfg = fc.load(path)
    assert fc.server_target("fs", cfg.servers["fs"]).command == ["npx", "-y", "fs"]
    web = fc.server_target("web", cfg.servers["web"])
    assert (web.transport, web.headers) == ("sse", {"K": "v"})


@pytest.mark.parametrize(("text", "expected"), [
    ('[servers.a]\ncommand = "x"\n\n[servers.b]\ncommand = "y"\nbogus = 1\n', "f.toml:6: servers.b.bogus: unknown key"),
    ('[servers.a]\ncommand = "x"\nurl = "http://h/mcp"\n', "f.toml:1: servers.a: give exactly one of 'command'"),
    ('[servers.a]\ncommand = "x"\nera = "2024"\n', "f.toml:3: servers.a.era:"),
    ('[bridge]\nrequest_timeout = -1\n[servers.a]\ncommand = "x"\n', "f.toml:2: bridge.request_timeout:"),
    ('[servers.a]\nurl = "ftp://h"\n', "f.toml:2: servers.a.url: url must be an http"),
    ('[servers."a b"]\ncommand = "x"\n', "servers: server name 'a b'"),
    ('[servers.a]\ncommand = "x"\nheaders = { A = "b" }\n', "'headers' applies to HTTP upstreams"),
    ('[servers.a]\ncommand =\n', "invalid TOML: Invalid value (at line 2"),
    ('[bridge]\nlimits = { tasks_max = 0 }\n[servers.a]\ncommand = "x"\n', "f.toml:2: bridge.limits.tasks_max:"),
    ('[servers.a]\ncommand = "x"\n[servers.a.limits]\nmax_sessions = 3\n', "f.toml:4: servers.a.limits.max_sessions:"),
])
def test_toml_errors_name_line_and_key(text: str, expected: str) -> None:
    with pytest.raises(fc.ConfigError) as info:
        fc.parse(text, "f.toml")
    assert expected in str(info.value)


@pytest.mark.parametrize(("text", "expected"), [
    ('{"mcpServers": {\n  "a": {"command": "x",\n    "argz": []}}}', "f.json:3: mcpServers.a.argz: unknown key"),
    ('{"mcpServers": {\n  "a": {\n    "args": []}}}', "f.json:2: mcpServers.a: give exactly one"),
    ('{"mcpServers": {"a": {"command": "x"}},\n "servers": {}}', "f.json:2: unknown top-level key 'servers'"),
    ('{"mcpServers": {\n  "a": {"command": "x",}}}', "f.json:2:"),
    ('{"servers": {}}', "an 'mcpServers' object"),
])
def test_json_errors_name_line_and_key(text: str, expected: str) -> None:
    with pytest.raises(fc.ConfigError) as info:
        fc.parse(text, "f.json", "json")
    assert expected in str(info.value)


def test_limits_reach_each_servers_settings_and_a_server_overrides_key_by_key() -> None:
    cfg = fc.parse('[bridge]\nlimits = { pool_max_sessions = 16, tasks_per_principal = 4, session_idle_timeout = 60 }\n'
                   '[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "y"\n'
                   '[servers.b.limits]\ntasks_per_principal = 2\ntask_sessions_max = 3\n')
    a, b = (fc.server_settings(cfg.bridge, cfg.servers[n]) for n in "ab")
    assert (a.pool_max_sessions, a.tasks_per_principal, a.task_sessions_max, a.session_idle_timeout) == (16, 4, 64, 60)
    assert (b.pool_max_sessions, b.tasks_per_principal, b.task_sessions_max, b.session_idle_timeout) == (16, 2, 3, 60)
    assert (a.parked_total, a.legacy_sessions_max) == (1024, 10_000)  # untouched caps keep the defaults
    again = fc.parse('[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "y"\n[servers.b.limits]\ntasks_per_principal = 5\n')
    assert fc.fingerprint(cfg.bridge, cfg.servers["b"]) != fc.fingerprint(again.bridge, again.servers["b"])  # a reload applies it


def test_fingerprint_changes_only_with_the_server() -> None:
    a = fc.parse('[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "y"\n')
    b = fc.parse('[servers.a]\ncommand = "x"\n[servers.b]\ncommand = "z"\n')
    assert fc.fingerprint(a.bridge, a.servers["a"]) == fc.fingerprint(b.bridge, b.servers["a"])
    assert fc.fingerprint(a.bridge, a.servers["b"]) != fc.fingerprint(b.bridge, b.servers["b"])


def test_disabled_servers_are_not_served() -> None:
    cfg = fc.parse('[servers.a]\ncommand = "x"\ndisabled = true\n[servers.b]\ncommand = "y"\n')
    assert list(cfg.enabled()) == ["b"]


def test_shipped_examples_load() -> None:
    root = Path(__file__).resolve().parents[2] / "samples" / "fleet"
    assert len(fc.load(root / "fleet.toml").servers) == 5
    assert sorted(fc.load(root / "claude_desktop.json").servers) == ["legacy-stdio", "modern-http"]
