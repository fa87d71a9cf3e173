"""Accounts and ratings in Redis, for cluster mode: an account made through one node logs in
through any other, and a game's rating is written by the same script that finishes it.

The rating of a game is computed on the node that finishes it from the ratings it read; the
script that writes the outcome checks that none of them changed meanwhile (each rating's game
count) and that the game is not finished yet, so that two nodes finishing games of one player
at once retry instead of losing an update, and a game finished again (after a failover) is not
rated again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from engine import Outcome
from protocol.names import alike, alike_version
from server.log.contract import CLOSED, Account, Standing, StoreUnavailable
from server.log.redis.guarded import guarded
from server.log.redis.keys import PREFIX, game_key, history_key
from server.log.redis.lists import list_keys
from server.ratings import (
    ACCOUNT,
    BOT,
    RatingChange,
    Skill,
    account_key,
    is_rated,
    rate,
    rating_key,
    standing_identities,
)

LEADERBOARD = PREFIX + "leaderboard"  # rating key -> mu - 3 sigma

#: the rating script's argument for a game that rates nobody
UNRATED = json.dumps({"checks": [], "writes": [], "rated": "[]"})


def _account_key(name: str) -> str:
    return f"{PREFIX}account:{name.casefold()}"


def _forms_key() -> str:
    """Every account by its look-alike form (form -> its name), made with this version of the forms."""
    return f"{PREFIX}account-forms:{alike_version()}"


def _rating_key(key: str) -> str:
    return f"{PREFIX}rating:{key}"


def _rated_key(game_id: str) -> str:
    return f"{PREFIX}rated:{game_id}"


class RedisAccounts:
    """The accounts' and ratings' part of ``RedisStore``. Redis out of reach is ``StoreUnavailable``
    here, as everywhere in the store, so that the one who asked hears ``unavailable``."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client

    @guarded
    async def account(self, name: str) -> Account | None:
        fields = await self.redis.hgetall(_account_key(name))
        if not {"name", "hash", "created"} <= fields.keys():
            return None  # none, or one whose making was cut short (it is made again on /register)
        seen, lang = fields.get("last_seen"), fields.get("lang")
        return Account(
            str(fields["name"]),
            str(fields["hash"]),
            float(fields["created"]),
            float(seen) if seen else None,
            str(lang) if lang else None,
            str(fields.get("ascii")) == "1",
        )

    @guarded
    async def index_forms(self) -> None:
        """Index every account by its look-alike form (:func:`protocol.names.alike`), once for each
        version of the forms: accounts made before forms, or under other confusables data, are
        found by theirs too. Nodes starting together each do the same, harmlessly."""
        forms = _forms_key()
        if await self.redis.exists(forms + ":made"):
            return
        keys = [str(k) async for k in self.redis.scan_iter(match=f"{PREFIX}account:*", count=1000)]
        for at in range(0, len(keys), 1000):
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys[at : at + 1000]:
                    pipe.hget(key, "name")
                names = await pipe.execute()
            async with self.redis.pipeline(transaction=False) as pipe:
                for name in names:
                    if isinstance(name, str):
                        pipe.hsetnx(forms, alike(name), name)
                await pipe.execute()
        await self.redis.set(forms + ":made", "1")

    @guarded
    async def account_alike(self, name: str) -> str | None:
        found = await self.redis.hget(_forms_key(), alike(name))
        if found is None or not await self.redis.hexists(_account_key(str(found)), "name"):
            return None  # (or one whose account was deleted while its form was being indexed)
        return str(found)

    @guarded
    async def account_created(self, name: str, hash: str, identity: str | None) -> bool:
        key, forms, form = _account_key(name), _forms_key(), alike(name)
        for _ in range(10):  # a name registered elsewhere meanwhile (the forms changed): read again
            try:  # all fields at once, and only where no account of the name or one like it is
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(key, forms)
                    if await pipe.hexists(key, "name"):
                        return False
                    other = await pipe.hget(forms, form)
                    if other is not None and await pipe.hexists(_account_key(str(other)), "name"):
                        return False
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(key, mapping={"name": name, "hash": hash, "created": repr(time.time())})
                    pipe.hset(forms, form, name)
                    await pipe.execute()
                break
            except WatchError:
                continue
        else:
            raise StoreUnavailable("registrations kept changing the forms of names")
        if identity is not None:  # the guest's games become the account's
            history = await self.redis.lrange(history_key(identity), 0, -1)
            if history:
                await self.redis.rpush(history_key(account_key(name)), *history)
        return True

    @guarded
    async def password_changed(self, name: str, hash: str) -> None:
        await self.redis.hset(_account_key(name), "hash", hash)

    @guarded
    async def account_seen(self, name: str, when: float) -> None:
        if await self.redis.exists(_account_key(name)):
            await self.redis.hset(_account_key(name), "last_seen", repr(when))

    @guarded
    async def account_language(self, name: str, lang: str) -> None:
        if await self.redis.exists(_account_key(name)):
            await self.redis.hset(_account_key(name), "lang", lang)

    @guarded
    async def account_ascii(self, name: str, on: bool) -> None:
        if await self.redis.exists(_account_key(name)):
            await self.redis.hset(_account_key(name), "ascii", "1" if on else "0")

    @guarded
    async def account_deleted(self, name: str) -> None:
        """Forget the account (its settings with it), its lists, its rating and its history; its
        games stay, under the name, as a guest's: a game it still plays in rates its seat so, and
        whoever registers the name next reads none of its private games. Every game Redis holds
        is looked at (with PostgreSQL for the records, the running ones alone): a rare change."""
        key = account_key(name)
        await self.redis.delete(_account_key(name), _rating_key(key), history_key(key), *list_keys(key))
        forms, form = _forms_key(), alike(name)
        indexed = await self.redis.hget(forms, form)
        if indexed is not None and str(indexed).casefold() == name.casefold():
            await self.redis.hdel(forms, form)
        await self.redis.zrem(LEADERBOARD, key)
        async for game in self.redis.scan_iter(match=game_key("*"), count=1000):
            if not str(game).endswith(":moves"):
                await self._identity_dropped(str(game), key)

    async def _identity_dropped(self, game: str, identity: str) -> None:
        """The seats of ``identity`` in the game stored at ``game`` belong to nobody's account."""
        while True:
            try:  # only if the game's data is still as read (a node may write a seat meanwhile)
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.watch(game)
                    raw = await pipe.hget(game, "data")
                    data = json.loads(raw) if raw is not None else {}
                    identities = data.get("identities") or []
                    if identity not in identities:
                        return
                    data["identities"] = [None if i == identity else i for i in identities]
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(game, "data", json.dumps(data))
                    await pipe.execute()
                    return
            except WatchError:
                continue

    @guarded
    async def standing(self, key: str) -> Standing | None:
        fields = await self.redis.hgetall(_rating_key(key))
        return None if not fields else _standing(key, fields)

    @guarded
    async def standings(self, keys: Sequence[str]) -> dict[str, Standing]:
        """The standings of those of ``keys`` that have one, in one round trip."""
        unique = list(dict.fromkeys(keys))
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in unique:
                pipe.hgetall(_rating_key(key))
            replies = await pipe.execute()
        return {key: _standing(key, fields) for key, fields in zip(unique, replies, strict=True) if fields}

    @guarded
    async def leaderboard(self, limit: int) -> list[Standing]:
        keys = await self.redis.zrevrange(LEADERBOARD, 0, limit - 1)
        out = [await self.standing(str(k)) for k in keys]
        return [s for s in out if s is not None]

    @guarded
    async def game_ratings(self, game_id: str) -> list[RatingChange]:
        raw = await self.redis.get(_rated_key(game_id))
        return [] if raw is None else [_change(c) for c in json.loads(raw)]

    async def standing_seats(self, game_id: str, data: dict[str, Any]) -> list[str | None]:
        """The identities of a finished game's seats (``data`` is its stored data) as it is rated
        (``standing_identities``): a seat of an account deleted since its player was seated is
        nobody's, and the game that account's no more (its data and history drop it)."""
        identities: list[str | None] = data.get("identities") or [None] * len(data["kinds"])
        accounts = [i for i in identities if i is not None and i.startswith(ACCOUNT)]
        if not accounts:
            return identities
        async with self.redis.pipeline(transaction=False) as pipe:
            for identity in accounts:
                pipe.exists(_account_key(identity.removeprefix(ACCOUNT)))
            found = await pipe.execute()
        for identity, there in zip(accounts, found, strict=True):
            if not there:
                await self._identity_dropped(game_key(game_id), identity)
                await self.redis.lrem(history_key(identity), 0, game_id)
        return standing_identities(identities, {i for i, there in zip(accounts, found, strict=True) if there})

    async def rating_plan(
        self, game_id: str, data: dict[str, Any], outcome: Outcome
    ) -> tuple[str, list[RatingChange]]:
        """The ratings a finished game gives (``data`` is the game's stored data): the script's
        argument and the changes. A seat of an account deleted since its player was seated (a
        seek paired as the deletion ran) rates nobody, and the game is that account's no more;
        a game whose room was closed rates nobody."""
        kinds = data["kinds"]
        identities = await self.standing_seats(game_id, data)
        if outcome.reason == CLOSED or not is_rated(kinds, identities, data.get("room_options", {})):
            return UNRATED, []
        entrants, checks = [], []
        for name, kind, identity in zip(data["players"], kinds, identities, strict=True):
            key = rating_key(name, kind, identity)
            if key is None:
                continue
            standing = await self.standing(key)
            skill = Skill() if standing is None else standing.skill
            entrants.append((name, key, skill))
            checks.append([_rating_key(key), skill.games])
        changes = rate(entrants, dict(outcome.places))
        writes = [
            [_rating_key(c.key), c.key.removeprefix(BOT) if c.key.startswith(BOT) else c.name,
             repr(c.after.mu), repr(c.after.sigma), c.after.games, c.after.wins,
             repr(c.after.mu - 3 * c.after.sigma), c.key]
            for c in changes
        ]  # fmt: skip
        rated = json.dumps([_change_json(c) for c in changes])
        return json.dumps({"checks": checks, "writes": writes, "rated": rated}), changes


def _standing(key: str, fields: dict[Any, Any]) -> Standing:
    skill = Skill(float(fields["mu"]), float(fields["sigma"]), int(fields["games"]), int(fields["wins"]))
    return Standing(key, str(fields["name"]), skill)


def _change_json(c: RatingChange) -> dict[str, Any]:
    return {
        "name": c.name,
        "key": c.key,
        "before": [c.before.mu, c.before.sigma, c.before.games, c.before.wins],
        "after": [c.after.mu, c.after.sigma, c.after.games, c.after.wins],
    }


def _change(d: dict[str, Any]) -> RatingChange:
    return RatingChange(d["name"], d["key"], Skill(*d["before"]), Skill(*d["after"]))
