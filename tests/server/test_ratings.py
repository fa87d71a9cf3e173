"""Ratings: a rated game changes ratings exactly as openskill computes them for its ranking, once
per game id, atomically with the game's end; practice games and guests' games change nothing; a
log from before accounts upgrades in place."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from engine import GameRecord, Options, Outcome
from server.app import Server
from server.log.sqlite import accounts, schema
from server.log.sqlite.store import Store
from server.ratings import MU, SIGMA, Skill, rate, shown
from tests.server.clients import LineClient, WsClient, http_get
from tests.server.conftest import ServerFactory
from tests.server.test_store import old_log

PASSWORD = "correct horse battery"


def _expected(ranks: list[int]) -> list[tuple[float, float]]:
    model = PlackettLuce(mu=MU, sigma=SIGMA)
    teams = [[model.rating(mu=MU, sigma=SIGMA)] for _ in ranks]
    return [(r.mu, r.sigma) for (r,) in model.rate(teams, ranks=[float(x) for x in ranks])]


async def _two_registered_drop_game(server: Server, *options: str) -> dict[str, object]:
    """ann and bob, registered, play in a room with absent drop; bob goes: ann wins."""
    clients = []
    for name in ("ann", "bob"):
        c = await WsClient.connect(server.port, name)
        assert (await c.request({"type": "register", "password": PASSWORD}))["registered"] is True
        clients.append(c)
    ann, bob = clients
    await ann.command("/join rated")
    for option in ("absent drop", *options):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command("/join rated"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    return await ann.next("game_over")


async def test_a_rated_game_changes_ratings_as_openskill_computes(make_server: ServerFactory) -> None:
    """game_over carries each player's shown rating before and after, from openskill's
    Plackett-Luce update of the ranking; the store keeps the same numbers."""
    server: Server = await make_server(resume_window=0.3)
    over = await _two_registered_drop_game(server)
    (ann_after, bob_after) = _expected([1, 2])
    assert over["ratings"] == {
        "ann": {"before": 1000, "after": shown(*ann_after), "provisional": True},
        "bob": {"before": 1000, "after": shown(*bob_after), "provisional": True},
    }
    assert isinstance(server.store, Store)
    ann = await server.store.standing("account:ann")
    assert ann is not None and ann.skill == Skill(*ann_after, games=1, wins=1)


async def test_nobody_registers_or_unregisters_in_the_middle_of_a_game(make_server: ServerFactory) -> None:
    """A guest seated in a running game beside a registered player may not register (the game was
    unrated as it began, and the server gives hints in it), nor may the registered player delete
    the account: ``already_playing``, naming the room, and nothing changes; a terminal is refused
    before any password prompt. Once the game is over both may."""
    server: Server = await make_server(resume_window=0.3)
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert server.line_port is not None
    gus = await LineClient.connect(server.line_port, "gus")
    await ann.command("/join mixed")
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    await gus.line("/join mixed")
    await gus.expect("gus takes a seat")
    assert (await ann.command("/start"))["type"] == "ack"
    await gus.expect("The game starts")
    await gus.line("/register")
    said = await gus.expect("[already_playing]")
    assert "Password: " not in said and "room mixed" in said, said
    refused = await ann.request({"type": "unregister", "password": PASSWORD})
    assert refused["code"] == "already_playing" and "room mixed" in refused["message"], refused
    assert (await ann.command("/info"))["text"].count("Rated: no") == 1
    assert (await ann.command("/stand"))["type"] == "ack"  # (absent drop: ann leaves the game)
    await gus.expect("* Game over (last_player)")
    await gus.line("/register")
    for prompt in ("Password: ", "Password again: "):
        await gus.expect(prompt)
        await gus.line(PASSWORD)
    await gus.expect("gus is registered")
    assert (await ann.request({"type": "unregister", "password": PASSWORD}))["registered"] is False


async def test_a_practice_game_is_not_rated(make_server: ServerFactory) -> None:
    """A game whose room chose the seed carries no ratings and changes none."""
    server: Server = await make_server(resume_window=0.3)
    over = await _two_registered_drop_game(server, "seed 8")
    assert over["ratings"] is None
    assert await server.store.leaderboard(10) == []


async def _started(
    store: Store, game_id: str, identities: list[str | None], seed: int | None = None
) -> Outcome:
    """ann, bob and a greedy bot start ``game_id`` as ``identities`` (an account's is registered
    first, as it is before it plays); the outcome it will end with."""
    record = GameRecord(("ann", "bob", "greedy-bot1"), seed=1, options=Options())
    kinds = ["person", "person", "bot:greedy"]
    for name, identity in zip(record.players, identities, strict=True):
        if identity == f"account:{name}" and await store.account(name) is None:
            assert await store.account_created(name, "hash", None)
    await store.game_started(game_id, "r", record, kinds, {"seed": seed}, identities)
    return Outcome("end", {"ann": 5, "bob": 9, "greedy-bot1": 5}, {}, ("bob", "ann", "greedy-bot1"),
                   {"bob": 1, "ann": 2, "greedy-bot1": 2})  # fmt: skip


ACCOUNTS: list[str | None] = ["account:ann", "account:bob", None]


async def test_a_game_finished_again_after_a_restart_is_rated_once(tmp_path: Path) -> None:
    """Finishing a game a second time (a restart restoring it) returns the same changes and
    changes no rating again; a bot strategy is rated beside the people, and ties share a place."""
    store = Store(str(tmp_path / "cafe.db"))
    outcome = await _started(store, "g1", ACCOUNTS)
    first = await store.game_finished("g1", outcome)
    store.close()
    store = Store(str(tmp_path / "cafe.db"))
    again = await store.game_finished("g1", outcome)
    assert [(c.key, c.after) for c in again] == [(c.key, c.after) for c in first]
    assert {c.key for c in first} == {"account:ann", "account:bob", "bot:greedy"}
    expected = _expected([1, 2, 2])  # bob, ann, the bot
    bob = await store.standing("account:bob")
    assert bob is not None and (bob.skill.mu, bob.skill.sigma, bob.skill.games) == (*expected[0], 1)
    board = await store.leaderboard(10)
    assert board[0].key == "account:bob" and any(s.bot for s in board)
    store.close()


async def test_a_crash_inside_the_finishing_transaction_leaves_neither_then_rates_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while the ratings are written rolls the game's end back with them: the game is
    still unfinished (a restart restores it) and nothing is rated; finishing it then rates it once."""
    store = Store(str(tmp_path / "cafe.db"))
    outcome = await _started(store, "g1", ACCOUNTS)

    def crash(*args: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(accounts, "rate", crash)
    with pytest.raises(sqlite3.OperationalError):
        await store.game_finished("g1", outcome)
    store.close()
    monkeypatch.undo()
    store = Store(str(tmp_path / "cafe.db"))
    assert [g.game_id for g in await store.unfinished_games()] == ["g1"]
    assert await store.leaderboard(10) == []
    await store.game_finished("g1", outcome)
    await store.game_finished("g1", outcome)
    ann = await store.standing("account:ann")
    assert ann is not None and ann.skill.games == 1
    store.close()


async def test_guests_and_seeded_games_change_nothing(tmp_path: Path) -> None:
    """One registered person with a guest, or two with a chosen seed: not rated."""
    store = Store(str(tmp_path / "cafe.db"))
    outcome = await _started(store, "g1", ["account:ann", "guest-id", None])
    assert await store.game_finished("g1", outcome) == []
    outcome = await _started(store, "g2", ACCOUNTS, seed=42)
    assert await store.game_finished("g2", outcome) == []
    assert await store.leaderboard(10) == []
    store.close()


def test_a_log_from_before_accounts_upgrades_in_place(tmp_path: Path) -> None:
    """An old file gains the account and rating tables and the schema version; its game stays."""
    path = tmp_path / "old.db"
    old_log(path)
    store = Store(str(path))
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"accounts", "ratings", "rating_history", "games"} <= tables
    assert db.execute("SELECT id FROM games").fetchall() == [("old1",)]


async def test_lookups_by_command_and_http_after_a_rated_game(make_server: ServerFactory) -> None:
    """/rating, /top, /finger and /history NAME answer with the rated game; the HTTP API gives
    the profile, the games and the leaderboard as JSON, and 404 for an unknown name."""
    import json

    server: Server = await make_server(resume_window=0.3)
    over = await _two_registered_drop_game(server)
    ratings = over["ratings"]
    assert isinstance(ratings, dict)
    cem = await WsClient.connect(server.port, "cem")
    rating = await cem.command("/rating ann")
    assert rating["kind"] == "rating" and f"ann: {ratings['ann']['after']}?" in rating["text"]
    assert re.search(r"mu \d+\.\d, sigma \d+\.\d\d\)", rating["text"]), rating["text"]
    assert (await cem.request({"type": "lang", "lang": "de"}))["type"] == "ack"
    german = (await cem.command("/rating ann"))["text"]  # (German's decimal comma)
    assert re.search(r"mu \d+,\d; sigma \d+,\d\d\)", german), german
    assert (await cem.request({"type": "lang", "lang": "en"}))["type"] == "ack"
    top = (await cem.command("/top 5"))["text"]
    assert top.index("ann") < top.index("bob")
    assert (await cem.command("/top 1"))["text"].count("bob") == 0
    for beyond in ("0", "101"):  # the same bounds as the HTTP API's limit
        refused = await cem.command(f"/top {beyond}")
        assert refused["code"] == "bad_arguments" and "from 1 to 100" in refused["message"]
    finger = (await cem.command("/finger ann"))["text"]
    assert "rating" in finger and "games 1" in finger and "room rated" in finger
    assert "room rated: ann" in (await cem.command("/history ann"))["text"]
    status, _, body = await http_get(server.port, "/api/players/ann")
    player = json.loads(body)
    assert status == 200 and player["rating"] == ratings["ann"]["after"] and player["wins"] == 1
    status, _, body = await http_get(server.port, "/api/players/ann/games")
    assert status == 200 and len(json.loads(body)["games"]) == 1
    # an address ending with a slash is the same; one naming nobody is not found, as any other
    assert (await http_get(server.port, "/api/players/ann/games/")).body == body
    assert json.loads((await http_get(server.port, "/api/players/ann/")).body) == player
    nobody = await http_get(server.port, "/api/players/")
    assert (nobody.status, json.loads(nobody.body)) == (404, {"error": "not found"})
    status, _, body = await http_get(server.port, "/api/leaderboard?limit=1")
    assert status == 200 and [p["name"] for p in json.loads(body)["leaderboard"]] == ["ann"]
    nobody = await http_get(server.port, "/api/players/nobody")
    assert (nobody.status, json.loads(nobody.body)) == (404, {"error": "nobody is not registered"})
    # what can be no name is not repeated back (it may be anything: markup, controls, 8 KB)
    for junk in ("%3Cscript%3Ealert(1)%3C%2Fscript%3E", "a%0Ab", "%E2%80%AEevil", "a" * 2000):
        answer = await http_get(server.port, f"/api/players/{junk}")
        assert (answer.status, json.loads(answer.body)) == (404, {"error": "not a name"}), junk
    assert (await http_get(server.port, "/api/leaderboard?limit=x")).status == 400


async def test_who_shows_each_registered_persons_rating_and_marks_guests(make_server: ServerFactory) -> None:
    """``/who`` lists ann's rating after her rated game, a registered newcomer's starting rating
    (provisional), and no rating for a guest; a line client reads the same."""
    server: Server = await make_server(resume_window=0.3)
    over = await _two_registered_drop_game(server)
    ratings = over["ratings"]
    assert isinstance(ratings, dict)
    cem = await WsClient.connect(server.port, "cem")
    assert (await cem.request({"type": "register", "password": PASSWORD}))["registered"] is True
    dan = await WsClient.connect(server.port, "dan")
    people = {p["name"]: p for p in (await dan.request({"type": "who"}))["people"]}
    assert people["ann"]["rating"] == f"{ratings['ann']['after']}?"
    assert people["cem"]["rating"] == Skill().text() and people["cem"]["guest"] is False
    assert people["dan"]["rating"] is None and people["dan"]["guest"] is True
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "eve")
    await line.line("/who")
    shown_as = {}
    for name in ("ann", "eve"):  # the rows come in the order of who
        await line.expect(f"{name:<16} person ")
        shown_as[name] = (await line.expect("\n")).split()[0]
    assert shown_as == {"ann": f"{ratings['ann']['after']}?", "eve": "guest"}


def test_a_win_is_a_first_place_whoever_else_played() -> None:
    """A guest who finished first is left out of the ratings, not of the places: the registered
    player second to them has not won; a first place shared with a guest is a win."""

    fresh = Skill(MU, SIGMA, 0, 0)
    entrants = [("ann", "account:ann", fresh), ("bob", "account:bob", fresh)]
    behind_a_guest = rate(entrants, {"gus": 1, "ann": 2, "bob": 3})
    assert {change.name: change.after.wins for change in behind_a_guest} == {"ann": 0, "bob": 0}
    shared = rate(entrants, {"gus": 1, "ann": 1, "bob": 3})
    assert {change.name: change.after.wins for change in shared} == {"ann": 1, "bob": 0}
