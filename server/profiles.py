"""What people look up about each other: a rating, the leaderboard, a profile; as text for
``/rating``, ``/top`` and ``/finger``, and as JSON for ``GET /api/players/NAME``,
``/api/players/NAME/games`` and ``/api/leaderboard``."""

from __future__ import annotations

import time
from typing import Any, Protocol
from urllib.parse import unquote

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from server.ratings import BOT, Skill, account_key
from server.store import GameLog, StoredGame
from server.store_accounts import Standing

#: the strategies of the server's bots, rated by these names
STRATEGIES = ("random", "greedy", "strong")
MAX_TOP = 100


class People(Protocol):
    async def people(self) -> list[m.Person]: ...


def key_of(name: str) -> str:
    """The rating key ``name`` stands for: a bot strategy's or an account's."""
    return BOT + name.lower() if name.lower() in STRATEGIES else account_key(name)


def _when(t: float | None) -> str:
    return "never" if t is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


async def rating_text(store: GameLog, name: str, msg_id: m.ClientId = None) -> str:
    key = key_of(name)
    standing = await store.standing(key)
    if standing is None:
        if not key.startswith(BOT) and await store.account(name) is None:
            raise ProtocolError(
                "no_such_player", _("{name} is not registered (guests are not rated).", name=name), msg_id
            )
        return f"{name}: {Skill().text()} (no rated games yet)"
    s = standing.skill
    detail = f"{s.games} rated games, {s.wins} won; mu {s.mu:.1f}, sigma {s.sigma:.2f}"
    return f"{standing.name}: {s.text()}  ({detail})"


async def with_ratings(store: GameLog, people: list[m.Person]) -> list[m.Person]:
    """``people`` with the shown rating of each registered person (looked up at once)."""
    keys = [account_key(p.name) for p in people if p.kind == "person" and not p.guest]
    if not keys:
        return people
    found = await store.standings(keys)

    def rated(p: m.Person) -> m.Person:
        if p.kind != "person" or p.guest:
            return p
        standing = found.get(account_key(p.name))
        return p.model_copy(update={"rating": (standing.skill if standing else Skill()).text()})

    return [rated(p) for p in people]


async def top_text(store: GameLog, limit: int) -> str:
    board = await store.leaderboard(max(1, min(limit, MAX_TOP)))
    if not board:
        return "No rated games yet."
    lines = ["  #  name              rating  games  wins"]
    for place, s in enumerate(board, 1):
        name = f"{s.name} (bot)" if s.bot else s.name
        lines.append(f"{place:>3}  {name:<16}  {s.skill.text():>6}  {s.skill.games:>5}  {s.skill.wins:>4}")
    return "\n".join(lines)


async def profile(store: GameLog, directory: People, name: str) -> dict[str, Any] | None:
    """A registered player's profile, or a bot strategy's rating; ``None`` for neither."""
    key = key_of(name)
    account = None if key.startswith(BOT) else await store.account(name)
    standing = await store.standing(key)
    if account is None and (standing is None or not standing.bot):
        return None
    skill = standing.skill if standing is not None else Skill()
    where = next((p for p in await directory.people() if p.name.casefold() == name.casefold()), None)
    games = [] if account is None else await store.history(key, 10)
    return {
        "name": account.name if account is not None else key.removeprefix(BOT),
        "bot": account is None,
        "registered": None if account is None else account.created,
        "last_seen": None if account is None else account.last_seen,
        "games": None if account is None else await store.games_count(key),
        "rated_games": skill.games,
        "wins": skill.wins,
        "rating": skill.shown,
        "provisional": skill.provisional,
        "online": where is not None,
        "room": None if where is None else where.room,
        "recent": [game_json(g) for g in games],
    }


def game_json(g: StoredGame) -> dict[str, Any]:
    return {
        "id": g.game_id,
        "room": g.room,
        "players": list(g.record.players),
        "started": g.started,
        "finished": g.finished,
        "ranking": None if g.result is None else g.result["ranking"],
        "final_scores": None if g.result is None else g.result["final_scores"],
    }


def standing_json(place: int, s: Standing) -> dict[str, Any]:
    return {
        "place": place,
        "name": s.name,
        "bot": s.bot,
        "rating": s.skill.shown,
        "provisional": s.skill.provisional,
        "games": s.skill.games,
        "wins": s.skill.wins,
    }


async def finger_text(store: GameLog, directory: People, name: str, msg_id: m.ClientId = None) -> str:
    p = await profile(store, directory, name)
    if p is None:
        raise ProtocolError("no_such_player", _("{name} is not registered.", name=name), msg_id)
    mark = "?" if p["provisional"] else ""
    if p["bot"]:
        games = f"{p['rated_games']} rated games, {p['wins']} won"
        return f"{p['name']} (bot strategy): rating {p['rating']}{mark}, {games}"
    where = "offline" if not p["online"] else (f"in room {p['room']}" if p["room"] else "in the lobby")
    lines = [
        f"{p['name']}  registered {_when(p['registered'])}, last seen {_when(p['last_seen'])}, now {where}",
        f"rating {p['rating']}{mark}  games {p['games']} ({p['rated_games']} rated, {p['wins']} won)",
    ]
    for g in p["recent"]:
        outcome = (
            "unfinished"
            if g["ranking"] is None
            else ", ".join(f"{n} {g['final_scores'][n]}" for n in g["ranking"])
        )
        lines.append(f"  {_when(g['started'])}  {g['id']}  room {g['room']}: {outcome}")
    return "\n".join(lines)


async def api(store: GameLog, directory: People, path: str) -> tuple[int, Any]:
    """``GET /api/players/NAME``, ``/api/players/NAME/games`` and ``/api/leaderboard?limit=N``:
    the status and the JSON body."""
    route, _, query = path.partition("?")
    if route == "/api/leaderboard":
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        text = params.get("limit", "10")
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_TOP:
            return 400, {"error": f"limit is a number from 1 to {MAX_TOP}"}
        board = await store.leaderboard(int(text))
        return 200, {"leaderboard": [standing_json(i, s) for i, s in enumerate(board, 1)]}
    name, _, rest = route.removeprefix("/api/players/").partition("/")
    name = unquote(name)
    if rest not in ("", "games"):
        return 404, {"error": "not found"}
    found = await profile(store, directory, name)
    if found is None:
        return 404, {"error": f"{name} is not registered"}
    if rest == "games":
        games = [] if found["bot"] else await store.history(account_key(name), 50)
        return 200, {"name": found["name"], "games": [game_json(g) for g in games]}
    return 200, found
