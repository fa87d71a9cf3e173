"""What people look up about each other: a rating, the leaderboard, a profile; as text for
``/rating``, ``/top`` and ``/finger``, and as JSON for ``GET /api/players/NAME``,
``/api/players/NAME/games`` and ``/api/leaderboard``."""

from __future__ import annotations

import time
from typing import Any, Protocol
from urllib.parse import unquote

from bots.strategy import STRATEGIES
from protocol import messages as m
from protocol.botnames import bot_name, bot_names, bot_strategy
from protocol.commands import TOP_MOST
from protocol.errors import ProtocolError
from protocol.i18n import Lang, Msg, _, _n, decimal, lazy
from protocol.names import is_name
from server.directory.privacy import Reader, seen_from
from server.log.contract import GameLog, Standing, StoredGame
from server.ratings import BOT, Skill, account_key


class People(Protocol):
    async def people(self) -> list[m.Person]: ...


#: every name of the server's bots' strategies: the strategy, its rated name, a seat's
_BOT_NAMES = bot_names(STRATEGIES)


def key_of(name: str) -> str:
    """The rating key ``name`` stands for: a bot strategy's (named as the strategy, ``strong``,
    its rated name, ``strong-bot``, or a seat's, ``strong-bot1``; no account can be called so) or
    an account's."""
    strategy = bot_strategy(_BOT_NAMES, name)
    return BOT + strategy if strategy is not None else account_key(name)


def shown_name(key: str, name: str) -> str:
    """The name the rating key ``key`` is shown under: a bot strategy's rated name
    (``strong-bot``), or an account's, ``name``."""
    return bot_name(key.removeprefix(BOT)) if key.startswith(BOT) else name


def _when(t: float | None, say: Lang) -> str:
    return say(_("never")) if t is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


def outcome_text(ranking: list[str] | None, scores: dict[str, int] | None, say: Lang) -> str:
    """A stored game's result for a list of games: the players by rank with their scores."""
    if ranking is None or scores is None:
        return say(_("unfinished"))
    return ", ".join(f"{n} {scores[n]}" for n in ranking)


def game_line(started: float, game_id: str, room: str, outcome: str, say: Lang) -> str:
    """One game of ``/history`` or ``/finger``: when, its id, its room and its result."""
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(started))
    return say(
        _("{when}  {game}  room {room}: {outcome}", when=when, game=game_id, room=room, outcome=outcome)
    )


async def rating_text(store: GameLog, name: str, msg_id: m.ClientId = None) -> Msg:
    key = key_of(name)
    standing = await store.standing(key)
    if standing is None:
        if not key.startswith(BOT) and await store.account(name) is None:
            raise ProtocolError(
                "no_such_player", _("{name} is not registered (guests are not rated).", name=name), msg_id
            )
        return _("{name}: {rating} (no rated games yet)", name=shown_name(key, name), rating=Skill().text())
    s = standing.skill
    detail = _n(
        "{n} rated game, {wins} won; mu {mu}, sigma {sigma}",
        "{n} rated games, {wins} won; mu {mu}, sigma {sigma}",
        s.games,
        wins=s.wins,
        mu=decimal(s.mu),
        sigma=decimal(s.sigma, 2),
    )
    return _(
        "{name}: {rating}  ({detail})",
        name=shown_name(standing.key, standing.name),
        rating=s.text(),
        detail=detail,
    )


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


async def top_text(store: GameLog, limit: int) -> Msg:
    board = await store.leaderboard(limit)
    if not board:
        return _("No rated games yet.")

    def draw(say: Lang) -> str:
        head = [say(_("name")), say(_("rating")), say(_("games")), say(_("wins"))]
        # each column as wide as its heading in the reader's language, and at least as before
        w = [max(len(h), least) for h, least in zip(head, (16, 6, 5, 4), strict=True)]
        lines = [f"  #  {head[0]:<{w[0]}}  {head[1]:>{w[1]}}  {head[2]:>{w[2]}}  {head[3]:>{w[3]}}"]
        for place, s in enumerate(board, 1):
            name = shown_name(s.key, s.name)
            k = s.skill
            row = f"{place:>3}  {name:<{w[0]}}  {k.text():>{w[1]}}  {k.games:>{w[2]}}  {k.wins:>{w[3]}}"
            lines.append(row)
        return "\n".join(lines)

    return lazy(draw)


def history_text(games: list[StoredGame]) -> Msg:
    """``/history``: one line per game, newest first, in the reader's language."""
    if not games:
        return _("No games yet.")

    def draw(say: Lang) -> str:
        lines = []
        for g in games:
            ranking = None if g.result is None else g.result["ranking"]
            scores = None if g.result is None else g.result["final_scores"]
            lines.append(game_line(g.started, g.game_id, g.room, outcome_text(ranking, scores, say), say))
        return "\n".join(lines)

    return lazy(draw)


def _named(people: list[m.Person], name: str | None) -> m.Person | None:
    key = None if name is None else name.casefold()
    return next((p for p in people if p.name.casefold() == key), None)


async def games_seen(store: GameLog, key: str, limit: int, reader: Reader | None) -> list[StoredGame]:
    """The last ``limit`` games of the player ``key`` that ``reader`` may read (a private room's
    only by its players)."""
    return await store.history(key, limit, None if reader is None else reader.identity)


async def profile(
    store: GameLog, directory: People, name: str, reader: Reader | None = None
) -> dict[str, Any] | None:
    """A registered player's profile, or a bot strategy's rating; ``None`` for neither. Where the
    player is and which games they played are as ``reader`` may see them (a private room's name
    only for someone in it, its games only for their players)."""
    key = key_of(name)
    account = None if key.startswith(BOT) else await store.account(name)
    standing = await store.standing(key)
    if account is None and not key.startswith(BOT):  # a bot strategy has one before it is rated
        return None
    skill = standing.skill if standing is not None else Skill()
    people = await directory.people()
    reading = _named(people, None if reader is None else reader.name)
    found = _named(people, name)
    where = None if found is None else seen_from([found], None if reading is None else reading.room)[0]
    identity = None if reader is None else reader.identity
    games = [] if account is None else await games_seen(store, key, 10, reader)
    return {
        "name": shown_name(key, name if account is None else account.name),
        "bot": account is None,
        "registered": None if account is None else account.created,
        "last_seen": None if account is None else account.last_seen,
        "games": None if account is None else await store.games_count(key, identity),
        "rated_games": skill.games,
        "wins": skill.wins,
        "rating": skill.shown,
        "provisional": skill.provisional,
        "online": where is not None,
        "room": None if where is None else where.room,
        "private": where is not None and where.private,
        "recent": [game_json(g) for g in games],
        #: staff: ``admin`` or ``moderator``; ``None`` for everyone else
        "role": None if account is None else await store.role(account.name),
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
        "name": shown_name(s.key, s.name),
        "bot": s.bot,
        "rating": s.skill.shown,
        "provisional": s.skill.provisional,
        "games": s.skill.games,
        "wins": s.skill.wins,
    }


async def finger_text(
    store: GameLog, directory: People, name: str, msg_id: m.ClientId = None, reader: Reader | None = None
) -> Msg:
    p = await profile(store, directory, name, reader)
    if p is None:
        raise ProtocolError("no_such_player", _("{name} is not registered.", name=name), msg_id)
    rating = f"{p['rating']}{'?' if p['provisional'] else ''}"
    if p["bot"]:
        return _n(
            "{name} (bot strategy): rating {rating}, {n} rated game, {wins} won",
            "{name} (bot strategy): rating {rating}, {n} rated games, {wins} won",
            p["rated_games"],
            name=p["name"],
            rating=rating,
            wins=p["wins"],
        )

    def draw(say: Lang) -> str:
        if not p["online"]:
            where = say(_("offline"))
        elif p["room"]:
            where = say(_("in room {room}", room=p["room"]))
        else:
            where = say(_("in a private room") if p["private"] else _("in the lobby"))
        lines = [
            say(
                _(
                    "{name}  registered {registered}, last seen {seen}, now {where}",
                    name=p["name"],
                    registered=_when(p["registered"], say),
                    seen=_when(p["last_seen"], say),
                    where=where,
                )
            ),
            say(
                _(
                    "rating {rating}  games {games} ({rated} rated, {wins} won)",
                    rating=rating,
                    games=p["games"],
                    rated=p["rated_games"],
                    wins=p["wins"],
                )
            ),
        ]
        if p["role"] is not None:
            role = say(_("admin") if p["role"] == "admin" else _("moderator"))
            lines.insert(1, say(_("staff: {role}", role=role)))
        for g in p["recent"]:
            outcome = outcome_text(g["ranking"], g["final_scores"], say)
            lines.append("  " + game_line(g["started"], g["id"], g["room"], outcome, say))
        return "\n".join(lines)

    return lazy(draw)


async def api(store: GameLog, directory: People, path: str, reader: Reader | None = None) -> tuple[int, Any]:
    """``GET /api/players/NAME``, ``/api/players/NAME/games`` and ``/api/leaderboard?limit=N``:
    the status and the JSON body, as ``reader`` (who the request's token names) may see them."""
    route, _, query = path.partition("?")
    if route == "/api/leaderboard":
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        text = params.get("limit", "10")
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= TOP_MOST:
            return 400, {"error": f"limit is a number from 1 to {TOP_MOST}"}
        board = await store.leaderboard(int(text))
        return 200, {"leaderboard": [standing_json(i, s) for i, s in enumerate(board, 1)]}
    name, _, rest = route.removeprefix("/api/players/").partition("/")
    name, rest = unquote(name), rest.removesuffix("/")  # (an address may end with a slash)
    if not name or rest not in ("", "games"):
        return 404, {"error": "not found"}
    if not is_name(name):  # (nothing of what came is repeated: it may be anything)
        return 404, {"error": "not a name"}
    found = await profile(store, directory, name, reader)
    if found is None:
        return 404, {"error": f"{name} is not registered"}
    if rest == "games":
        games = [] if found["bot"] else await games_seen(store, account_key(name), 50, reader)
        return 200, {"name": found["name"], "games": [game_json(g) for g in games]}
    return 200, found
