"""The command line: its flags and commands, the server's settings it reads, and the exit
status and error line of each outcome."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from protocol.messages import MAX_REASON
from protocol.sanitize import sanitize_line
from server.admin.commands import (
    ban,
    ban_seconds,
    new_password,
    set_role,
    show_modlog,
    show_reports,
    unban,
)
from server.admin.data import backup, check
from server.admin.store import AdminError, Opened
from server.config import Config, ConfigError, load_config
from server.log.contract import LogTooNew, RecordsTooNew, RecordsTooOld, RecordsUnavailable, StoreUnavailable

PROG: Final = "cafe-admin"

#: the roles ``role`` gives (``none`` takes a role away)
ROLE_CHOICES: Final = ("admin", "moderator", "none")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Administer a Café International server's data while it runs: roles, bans,"
        " passwords, the moderation log, reports, backups and a check of the data.",
        epilog="Where the data is comes from the flags or, like the server's, from CAFE_DATA,"
        " CAFE_REDIS and CAFE_DATABASE; with --redis the cluster's data is used, else the SQLite file.",
    )
    parser.add_argument("--data", metavar="FILE", help="the server's SQLite file [env CAFE_DATA]")
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="a cluster's Redis (redis://HOST:PORT/0, rediss://, unix://PATH) [env CAFE_REDIS]",
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="a cluster's records in PostgreSQL (postgresql://...), with --redis [env CAFE_DATABASE]",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    role = commands.add_parser("role", help="give or take a role: admin, moderator or none")
    role.add_argument("name", metavar="NAME")
    role.add_argument("role", choices=ROLE_CHOICES, metavar="admin|moderator|none")
    role.add_argument("--reason", type=_reason, default="", help="why, for the moderation log")

    ban = commands.add_parser("ban", help="bar NAME from logging in for DURATION (30m, 2h, 7d or perm)")
    ban.add_argument("name", metavar="NAME")
    ban.add_argument("duration", type=_duration, metavar="DURATION")
    ban.add_argument("--reason", type=_reason, required=True, help="why, for NAME and the moderation log")

    unban = commands.add_parser("unban", help="lift NAME's ban")
    unban.add_argument("name", metavar="NAME")
    unban.add_argument("--reason", type=_reason, default="", help="why, for the moderation log")

    password = commands.add_parser(
        "password", help="give the account NAME a new random password (shown once) and revoke its tokens"
    )
    password.add_argument("name", metavar="NAME")

    modlog = commands.add_parser("modlog", help="the moderation log, newest first")
    modlog.add_argument("name", metavar="NAME", nargs="?", help="only where NAME acted or was acted on")
    modlog.add_argument("--limit", type=_positive, default=50, metavar="N", help="entries shown (50)")

    reports = commands.add_parser("reports", help="open reports, newest first")
    reports.add_argument("--all", action="store_true", help="resolved ones too")
    reports.add_argument("--limit", type=_positive, default=50, metavar="N", help="reports shown (50)")

    backup = commands.add_parser("backup", help="a consistent copy of the SQLite file, while the server runs")
    backup.add_argument("file", metavar="FILE", type=Path)

    commands.add_parser("check", help="the data's schema version, and that every unfinished game replays")
    for command in commands.choices.values():  # (an argument too many is the command's to refuse)
        command.set_defaults(command_parser=command)
    return parser


def _duration(text: str) -> str:
    """``text`` if it is a duration ``ban`` takes; a bad one is argparse's error (status 2)."""
    try:
        ban_seconds(text)
    except AdminError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _reason(text: str) -> str:
    """A reason as the server takes one from its staff: on one line, without controls (the log
    prints an entry a line, and people read it), of at most ``MAX_REASON`` characters."""
    shown = sanitize_line(text)
    if len(shown) > MAX_REASON:
        raise argparse.ArgumentTypeError(f"a reason is at most {MAX_REASON} characters")
    return shown


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not 1 <= number <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer from 1 to 100000")
    return number


def settings(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The server's configuration as the flags and ``CAFE_*`` variables give it (the flags win)."""
    flags: list[str] = []
    for name in ("data", "redis", "database"):
        value = getattr(args, name)
        if value is not None:
            flags += ["--" + name, value]
    return load_config(flags, os.environ if environ is None else environ)


def main(argv: Sequence[str] | None = None) -> int:
    args, extra = build_parser().parse_known_args(argv)
    if extra:
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        config = settings(args)
    except ConfigError as e:
        return _fail(str(e), 2)
    # the pool's warnings as it tries again to reach PostgreSQL: the one line below says it
    logging.getLogger("psycopg").setLevel(logging.CRITICAL)
    try:
        return asyncio.run(_run(args, config))
    except AdminError as e:
        return _fail(str(e))
    except LogTooNew as e:
        return _fail(f"{config.data}: {e}", 2)
    except (RecordsTooNew, RecordsTooOld) as e:  # as a SQLite file of another version: left as it is
        return _fail(f"PostgreSQL: {e}; run the cafe-admin of the version the nodes run")
    except RecordsUnavailable as e:
        return _fail(f"the data cannot be reached: PostgreSQL: {e}")
    except (StoreUnavailable, OSError) as e:
        return _fail(f"the data cannot be reached: {e}")
    except sqlite3.Error as e:
        return _fail(f"{config.data}: SQLite: {e}")
    except Exception as e:
        if type(e).__module__.startswith(("redis", "psycopg")):  # the cluster's stores, out of reach
            return _fail(f"the data cannot be reached: {type(e).__name__}: {e}")
        raise


def _fail(message: str, status: int = 1) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status


async def _run(args: argparse.Namespace, config: Config) -> int:
    command: str = args.command
    if command == "backup":
        return backup(config, args.file)
    if command == "check":
        return await check(config)
    opened = Opened(config)
    async with opened as store:
        if command == "role":
            return await set_role(store, args.name, args.role, args.reason)
        if command == "ban":
            return await ban(opened, args.name, args.duration, args.reason)
        if command == "unban":
            return await unban(store, args.name, args.reason)
        if command == "password":
            return await new_password(store, config, args.name)
        if command == "modlog":
            return await show_modlog(store, args.name, args.limit)
        assert command == "reports", command
        return await show_reports(store, args.all, args.limit)
