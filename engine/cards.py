"""Nations, cards and seated guests: small interned values with a canonical text form.

>>> parse_card("frF")
Card('FRf')
>>> parse_guest("Jf=fr")
Guest('Jf=FR')
"""

from __future__ import annotations

from typing import Final

from engine.errors import InvalidPositionError

NATIONS: Final = ("CF", "CN", "CU", "DE", "ES", "FR", "GB", "IN", "IT", "RU", "TR", "US")
NATION_NAMES: Final = {
    "CF": "Central Africa",
    "CN": "China",
    "CU": "Cuba",
    "DE": "Germany",
    "ES": "Spain",
    "FR": "France",
    "GB": "United Kingdom",
    "IN": "India",
    "IT": "Italy",
    "RU": "Russia",
    "TR": "Turkey",
    "US": "USA",
}
GENDERS: Final = ("m", "f")
MEN_PER_NATION: Final = 4
WOMEN_PER_NATION: Final = 4
JOKERS_PER_GENDER: Final = 2


class Card:
    """A guest card: a nation and a gender, or a joker (nation ``None``) of a gender.

    Cards are interned: ``parse_card("FRf") is parse_card("frf")``; compare them with ``is`` or ``==``.
    """

    __slots__ = ("gender", "index", "is_joker", "nation", "text")

    nation: str | None
    gender: str
    is_joker: bool
    text: str
    index: int

    def __init__(self, nation: str | None, gender: str, index: int) -> None:
        self.nation = nation
        self.gender = gender
        self.is_joker = nation is None
        self.text = f"J{gender}" if nation is None else f"{nation}{gender}"
        self.index = index

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __lt__(self, other: Card) -> bool:
        return self.text < other.text

    def __hash__(self) -> int:
        # (said outright: compiled, a class that orders its objects would lose the hash by identity)
        return object.__hash__(self)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # unpickled as the interned card of that process: cards are compared by identity
        return (parse_card, (self.text,))


class Guest:
    """A card as it sits on a chair: a natural card, or a joker with its declared nation."""

    __slots__ = ("card", "gender", "nation", "text")

    card: Card
    nation: str
    gender: str
    text: str

    def __init__(self, card: Card, nation: str) -> None:
        self.card = card
        self.nation = nation
        self.gender = card.gender
        self.text = f"{card.text}={nation}" if card.is_joker else card.text

    def __repr__(self) -> str:
        return f"Guest({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # unpickled as the interned guest of that process, as cards are
        return (parse_guest, (self.text,))


_CARDS: dict[str, Card] = {}
for _i, _n in enumerate(NATIONS):
    for _j, _g in enumerate(GENDERS):
        _card = Card(_n, _g, 2 * _i + _j)
        _CARDS[_card.text.upper()] = _card
JOKER_MAN: Final = Card(None, "m", 24)
JOKER_WOMAN: Final = Card(None, "f", 25)
_CARDS["JM"] = JOKER_MAN
_CARDS["JF"] = JOKER_WOMAN

#: Every distinct card, in the order of their ``index``.
CARDS: Final = tuple(sorted(_CARDS.values(), key=lambda c: c.index))
JOKERS: Final = (JOKER_MAN, JOKER_WOMAN)

_GUESTS: dict[str, Guest] = {}
for _card in CARDS:
    if _card.is_joker:
        for _n in NATIONS:
            _GUESTS[f"{_card.text}={_n}".upper()] = Guest(_card, _n)
    else:
        assert _card.nation is not None
        _GUESTS[_card.text.upper()] = Guest(_card, _card.nation)


def natural_guest(card: Card) -> Guest:
    """The guest a natural card becomes on a chair."""
    return _GUESTS[card.text.upper()]


def joker_guest(card: Card, nation: str) -> Guest:
    """A joker seated as a guest of ``nation``."""
    return _GUESTS[f"{card.text}={nation}".upper()]


def find_card(text: str) -> Card | None:
    """The card named by ``text`` (any case), or ``None``."""
    return _CARDS.get(text.upper())


def parse_card(text: str) -> Card:
    """The card named by ``text`` (any case); raises ``InvalidPositionError`` otherwise."""
    card = _CARDS.get(text.upper()) if isinstance(text, str) else None
    if card is None:
        raise InvalidPositionError(f"{text!r} is not a card (a nation code and m/f, or Jm/Jf)")
    return card


def parse_guest(text: str) -> Guest:
    """A seated guest: ``FRf`` or a joker with its nation, ``Jf=FR``."""
    guest = _GUESTS.get(text.upper()) if isinstance(text, str) else None
    if guest is None:
        raise InvalidPositionError(
            f"{text!r} is not a seated guest (a card like FRf, or a joker with its nation like Jf=FR)"
        )
    return guest


def full_set() -> list[Card]:
    """The 100 cards of the game in a fixed order: nations in code order, men then women, jokers."""
    cards: list[Card] = []
    for card in CARDS:
        if card.is_joker:
            cards.extend([card] * JOKERS_PER_GENDER)
        else:
            cards.extend([card] * (MEN_PER_NATION if card.gender == "m" else WOMEN_PER_NATION))
    return cards


def copies_in_set(card: Card) -> int:
    """How many copies of ``card`` the 100-card set holds."""
    if card.is_joker:
        return JOKERS_PER_GENDER
    return MEN_PER_NATION if card.gender == "m" else WOMEN_PER_NATION
