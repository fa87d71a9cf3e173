"""The server's bots have one name each, after their strategy: ``strong-bot1``, ``strong-bot2``...
for the seats they take, and ``strong-bot`` for the strategy rated as one player, in every answer
that names it (``/top``, ``/rating``, ``/finger``, the profile and leaderboard of the HTTP API);
the strategy and a seat's name find the same."""

from __future__ import annotations

import json

from engine import GameRecord, Options, Outcome
from server.app import Server
from server.log.sqlite.store import Store
from tests.server.clients import WsClient, http_get


async def test_a_bot_seat_is_named_after_its_strategy(server: Server) -> None:
    """``/addbot strong`` seats ``strong-bot1``, the next ``strong-bot2``."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/join den"))["type"] == "ack"
    for _ in range(2):
        assert (await ann.command("/addbot strong"))["type"] == "ack"
    await ann.barrier()
    assert ann.view is not None
    assert [s["name"] for s in ann.view["seats"]] == ["ann", "strong-bot1", "strong-bot2"]


async def _rated_with_a_strong_bot(store: Store) -> None:
    """A finished rated game of ann, bob and strong-bot1, as the log holds one."""
    record = GameRecord(("ann", "bob", "strong-bot1"), seed=1, options=Options())
    kinds = ["person", "person", "bot:strong"]
    identities: list[str | None] = ["account:ann", "account:bob", None]
    for name in ("ann", "bob"):
        assert await store.account_created(name, "hash", None)
    await store.game_started("g1", "den", record, kinds, {"seed": None}, identities)
    scores, places = {"ann": 1, "bob": 5, "strong-bot1": 9}, {"strong-bot1": 1, "bob": 2, "ann": 3}
    outcome = Outcome("end", scores, {}, ("strong-bot1", "bob", "ann"), places)
    assert await store.game_finished("g1", outcome)


async def test_the_strategy_is_strong_bot_wherever_it_is_named(server: Server) -> None:
    """After a rated game against a strong bot, ``/top``, ``/rating`` and ``/finger`` name the
    strategy ``strong-bot`` (never ``strong``, nor ``strong (bot)``), whether asked as
    ``strong-bot``, ``strong`` or ``strong-bot1``; the API's profile and leaderboard name it so."""
    assert isinstance(server.store, Store)
    await _rated_with_a_strong_bot(server.store)
    cem = await WsClient.connect(server.port, "cem")
    top = (await cem.command("/top"))["text"].splitlines()
    assert top[1].split()[:2] == ["1", "strong-bot"], top
    asked = ("strong-bot", "strong", "Strong-Bot1")
    (rating,) = {(await cem.command(f"/rating {name}"))["text"] for name in asked}
    assert rating.startswith("strong-bot: "), rating
    finger = (await cem.command("/finger strong-bot1"))["text"]
    assert finger.startswith("strong-bot (bot strategy): rating "), finger
    for name in ("strong-bot", "strong-bot1", "strong"):
        status, _, body = await http_get(server.port, f"/api/players/{name}")
        profile = json.loads(body)
        assert (status, profile["name"], profile["bot"]) == (200, "strong-bot", True)
        assert profile["rated_games"] == 1
    status, _, body = await http_get(server.port, "/api/leaderboard?limit=5")
    assert status == 200 and json.loads(body)["leaderboard"][0]["name"] == "strong-bot"


async def test_a_strategy_not_rated_yet_has_its_name_and_profile(server: Server) -> None:
    """Before any rated game, ``/rating greedy-bot`` and ``/finger greedy-bot`` answer with the
    starting rating under that name; the API's profile exists too."""
    cem = await WsClient.connect(server.port, "cem")
    assert (await cem.command("/rating greedy"))["text"] == "greedy-bot: 1000? (no rated games yet)"
    finger = (await cem.command("/finger greedy-bot"))["text"]
    assert finger == "greedy-bot (bot strategy): rating 1000?, 0 rated games, 0 won"
    status, _, body = await http_get(server.port, "/api/players/greedy-bot")
    assert status == 200 and json.loads(body)["name"] == "greedy-bot"
