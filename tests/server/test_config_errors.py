"""A bad setting, by flag or by environment variable: one line naming it, its value and what is
allowed, and exit status 2, from the server process itself."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import annotated_types
import pytest

from server.config import Config, ConfigError, allowed, load_config
from server.log.sqlite.store import Store

#: settings whose refusal is checked: (flag or variable, value, the line's end)
REFUSED = [
    (["--port", "abc"], {}, "--port: 'abc' is not an integer from 0 to 65535"),
    (["--max-per-ip", "0"], {}, "--max-per-ip: '0' is not an integer of 1 or more"),
    ([], {"CAFE_PORT": "abc"}, "CAFE_PORT: 'abc' is not an integer from 0 to 65535"),
    ([], {"CAFE_MAX_PER_IP": "0"}, "CAFE_MAX_PER_IP: '0' is not an integer of 1 or more"),
    ([], {"CAFE_LEASE": "0"}, "CAFE_LEASE: '0' is not a number from 0.5 to 600"),
    # a number without end, or none, is no setting: a lease or a bot's budget of inf never ends
    (["--lease", "inf"], {}, "--lease: 'inf' is not a number from 0.5 to 600"),
    (["--ping-interval", "1e400"], {}, "--ping-interval: '1e400' is not a number greater than 0"),
    (["--bot-budget", "inf"], {}, "--bot-budget: 'inf' is not a number greater than 0, at most 60"),
    (["--rate", "nan"], {}, "--rate: 'nan' is not a number greater than 0"),
    # an empty address would listen on every interface, an empty file keep nothing
    ([], {"CAFE_HOST": ""}, "CAFE_HOST: '' is not an address or a host name"),
    (["--data", ""], {}, "--data: '' is not a file's path, or :memory:"),
    # a bound above too is named: 20 is greater than 0, and refused for the other bound
    (["--analysis-budget", "20"], {}, "--analysis-budget: '20' is not a number greater than 0, at most 10"),
    (["--line-port", "-2"], {}, "--line-port: '-2' is not an integer from -1 to 65535"),
    (["--log-format", "xml"], {}, "--log-format: 'xml' is not json or console"),
    # a setting only a cluster reads, given to a single server, which would ignore it
    (
        ["--redis-durability", "fsync"],
        {},
        "--redis-durability (CAFE_REDIS_DURABILITY) needs --redis (CAFE_REDIS): only a cluster uses it",
    ),
    (
        [],
        {"CAFE_NODE_ID": "n1"},
        "--node-id (CAFE_NODE_ID) needs --redis (CAFE_REDIS): only a cluster uses it",
    ),
    (
        ["--trusted-proxies", "10.0.0.5/8"],
        {},
        "--trusted-proxies: '10.0.0.5/8' is not a comma list of addresses or networks, a network"
        " without host bits (10.0.0.5,172.28.0.0/16)",
    ),
    (
        ["--trusted-proxies", "10.0.0.5,haproxy"],
        {},
        "--trusted-proxies: '10.0.0.5,haproxy' is not a comma list of addresses or networks, a"
        " network without host bits (10.0.0.5,172.28.0.0/16)",
    ),
    # an origin is what a browser sends: a scheme, a host, perhaps a port, and nothing more
    (
        [],
        {"CAFE_ALLOWED_ORIGINS": "notanorigin"},
        "CAFE_ALLOWED_ORIGINS: 'notanorigin' is not * or a comma list of origins"
        " (https://cafe.example.org,http://127.0.0.1:8765)",
    ),
    (
        ["--allowed-origins", "https://cafe.example.org/play"],
        {},
        "--allowed-origins: 'https://cafe.example.org/play' is not * or a comma list of origins"
        " (https://cafe.example.org,http://127.0.0.1:8765)",
    ),
    # the flag is the one refused, whatever the environment holds
    (["--port", "70000"], {"CAFE_PORT": "8000"}, "--port: '70000' is not an integer from 0 to 65535"),
    (
        ["--redis", "notaurl"],
        {},
        "--redis: 'notaurl' is not a URL starting with redis://, rediss:// or unix://",
    ),
    (
        ["--static-dir", "/no/such/folder"],
        {},
        "--static-dir (CAFE_STATIC_DIR): '/no/such/folder' is not a folder",
    ),
    (
        [],
        {"CAFE_DATABASE": "mysql://db"},
        "CAFE_DATABASE: 'mysql://db' is not a URL starting with postgresql:// or postgres://",
    ),
]


def run_server(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_")}
    return subprocess.run(
        [sys.executable, "-m", "server", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **env, "CAFE_DATA": ":memory:"},
    )


@pytest.mark.parametrize(("argv", "env", "line"), REFUSED)
def test_a_bad_setting_is_one_line_and_status_2(argv: list[str], env: dict[str, str], line: str) -> None:
    """cafe-server refuses a bad flag or CAFE_* value with one line on stderr and exit status 2."""
    done = run_server(argv, env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"cafe-server: error: {line}"]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_every_bounded_setting_says_what_it_takes() -> None:
    """Each numeric setting's refusal names its kind and bounds, each choice its choices."""
    for name, info in Config.model_fields.items():
        words = allowed(name)
        if info.annotation is int:
            assert words.startswith("an integer"), name
        elif info.annotation is float:
            assert words.startswith("a number"), name
    assert allowed("redis_durability") == "none, fsync or replica"
    assert allowed("resume_window") == "a number of 0 or more"
    for name, info in Config.model_fields.items():  # every upper bound is named
        highs = [b.le for b in info.metadata if isinstance(b, annotated_types.Le)]
        assert all(f"{high}" in allowed(name) for high in highs), name


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_that_cannot_start_says_why_in_one_event_and_exits_2(tmp_path: Path) -> None:
    """Its port taken, its host not this machine's, its data file not SQLite or its folder not
    one that can be made (a file stands in its path), its Redis out of reach: the server logs
    one error event saying what failed, no traceback, and exits 2."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    not_sqlite = tmp_path / "cafe.db"
    not_sqlite.write_text("not a database")
    cases = [
        (["--host", "127.0.0.1", "--port", str(taken.getsockname()[1])], "cannot_listen"),
        (["--host", "no-such-host.invalid", "--port", "0"], "cannot_listen"),
        (["--data", str(not_sqlite), "--port", "0"], "data_unreadable"),
        (["--data", str(not_sqlite / "sub" / "cafe.db"), "--port", "0"], "data_unreadable"),
        (["--redis", f"redis://127.0.0.1:{_free_port()}/0", "--port", "0"], "redis_unavailable"),
    ]
    with taken:
        for argv, event in cases:
            done = run_server([*argv, "--line-port", "-1", "--bot-workers", "0"], {})
            assert done.returncode == 2, (argv, done.stderr)
            assert "Traceback" not in done.stderr, done.stderr
            errors = [json.loads(line) for line in done.stderr.splitlines() if '"level": "error"' in line]
            assert [e["event"] for e in errors] == [event], done.stderr
            assert errors[0]["reason"]


def test_a_second_server_on_a_data_file_in_use_is_refused(tmp_path: Path) -> None:
    """Two servers on one SQLite file would replay and play the same games into one log: while
    a server holds the file, another says so in one event (``data_in_use``) and exits 2;
    ``cafe-admin`` and readers still open it. Once the first lets go, a server starts on it."""
    data = tmp_path / "cafe.db"
    holder = Store(str(data), exclusive=True)  # (as a running server's store holds it)
    try:
        done = run_server(["--data", str(data), "--port", "0", "--line-port", "-1", "--bot-workers", "0"], {})
        assert done.returncode == 2, done.stderr
        errors = [json.loads(line) for line in done.stderr.splitlines() if '"level": "error"' in line]
        assert [e["event"] for e in errors] == ["data_in_use"], done.stderr
        assert "another server runs on it" in errors[0]["reason"]
        reader = Store(str(data))  # (a reader is no server: it takes no lock)
        reader.close()
    finally:
        holder.close()
    again = Store(str(data), exclusive=True)
    again.close()


def test_an_optional_setting_left_empty_in_the_environment_is_not_given() -> None:
    """An environment file that blanks an optional setting (``CAFE_REDIS=``) means it unset, as
    it did before those settings had a form to check: one node, the bundled page."""
    blank = {"CAFE_REDIS": "", "CAFE_DATABASE": "", "CAFE_STATIC_DIR": "", "CAFE_NODE_ID": ""}
    config = load_config([], blank)
    assert (config.redis, config.database, config.static_dir, config.node_id) == (None, None, None, None)
    with pytest.raises(ConfigError, match="CAFE_PORT: '' is not an integer"):
        load_config([], {"CAFE_PORT": ""})  # a setting with a default still needs a value
