"""Ratings: OpenSkill's Plackett-Luce model on each rated game's ranking, the number people are
shown, and which games count.

Every rated participant has a skill estimate ``mu`` with an uncertainty ``sigma`` (a newcomer has
25 and 25/3). People see a conservative number on a familiar scale::

    shown = round(1000 + 40 * (mu - 3 * sigma))

A newcomer shows 1000; the number climbs as games make ``sigma`` smaller, and it is marked
provisional (``?``) while ``sigma`` is above :data:`PROVISIONAL_SIGMA`. Registered people are rated
by account (``account:NAME``); the server's bots by strategy (``bot:STRATEGY``), so that anyone can
read how strong each strategy is. Guests are not rated: they are left out of the ranking that is
rated, and the others keep their places relative to each other.

Nothing here does I/O: the store calls :func:`rate` inside the transaction that finishes a game.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from protocol.botnames import bot_name as bot_name  # (the bots' names, for those that rate them)

MU = 25.0
SIGMA = MU / 3
#: a rating is provisional while its uncertainty is above this
PROVISIONAL_SIGMA = 2.5
ACCOUNT = "account:"
BOT = "bot:"

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating as the store keeps it."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0

    @property
    def shown(self) -> int:
        """The number people see (see the module's formula)."""
        return shown(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    def text(self) -> str:
        """``1234`` or ``1000?`` while provisional."""
        return f"{self.shown}{'?' if self.provisional else ''}"


def shown(mu: float, sigma: float) -> int:
    """The shown rating of ``mu`` and ``sigma``: ``round(1000 + 40 * (mu - 3 * sigma))``.

    >>> shown(25.0, 25.0 / 3)
    1000
    """
    return round(1000 + 40 * (mu - 3 * sigma))


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One participant's rating before and after a rated game."""

    name: str
    key: str
    before: Skill
    after: Skill

    def to_dict(self) -> dict[str, Any]:
        """The form ``game_over`` carries."""
        return {
            "before": self.before.shown,
            "after": self.after.shown,
            "provisional": self.after.provisional,
        }


def rating_key(name: str, kind: str, identity: str | None) -> str | None:
    """The key a seat is rated under: the account or the bot strategy; ``None`` for a guest."""
    if kind.startswith(BOT):
        return kind
    if identity is not None and identity.startswith(ACCOUNT):
        return identity
    return None


def is_guest(kind: str, identity: str | None) -> bool:
    """A person without an account (bots are not guests)."""
    return kind == "person" and not (identity or "").startswith(ACCOUNT)


def account_key(name: str) -> str:
    """The identity and rating key of the account ``name``."""
    return ACCOUNT + name.casefold()


def standing_identities(identities: Sequence[str | None], accounts: Collection[str]) -> list[str | None]:
    """Each seat's identity as a game's end rates it: an account's only while the account stands
    (``accounts``: the identities of those of its seats' accounts that do); an account deleted
    after its player was seated (a seek paired as the deletion ran) is nobody's, its seat a
    guest's, and a name registered again does not inherit it.

    >>> standing_identities(["account:ann", "account:bob", "guest-1", None], {"account:ann"})
    ['account:ann', None, 'guest-1', None]
    """
    gone = {i for i in identities if i is not None and i.startswith(ACCOUNT) and i not in accounts}
    return [None if identity in gone else identity for identity in identities]


def is_rated(kinds: Sequence[str], identities: Sequence[str | None], room_options: Mapping[str, Any]) -> bool:
    """A game is rated when at least two seats are held by registered people and the room did not
    choose its seed (a chosen seed makes a practice game)."""
    if room_options.get("seed") is not None:
        return False
    people = sum(
        1
        for kind, identity in zip(kinds, identities, strict=True)
        if not kind.startswith(BOT) and identity is not None and identity.startswith(ACCOUNT)
    )
    return people >= 2


def rate(entrants: Sequence[tuple[str, str, Skill]], places: Mapping[str, int]) -> list[RatingChange]:
    """The new ratings of ``entrants`` (name, key, current skill) finishing at ``places`` (1 is
    first; equal places are a tie). A key seated twice (two bots of one strategy) is rated once,
    for its better-placed seat: one rating cannot play against itself. Fewer than two keys rate
    nothing. A win is a first place in the game (shared in a tie), whoever else played: a
    guest who finished ahead is left out of the ratings, not of the places."""
    chosen: dict[str, tuple[str, str, Skill]] = {}
    for entrant in sorted(entrants, key=lambda e: places[e[0]]):
        chosen.setdefault(entrant[1], entrant)
    field = list(chosen.values())
    if len(field) < 2:
        return []
    teams = [[_MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for _, _, skill in field]
    ranks = [float(places[name]) for name, _, _ in field]
    rated = _MODEL.rate(teams, ranks=ranks)
    return [
        RatingChange(
            name,
            key,
            before,
            Skill(after.mu, after.sigma, before.games + 1, before.wins + (places[name] == 1)),
        )
        for (name, key, before), (after,) in zip(field, rated, strict=True)
    ]
