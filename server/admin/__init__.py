"""``cafe-admin``: the operator's command line, on the data the server uses, while it runs.

It opens the same store the server would (``--data`` for SQLite, ``--redis`` for a cluster, with
``--database`` for its records in PostgreSQL, or the server's ``CAFE_*`` variables) and works
through the storage contract (:mod:`server.log.contract`), as the server does: a role or a ban set
here holds in the server at once, since the server reads them from the store at each login and
command. Every change is written to the moderation log, by ``(operator)``.

Each command prints what it did and exits 0, or prints one ``cafe-admin: error: ...`` line and
exits 1 (2 for a command line or setting it cannot take, as argparse does)::

    cafe-admin role ann admin
    cafe-admin ban troll 7d --reason "insults in the lobby"
    cafe-admin unban troll
    cafe-admin password ann              # a new random password, shown once
    cafe-admin modlog --limit 20
    cafe-admin reports
    cafe-admin backup /var/backups/cafe-2026-12-05.db
    cafe-admin check
"""

from server.admin.cli import main

__all__ = ["main"]
