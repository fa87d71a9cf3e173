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

from engine import leave, play
from engine.game import seed_hash
from engine.notation import parse_leave
from protocol.i18n import DEFAULT, LANGUAGES, _, lang
from protocol.view import LastMove, room_view
from server.log.contract import StoredGame

__all__ = ["page_language", "replay_steps", "rules_page"]

_PAGE = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs.css">
</head>
<body>
<header class="doc-top"><a href="/">☕ {back}</a></header>
<main class="doc">
{body}
</main>
</body>
</html>
"""


@lru_cache(maxsize=8)
def _rules_html(path: Path, mtime: float, code: str) -> bytes:
    """The rules page for the file at ``path`` as it was at ``mtime`` (a new edit renders anew)."""
    # imported when the rules are first asked for, not by every start of the server
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = markdown.render(path.read_text(encoding="utf-8"))
    say = lang(code)
    title = say(_("The rules — Café International"))
    return _PAGE.format(lang=code, title=title, back=say(_("Back to the café")), body=body).encode()


def rules_page(static: Path, code: str = DEFAULT) -> bytes | None:
    """The rules as an HTML page in the language ``code``: ``rules.<code>.md`` among the page's
    files (``rules.md`` for English, and when a language has none); ``None`` without any."""
    translated = static / f"rules.{code}.md"
    if code != DEFAULT and translated.is_file():
        path = translated
    else:
        path, code = static / "rules.md", DEFAULT
    try:
        return _rules_html(path.resolve(), path.stat().st_mtime, code)
    except OSError:
        return None


def page_language(query: str, accept_language: str | None) -> str:
    """The language a page is asked in: ``?lang=de`` first, then the language the server speaks
    that the browser weighs highest (``Accept-Language``, its ``q``; ``q=0``: not at all; among
    equals the first listed), else English.

    >>> page_language("", "en;q=0.5,de;q=0.9"), page_language("", "de;q=0"), page_language("", "fr, de")
    ('de', 'en', 'de')
    """
    for part in query.split("&"):
        key, _sep, value = part.partition("=")
        if key == "lang" and value in LANGUAGES:
            return value
    best, weight = DEFAULT, 0.0
    for item in (accept_language or "").split(","):
        tag, *params = item.split(";")
        wanted = tag.strip().lower().split("-")[0]
        q = 1.0
        for param in params:
            name, _sep, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if wanted in LANGUAGES and q > weight and q <= 1.0:
            best, weight = wanted, q
    return best


def replay_steps(game: StoredGame) -> dict[str, Any]:
    """Every public position of ``game``, from the deal to the end, as the engine computes them:
    ``steps[0]`` is the start, ``steps[n]`` the position after move ``n`` with that move (its
    ``auto``: ``"clock"`` or ``"bot"`` when the server played it for its player, else ``None``). A
    position is the ``game`` part of a room's view for a spectator: no hand, no deck order."""
    record = game.record
    position = record.start()
    steps: list[dict[str, Any]] = []

    def step(last: LastMove | None, auto: str | None = None) -> None:
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
            practice=game.room_options.get("seed") is not None,  # (a seed chosen for the room)
        )
        played = None if last is None else {**_move_json(last), "auto": auto}
        steps.append({"move": played, "game": view["game"]})

    step(None)
    for number, move in enumerate(record.moves, 1):
        leaver = parse_leave(move)
        result = play(position, move) if leaver is None else leave(position, leaver)
        position = result.position
        last = LastMove(record.players[result.player], result.move, result.points, game.auto.get(number))
        step(last, game.auto.get(number))
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
