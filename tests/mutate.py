"""Mutation testing, one target at a time: ``python -m tests.mutate TARGET [MUTANT_GLOB ...]``.

A target names the source files whose mutants are tried, which of their functions (as mutmut
globs over mutant names), and the tests that should kill them. mutmut reads its settings from the
``pyproject.toml`` of the directory it runs in, so each target runs in a directory of its own,
``build/mutate/TARGET``, holding a copy of the sources, the tests, and the project's settings with
that target's ``[tool.mutmut]``. The results stay there, so ``mutmut show NAME`` run in that
directory shows a survivor; ``--fresh`` starts over.

The run is niced (19 unless ``--nice`` says otherwise) and uses one worker unless ``--children``
asks for more: the machine it runs on is shared, and niced work yields to the rest.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutate"
SOURCES = ("compiled", "engine", "protocol", "server", "bots")
#: pytest settings for every target: no per-test timeout (mutmut kills slow mutants itself)
PYTEST_ARGS = ["-o", "timeout=0", "-p", "no:cacheprovider"]


@dataclasses.dataclass(frozen=True)
class Target:
    """What one run mutates and which tests are asked to notice."""

    files: tuple[str, ...]
    tests: tuple[str, ...]
    #: mutant name globs (``server.lobby.lobby.xǁLobbyǁ_resume__mutmut_*``); empty: every mutant of the files
    mutants: tuple[str, ...] = ()
    #: a pytest ``-k`` expression that leaves out tests mutmut cannot use (a server in another process)
    keyword: str = ""


_ENGINE = (
    "board",
    "game",
    "leave",
    "notation",
    "position",
    "rules",
    "scoring",
    "bar_and_exchange",
    "end",
    "stammtisch",
    "rule_errors",
    "rules_told",
    "stammtisch_moves",
    "verify",
)
_ROOM = ("core", "members", "seats", "clock", "play", "votes", "door", "asks", "state")
_TRUST_TOKENS = (
    "a_newer_connection_replaces_the_older_one_cleanly",
    "an_old_token_takes_over_nobody",
    "quit_gives_up_the_token_even_while_the_name_is_free",
    "a_resume_with_the_old_connection_open_keeps_the_seat_of_a_drop_room",
    "a_new_hello_for_a_name_revokes_its_earlier_token",
    "a_resume_and_a_nick_issue_a_new_token_and_revoke_the_old",
    "a_nick_is_refused_with_its_code_and_id_or_keeps_the_player",
    "the_token_table_keeps_one_row_a_name",
    "a_token_expires_with_the_window_unless_a_seat_is_held",
    "tokens_survive_a_restart",
    "expired_tokens_are_pruned_but_not_those_of_held_seats",
)
#: the catalogues' check runs Babel over the checkout's own files, which a target's copy leaves out
_NOT_EXTRACTED = "not every_message_id_has_a_translation"
_ACCOUNT_TESTS = (
    "tests/server/test_passwords.py",
    "tests/server/test_accounts.py",
    "tests/server/test_unregister.py",
)
#: the storage contract's token tests (each runs on the SQLite log and on Redis)
_CONTRACT_TOKENS = (
    "an_issued_token_names_its_player",
    "a_new_token_revokes_the_names_earlier_one",
    "a_released_token_holds_until_it_expires",
    "releasing_a_revoked_token_brings_nothing_back",
    "a_revoked_token_is_forgotten_and_no_other",
)
_LOBBY_TOKENS = ("_hello", "_resume", "_taken_back", "_welcome", "detach_quietly", "_nick", "_quit", "detach")

TARGETS: dict[str, Target] = {
    "ratelimit": Target(
        ("server/ratelimit.py",), ("tests/server/test_ratelimit.py",), keyword="not over_a_socket"
    ),
    "diff": Target(("protocol/diff.py",), ("tests/protocol",), keyword=_NOT_EXTRACTED),
    "views": Target(("protocol/view.py",), ("tests/protocol",), keyword=_NOT_EXTRACTED),
    # the engine's example tests, in two seconds: not the hypothesis properties, the command line
    # (a process of its own) or perft (half a minute with mutmut's trampolines: its move counts
    # run move generation thousands of times); "rules-perft" tries those on what survives here
    "rules": Target(
        ("engine/rules.py",),
        # and the refusals as people read them: each sentence of the rules, with the values and
        # reason another language is made from
        (*(f"tests/engine/test_{name}.py" for name in _ENGINE), "tests/protocol/test_refusals.py"),
    ),
    "rules-perft": Target(("engine/rules.py",), ("tests/engine/test_perft.py",)),
    # the store's and the lobby's token code, against the tests of tokens and resuming only: the
    # lobby's functions are called by nearly every server test, and each would run for each mutant
    "tokens": Target(
        ("server/log/sqlite/tokens.py", "server/log/redis/store.py", "server/lobby/lobby.py"),
        (
            *(f"tests/server/test_log_contract.py::test_{name}" for name in _CONTRACT_TOKENS),
            "tests/cluster/test_redis_store.py",
            "tests/server/test_error_codes.py",
            "tests/server/test_lobby.py",
            "tests/server/test_lobby_texts.py",
            "tests/server/test_language.py::test_hello_in_german_gets_errors_and_notices_in_german",
            "tests/server/test_errors.py::test_hello_is_needed_first_and_names_are_unique",
            "tests/server/test_durability.py::test_reconnecting_with_the_token_reclaims_name_and_seat",
            "tests/server/test_live.py::test_a_closed_connection_is_not_kept_among_the_room_lists_watchers",
            *(f"tests/server/test_trust.py::test_{name}" for name in _TRUST_TOKENS),
        ),
        mutants=(
            "server.log.sqlite.tokens.xǁTokensǁ*",
            "server.log.redis.store.xǁRedisStoreǁtoken*",
            *(f"server.lobby.lobby.xǁLobbyǁ{name}__mutmut_*" for name in _LOBBY_TOKENS),
        ),
        keyword="not every_code_the_server_sends and not every_catalogue_code",  # they read the sources
    ),
    # the logs' token code alone, against the logs' own token tests: quick, where "tokens" is not
    "store-tokens": Target(
        ("server/log/sqlite/tokens.py", "server/log/redis/store.py"),
        (
            *(f"tests/server/test_log_contract.py::test_{name}" for name in _CONTRACT_TOKENS),
            "tests/cluster/test_redis_store.py",
            "tests/server/test_trust.py::test_expired_tokens_are_pruned_but_not_those_of_held_seats",
            "tests/server/test_trust.py::test_tokens_survive_a_restart",
        ),
        mutants=("server.log.sqlite.tokens.xǁTokensǁ*", "server.log.redis.store.xǁRedisStoreǁtoken*"),
    ),
    "room": Target(tuple(f"server/room/{name}.py" for name in _ROOM), ("tests/server/test_room_core*.py",)),
    # the accounts: hashing and checking passwords, the attempt limits, registering; against the
    # password and account tests over sockets, and the attempt counts' own
    "accounts": Target(("server/lobby/accounts.py",), _ACCOUNT_TESTS),
    # the account commands (register, unregister, password, logging in, the rating lookups)
    "account-commands": Target(
        ("server/lobby/account_commands.py",),
        (*_ACCOUNT_TESTS, "tests/server/test_ratings.py", "tests/server/test_bot_names.py"),
    ),
    # the line endpoint: lines in, the name prompt, password prompts, its place per address
    "line": Target(
        ("server/net/line.py",),
        (
            "tests/server/test_line.py",
            "tests/server/test_line_prompt.py",
            "tests/server/test_limits.py",
            "tests/server/test_accounts.py",
            "tests/server/test_passwords.py",
        ),
    ),
    # the limits per address and the hello deadline
    "limits": Target(("server/limits.py",), ("tests/server/test_limits.py",)),
    # what a line client reads for each message, and how long lines are carried on
    "lines": Target(("protocol/text/lines.py",), ("tests/protocol",), keyword=_NOT_EXTRACTED),
}


#: run only when named: perft over every mutant of the rules would take hours
ON_REQUEST = {"rules-perft"}


def _settings(target: Target) -> str:
    """The project's pyproject.toml with this target's ``[tool.mutmut]`` in place of its own."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)
    tests: list[str] = []
    for pattern in target.tests:
        path, _, test = pattern.partition("::")  # a file (or a glob of files), or one test in a file
        found = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(path))
        if not found:
            raise SystemExit(f"no tests match {pattern}")
        tests += [f"{name}::{test}" if test else name for name in found]
    args = [*PYTEST_ARGS, *(["-k", target.keyword] if target.keyword else [])]
    section = {
        "source_paths": list(SOURCES),
        "only_mutate": list(target.files),
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": args,
        "use_git_change_detection": False,
    }
    # a TOML string and a JSON string are spelled alike for these plain values
    lines = [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in section.items()]
    return text.rstrip() + "\n\n[tool.mutmut]\n" + "\n".join(lines) + "\n"


def _prepare(name: str, target: Target, fresh: bool) -> Path:
    """The target's directory with today's sources and tests (mutmut copies them on from there)."""
    folder = WORK / name
    if fresh and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # (and no compiled module: the mutants are of the sources, compiled/__init__.py)
    ignore = shutil.ignore_patterns("__pycache__", "node_modules", ".hypothesis", "*.so")
    for part in (*SOURCES, "tests"):
        if (folder / part).exists():
            shutil.rmtree(folder / part)
        shutil.copytree(ROOT / part, folder / part, ignore=ignore)
    # a source changed since the last run is newer than its mutants there (copytree keeps the
    # times): mutmut makes its mutants again; the tests are copied over the old ones
    (folder / "pyproject.toml").write_text(_settings(target), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "target", nargs="?", choices=sorted(TARGETS), help="every target but rules-perft if left out"
    )
    parser.add_argument("mutants", nargs="*", help="mutant name globs: only these (default: the target's)")
    parser.add_argument("--fresh", action="store_true", help="forget the results of earlier runs")
    parser.add_argument("--children", type=int, default=1, help="mutants tried at once (default: 1)")
    parser.add_argument("--nice", type=int, default=19, help="niceness of the run (default: 19)")
    args = parser.parse_args(argv)
    names = [args.target] if args.target else sorted(set(TARGETS) - ON_REQUEST)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CAFE_PURE": "1"}
    failed = 0
    for name in names:
        target = TARGETS[name]
        folder = _prepare(name, target, args.fresh)
        chosen = list(args.mutants or target.mutants)
        print(f"== {name}: {', '.join(target.files)}", flush=True)
        mutmut = [sys.executable, "-m", "mutmut"]
        started = time.monotonic()
        run = subprocess.run(
            ["nice", "-n", str(args.nice), *mutmut, "run", "--max-children", str(args.children), *chosen],
            cwd=folder,
            env=env,
        )
        failed |= run.returncode
        subprocess.run([*mutmut, "results"], cwd=folder, env=env)
        print(f"== {name}: {(time.monotonic() - started) / 60:.1f} min", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
