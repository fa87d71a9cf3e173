"""Every game log keeps the storage contract (``server/log/contract.py``): each test here runs on
the SQLite log, on Redis (a real redis-server, one for the module, emptied for each test), and on
Redis with the records in PostgreSQL (a real PostgreSQL server too, its tables emptied for each
test), for resume tokens, accounts and ratings, and people's lists."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import pytest

from engine import GameRecord, Options, Outcome
from server.log.contract import CLOSED, Account, GameLog, StoreUnavailable, TokenInfo
from server.log.sqlite.store import Store
from tests.server.logs import BACKENDS, fresh_log, postgres_for_module, redis_server
from tests.server.test_ratings import ACCOUNTS, _started

__all__ = ["postgres_for_module", "redis_server"]  # the fixtures, used by name

#: the fencing token of the only node: it owns room ``r``, where the games here are played
FENCE = "n:1"


@pytest.fixture(params=BACKENDS)
async def log(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[GameLog]:
    """A fresh, empty log of each backend."""
    async with fresh_log(request, tmp_path_factory, FENCE) as store:
        yield store


# --- resume tokens -------------------------------------------------------------------------------


async def test_an_issued_token_names_its_player(log: GameLog) -> None:
    """A new token stands for its name and player, with no end while its connection is open."""
    await log.token_issued("t1", "Ann", "id-ann")
    assert await log.token("t1") == TokenInfo("Ann", "id-ann", None)
    assert await log.token("t2") is None


async def test_a_new_token_revokes_the_names_earlier_one(log: GameLog) -> None:
    """A new token for a name, in any case, revokes the name's earlier one and no other name's."""
    await log.token_issued("a1", "ann", "id-ann")
    await log.token_issued("b1", "bob", "id-bob")
    await log.token_issued("a2", "ANN", "id-ann")
    assert await log.token("a1") is None
    assert await log.token("a2") == TokenInfo("ANN", "id-ann", None)
    assert await log.token("b1") == TokenInfo("bob", "id-bob", None)
    await log.token_issued("a3", "ann", "id-ann")
    assert await log.token("a2") is None
    assert await log.token("a3") == TokenInfo("ann", "id-ann", None)


async def test_a_token_issued_in_place_of_one_needs_that_one_to_be_the_names_still(log: GameLog) -> None:
    """A resume's new token replaces the one it came with only while that one is the name's: of
    two resumes with one token, the second issues nothing; nor does a revoked token's."""
    await log.token_issued("a1", "ann", "id-ann")
    assert await log.token_issued("a2", "ann", "id-ann", replacing="a1") is True
    assert await log.token_issued("a3", "ann", "id-ann", replacing="a1") is False
    assert await log.token("a2") == TokenInfo("ann", "id-ann", None)
    assert await log.token("a3") is None
    await log.token_issued("b1", "bob", "id-bob")
    assert await log.token_issued("a4", "ann", "id-ann", replacing="b1") is False  # (bob's)
    await log.token_revoked("a2")
    assert await log.token_issued("a5", "ANN", "id-ann", replacing="a2") is False
    assert await log.token("a4") is None and await log.token("a5") is None
    assert await log.token_issued("a6", "ann", "id-ann") is True


async def test_a_released_token_holds_until_it_expires(log: GameLog) -> None:
    """A token whose connection is gone holds until the time given; a new one is open-ended again."""
    await log.token_issued("a1", "ann", "id-ann")
    await log.token_issued("b1", "bob", "id-bob")
    await log.token_released("a1", 1234.5)
    assert await log.token("a1") == TokenInfo("ann", "id-ann", 1234.5)
    assert await log.token("b1") == TokenInfo("bob", "id-bob", None)
    await log.token_issued("a2", "ann", "id-ann")
    assert await log.token("a2") == TokenInfo("ann", "id-ann", None)


async def test_releasing_a_revoked_token_brings_nothing_back(log: GameLog) -> None:
    """Releasing a token that was revoked, or never issued, leaves it unknown."""
    await log.token_issued("a1", "ann", "id-ann")
    await log.token_revoked("a1")
    await log.token_released("a1", 99.0)
    await log.token_released("never", 99.0)
    assert await log.token("a1") is None
    assert await log.token("never") is None


async def test_a_revoked_token_is_forgotten_and_no_other(log: GameLog) -> None:
    """A revoked token is unknown at once; other names' tokens hold, and the name may get a new one."""
    await log.token_issued("a1", "ann", "id-ann")
    await log.token_issued("b1", "bob", "id-bob")
    await log.token_revoked("a1")
    assert await log.token("a1") is None
    assert await log.token("b1") == TokenInfo("bob", "id-bob", None)
    await log.token_issued("a2", "ann", "id-ann")
    assert await log.token("a2") == TokenInfo("ann", "id-ann", None)


# --- accounts and ratings ------------------------------------------------------------------------


async def test_an_account_keeps_its_name_hash_and_choices(log: GameLog) -> None:
    """A registered name is found in any case, as it was registered, with its hash; a password
    change, the last login, ``/lang`` and ``/ascii`` are kept; a name without an account has
    none, and choosing for it makes none."""
    assert await log.account_created("Ann", "hash-1", None)
    account = await log.account("ANN")
    assert account is not None and (account.name, account.hash, account.last_seen) == ("Ann", "hash-1", None)
    assert (account.lang, account.ascii) == (None, False)
    await log.password_changed("Ann", "hash-2")
    await log.account_seen("Ann", 1234.5)
    await log.account_language("Ann", "de")
    await log.account_ascii("Ann", True)
    assert await log.account("ann") == Account("Ann", "hash-2", account.created, 1234.5, "de", True)
    await log.account_ascii("Ann", False)
    changed = await log.account("ann")
    assert changed is not None and changed.ascii is False
    await log.account_seen("bob", 1.0)
    await log.account_language("bob", "de")
    await log.account_ascii("bob", True)
    assert await log.account("bob") is None


async def test_a_name_or_its_look_alike_is_registered_once(log: GameLog) -> None:
    """A name registered is not registered again, in any case or as a look-alike; its look-alikes
    find it; once the account is deleted, the form is free again."""
    assert await log.account_created("alice", "hash", None)
    for other in ("alice", "ALICE", "aIice"):
        assert not await log.account_created(other, "hash", None)
    assert await log.account_alike("A1ICE") == "alice"
    assert await log.account_alike("bob") is None
    await log.account_deleted("alice")
    assert await log.account("alice") is None
    assert await log.account_alike("aIice") is None
    assert await log.account_created("aIice", "hash", None)
    assert await log.account_alike("alice") == "aIice"


async def test_a_rated_game_gives_standings_a_leaderboard_and_its_changes(log: GameLog) -> None:
    """A rated game's end gives each registered player and the bot's strategy a standing, in the
    leaderboard best first, and the changes it made are read back; a game not rated gives none."""
    changes = await log.game_finished("g1", await _started(log, "g1", ACCOUNTS))
    assert {c.key for c in changes} == {"account:ann", "account:bob", "bot:greedy"}
    assert await log.game_ratings("g1") == changes
    standings = await log.standings(["account:ann", "account:bob", "account:cid", "account:ann"])
    assert set(standings) == {"account:ann", "account:bob"}
    for change in changes:
        standing = await log.standing(change.key)
        assert standing is not None and standing.skill == change.after
    board = await log.leaderboard(10)
    assert board[0].key == "account:bob"  # first in the game
    assert [s.skill.mu - 3 * s.skill.sigma for s in board] == sorted(
        (s.skill.mu - 3 * s.skill.sigma for s in board), reverse=True
    )
    assert [s.name for s in board if s.bot] == ["greedy"]
    assert await log.games_count("account:ann") == 1
    assert await log.game_finished("g2", await _started(log, "g2", ACCOUNTS, seed=42)) == []
    assert await log.game_ratings("g2") == []


async def test_the_options_a_running_game_changed_are_read_back_with_it(log: GameLog) -> None:
    """``host`` turned off and on again, then ``private`` on, while the game runs: the game reads
    back with the last of each, running and finished; an unknown game is not written."""
    outcome = await _started(log, "g1", ACCOUNTS)
    await log.game_option("g1", "host", False)
    running = await log.game("g1")
    assert running is not None and running.room_options["host"] is False
    await log.game_option("g1", "host", True)
    await log.game_option("g1", "private", True)
    ON = {"host": True, "private": True}
    running = await log.game("g1")
    assert running is not None and {k: running.room_options[k] for k in ("host", "private")} == ON
    await log.game_finished("g1", outcome)
    finished = await log.game("g1")
    assert finished is not None and {k: finished.room_options[k] for k in ("host", "private")} == ON
    with pytest.raises(StoreUnavailable):
        await log.game_option("nope", "host", False)


async def test_a_private_game_counts_for_its_players_alone(log: GameLog) -> None:
    """A player's count of games as a reader sees it: a public game counts for everyone, and a
    game whose room became private while it ran counts for its players alone, running and
    finished (an outsider learns nothing of it from the count)."""
    await log.game_finished("g1", await _started(log, "g1", ACCOUNTS))
    outcome = await _started(log, "g2", ACCOUNTS)
    await log.game_option("g2", "private", True)
    for reader, seen in ((None, 1), ("account:cid", 1), ("account:ann", 2), ("account:bob", 2)):
        assert await log.games_count("account:ann", reader) == seen, ("running", reader)
    await log.game_finished("g2", outcome)
    for reader, seen in ((None, 1), ("account:cid", 1), ("account:ann", 2), ("account:bob", 2)):
        assert await log.games_count("account:ann", reader) == seen, ("finished", reader)


async def test_a_history_leaves_out_the_private_games_before_it_counts_the_newest(log: GameLog) -> None:
    """ann's two newest games are private, her two before public: the two newest that an outsider
    may read are the public ones (not none: the private ones are left out before the newest are
    counted, not after); a player of them reads the private ones, running or finished."""
    for game_id in ("g1", "g2", "g3", "g4"):
        outcome = await _started(log, game_id, ACCOUNTS)
        if game_id in ("g3", "g4"):
            await log.game_option(game_id, "private", True)
        if game_id != "g4":
            await log.game_finished(game_id, outcome)
    for reader in (None, "account:cid"):
        assert [g.game_id for g in await log.history("account:ann", 2, reader)] == ["g2", "g1"], reader
    assert [g.game_id for g in await log.history("account:ann", 2, "account:bob")] == ["g4", "g3"]
    own = await log.history("account:ann", 10, "account:ann")
    assert [g.game_id for g in own] == ["g4", "g3", "g2", "g1"]


async def test_the_moves_the_server_played_are_kept_with_their_marks(log: GameLog) -> None:
    """A move logged as played by the server for its player keeps its mark (``clock`` or
    ``bot``) by number, while the game runs and once it is finished (in PostgreSQL, its record,
    every move as it was: one of two cards too); a game with none has none, and one that ended
    before its first move keeps no move."""
    outcome = await _started(cast(Store, log), "g1", ACCOUNTS)
    for number, move, auto in ((1, "FRf@FR1s", None), (2, "ITm@bar", "clock"), (3, "ESm@ES1e", "bot"),
                               (4, "CNf@bar DEm@DE1e", None)):  # fmt: skip
        await log.move_played("g1", number, move, auto)
    running = await log.game("g1")
    assert running is not None and running.auto == {2: "clock", 3: "bot"}
    assert running.record.moves == ("FRf@FR1s", "ITm@bar", "ESm@ES1e", "CNf@bar DEm@DE1e")
    await log.game_finished("g1", outcome)
    finished = await log.game("g1")
    assert finished is not None and finished.finished is not None
    assert finished.auto == {2: "clock", 3: "bot"}
    assert finished.record == running.record
    other = await _started(cast(Store, log), "g2", ACCOUNTS)
    await log.move_played("g2", 1, "FRf@FR1s")
    await log.game_finished("g2", other)
    plain = await log.game("g2")
    assert plain is not None and plain.auto == {}
    await log.game_finished("g3", await _started(cast(Store, log), "g3", ACCOUNTS))
    unplayed = await log.game("g3")
    assert unplayed is not None and unplayed.record.moves == () and unplayed.finished is not None


async def test_a_name_registered_again_inherits_nothing(log: GameLog) -> None:
    """ann plays a rated game to its end and is seated in another when she unregisters; a new ann
    registers: she has no rating, no rated game and no history of the old one, and the second
    game's end does not rate her."""
    assert await log.account_created("ann", "hash-1", None)
    await log.game_finished("g1", await _started(log, "g1", ACCOUNTS))
    still_running = await _started(log, "g2", ACCOUNTS)
    assert await log.standing("account:ann") is not None
    await log.account_deleted("ann")
    assert await log.account_created("ann", "hash-2", "guest-of-the-new-ann")
    changes = await log.game_finished("g2", still_running)
    assert "account:ann" not in {c.key for c in changes}
    assert await log.standing("account:ann") is None
    assert "account:ann" not in {s.key for s in await log.leaderboard(10)}
    assert await log.games_count("account:ann") == 0
    assert await log.history("account:ann") == []


@pytest.mark.parametrize("reason", ["end", CLOSED])
async def test_a_seat_taken_as_an_account_deleted_meanwhile_is_a_guests(log: GameLog, reason: str) -> None:
    """A seek paired as its seeker deleted the account: the game is logged under the account
    after the account is gone. Its end rates nobody as that account (with one registered person
    left, nobody at all), and whoever registers the name next has no rating and no such game,
    not even a private one of it to read; so too when the game's room was closed (not rated)."""
    assert await log.account_created("ann", "hash-1", None)
    assert await log.account_created("bob", "hash-b", None)
    record = GameRecord(("ann", "bob", "greedy-bot1"), seed=1, options=Options())
    await log.account_deleted("ann")
    kinds = ["person", "person", "bot:greedy"]
    await log.game_started("g1", "r", record, kinds, {"seed": None}, ["account:ann", "account:bob", None])
    await log.game_option("g1", "private", True)
    scores, places = {"ann": 5, "bob": 9, "greedy-bot1": 1}, {"bob": 1, "ann": 2, "greedy-bot1": 3}
    outcome = Outcome(reason, scores, {}, ("bob", "ann", "greedy-bot1"), places)
    assert await log.game_finished("g1", outcome) == []
    assert await log.game_ratings("g1") == []
    assert await log.standing("account:ann") is None and await log.standing("account:bob") is None
    assert await log.account_created("ann", "hash-2", "guest-of-the-new-ann")
    game = await log.game("g1")
    assert game is not None and not game.readable_by("account:ann") and game.readable_by("account:bob")
    assert await log.history("account:ann") == [] and await log.games_count("account:ann") == 0


async def test_a_name_registered_again_reads_none_of_the_old_accounts_private_games(log: GameLog) -> None:
    """ann finishes a private game with bob and unregisters; whoever registers ann next is not
    among its players: it is neither in bob's games as the new ann reads them nor readable by
    her; bob still reads it."""
    assert await log.account_created("ann", "hash-1", None)
    outcome = await _started(log, "g1", ACCOUNTS)
    await log.game_option("g1", "private", True)
    await log.game_finished("g1", outcome)
    await log.account_deleted("ann")
    assert await log.account_created("ann", "hash-2", "guest-of-the-new-ann")
    game = await log.game("g1")
    assert game is not None and not game.readable_by("account:ann") and game.readable_by("account:bob")
    assert await log.games_count("account:bob", "account:ann") == 0
    assert await log.games_count("account:bob", "account:bob") == 1


async def test_a_guests_games_become_the_account_it_registers(log: GameLog) -> None:
    """The games a guest played are the account's once the guest registers its name."""
    await log.game_finished("g1", await _started(log, "g1", ["guest-ann", "account:bob", None]))
    assert await log.account_created("ann", "hash", "guest-ann")
    assert [g.game_id for g in await log.history("account:ann")] == ["g1"]
    assert await log.games_count("account:ann") == 1


# --- people's lists ------------------------------------------------------------------------------


async def test_lists_are_empty_until_changed_and_each_identitys_own(log: GameLog) -> None:
    """Muting and friending add a name to a list, unmuting and unfriending take it out; each
    identity has its own lists."""
    assert await log.lists("account:ann") == {"mute": {}, "friend": {}}
    await log.list_changed("account:ann", "mute", "cid", "Cid")
    await log.list_changed("account:ann", "friend", "bob", "Bob")
    await log.list_changed("account:ann", "friend", "dee", "dee")
    await log.list_changed("guest-1", "mute", "ann", "ann")
    assert await log.lists("account:ann") == {"mute": {"cid": "Cid"}, "friend": {"bob": "Bob", "dee": "dee"}}
    await log.list_changed("account:ann", "unfriend", "bob", "bob")
    await log.list_changed("account:ann", "unmute", "nobody", "nobody")
    assert await log.lists("account:ann") == {"mute": {"cid": "Cid"}, "friend": {"dee": "dee"}}
    assert await log.lists("guest-1") == {"mute": {"ann": "ann"}, "friend": {}}


async def test_an_action_that_names_no_list_is_refused(log: GameLog) -> None:
    """An action other than (un)mute and (un)friend changes nothing and is a ``ValueError``."""
    with pytest.raises(ValueError, match="no list is changed by 'unblock'"):
        await log.list_changed("account:ann", "unblock", "cid", "cid")
    assert await log.lists("account:ann") == {"mute": {}, "friend": {}}


async def test_lists_are_replaced_at_once_and_deleted(log: GameLog) -> None:
    """Replacing an identity's lists leaves exactly the new ones; deleting leaves none."""
    await log.list_changed("account:ann", "mute", "cid", "Cid")
    await log.lists_replaced("account:ann", {"friend": {"bob": "Bob"}})
    assert await log.lists("account:ann") == {"mute": {}, "friend": {"bob": "Bob"}}
    await log.lists_deleted("account:ann")
    assert await log.lists("account:ann") == {"mute": {}, "friend": {}}


async def test_an_accounts_lists_go_with_it(log: GameLog) -> None:
    """Deleting an account deletes its lists, and no one else's."""
    assert await log.account_created("ann", "hash", None)
    await log.list_changed("account:ann", "friend", "bob", "bob")
    await log.list_changed("account:bob", "friend", "ann", "ann")
    await log.account_deleted("ann")
    assert await log.lists("account:ann") == {"mute": {}, "friend": {}}
    assert await log.lists("account:bob") == {"mute": {}, "friend": {"ann": "ann"}}


# --- analyses ------------------------------------------------------------------------------------


async def test_a_games_analysis_is_kept_once(log: GameLog) -> None:
    """No analysis until one is saved; the first saved is kept as it was, a second is refused and
    changes nothing; each game has its own."""
    outcome = await _started(log, "g1", ACCOUNTS)  # type: ignore[arg-type]
    await log.game_finished("g1", outcome)
    assert await log.analyses.analysis("g1") is None
    first = {"version": 1, "moves": [{"number": 1, "mark": "good", "cost": 0.0}], "players": {}}
    assert await log.analyses.analysis_saved("g1", first) is True
    assert await log.analyses.analysis_saved("g1", {"version": 1, "moves": [], "players": {}}) is False
    assert await log.analyses.analysis("g1") == first
    assert await log.analyses.analysis("g2") is None
