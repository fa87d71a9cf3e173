"""The pages the server makes beside the static web page: the rules (``docs/rules.md`` as HTML) and
the public positions of a finished game, for the replay viewer.

Both are built without a template engine: the rules page wraps the Markdown rendered with
raw HTML turned off (the document is the project's own, but nothing in it may become markup the
page did not mean), and a replay is plain JSON the viewer draws.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from engine import leave, play
from engine.game import seed_hash
from engine.notation import parse_leave
from protocol.view import LastMove, room_view
from server.store import StoredGame

__all__ = ["replay_steps", "rules_page"]

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs.css">
</head>
<body>
<header class="doc-top"><a href="/">☕ Back to the café</a></header>
<main class="doc">
{body}
</main>
</body>
</html>
"""


@lru_cache(maxsize=4)
def _rules_html(path: Path, mtime: float) -> bytes:
    """The rules page for the file at ``path`` as it was at ``mtime`` (a new edit renders anew)."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = markdown.render(path.read_text(encoding="utf-8"))
    return _PAGE.format(title="The rules — Café International", body=body).encode()


def rules_page(static: Path) -> bytes | None:
    """The rules as an HTML page, from ``rules.md`` among the page's files; ``None`` without it."""
    path = static / "rules.md"
    try:
        return _rules_html(path.resolve(), path.stat().st_mtime)
    except OSError:
        return None


def replay_steps(game: StoredGame) -> dict[str, Any]:
    """Every public position of ``game``, from the deal to the end, as the engine computes them:
    ``steps[0]`` is the start, ``steps[n]`` the position after move ``n`` with that move. A
    position is the ``game`` part of a room's view for a spectator: no hand, no deck order."""
    record = game.record
    position = record.start()
    steps: list[dict[str, Any]] = []

    def step(last: LastMove | None) -> None:
        view = room_view(
            room=game.room,
            state="over" if len(steps) == len(record.moves) else "playing",
            seats=[],
            spectators=[],
            options={"stammtisch": record.options.stammtisch},
            position=position,
            recipient=None,
            last_move=last,
            outcome=None,
            move_number=len(steps),
            history=[],  # each step names its own move; a history per step would repeat them all
        )
        steps.append({"move": None if last is None else _move_json(last), "game": view["game"]})

    step(None)
    for move in record.moves:
        leaver = parse_leave(move)
        result = play(position, move) if leaver is None else leave(position, leaver)
        position = result.position
        last = LastMove(record.players[result.player], result.move, result.points)
        step(last)
    return {
        "id": game.game_id,
        "room": game.room,
        "players": list(record.players),
        "seed_hash": seed_hash(record.seed),
        "result": game.result,
        "steps": steps,
    }


def _move_json(move: LastMove) -> dict[str, Any]:
    return {"player": move.player, "move": move.move, "points": move.points}


def not_found_page(what: str) -> bytes:
    """A small HTML page saying ``what`` was not found."""
    return _PAGE.format(title="Not found — Café International", body=f"<p>{escape(what)}</p>").encode()
