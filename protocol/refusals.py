"""The rules' refusals in the reader's language: one sentence per rule error code and reason.

The engine speaks English only; its ``IllegalMoveError`` carries a ``code``, a ``reason`` (which of
the code's sentences) and ``params`` (chairs, tables, cards, counts). ``refusal`` builds the same
sentence as a text for people, so that every reader gets it in their own language.

>>> from engine import new_position, play
>>> from protocol.i18n import lang
>>> try:
...     play(new_position(["ann", "bob"], seed=1), "FRf@XX9n")
... except IllegalMoveError as e:
...     print(lang("de")(refusal(e)))
Auf diesem Spielplan gibt es keinen Stuhl 'XX9n'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from engine.errors import IllegalMoveError
from protocol.i18n import Msg, _, _n

__all__ = ["refusal"]


def _names(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in cast(Sequence[object], value))


def _quoted(params: Mapping[str, object], *names: str) -> dict[str, object]:
    # a name, chair or token the player typed is shown as Python's repr, so any odd character shows
    return {**params, **{name: repr(params[name]) for name in names}}


def _notation(e: IllegalMoveError) -> Msg:
    p = e.params
    whys: dict[str, Callable[[], Msg]] = {
        "empty": lambda: _("it is empty"),
        "not_a_card": lambda: _(
            "{card} is not a card (a nation code and m or f, or Jm/Jf)", card=repr(p["card"])
        ),
        "not_a_joker": lambda: _("only a joker declares a nation, not {card}", card=p["card"]),
        "not_a_nation": lambda: _("{nation} is not a nation code", nation=repr(p["nation"])),
        "swap_arguments": lambda: _("swap takes one card and one chair"),
        "swap_form": lambda: _("a swap is written swap CARD@CHAIR"),
        "swap_joker": lambda: _("the card that replaces a joker is a natural card"),
        "not_card_at_chair": lambda: _("{token} is not CARD@CHAIR", token=repr(p["token"])),
        "bar_cards": lambda: _("a bar move puts exactly one card at the bar"),
        "bar_nation": lambda: _("a joker at the bar declares no nation"),
    }
    text = repr(p["text"])
    if e.reason == "leave":
        return _(
            "{text} is not a move: leaving the game is none of the three actions "
            "(a game record's 'leave NAME' entry is applied with engine.leave).",
            text=text,
        )
    why = whys[e.reason]()
    return _(
        "{text} is not a move: {why}. Write e.g. FRf@FR1s, FRf@FR1s ESm@ES1e, Jf=FR@FR1s, FRf@bar "
        "or swap FRf@FR1s.",
        text=text,
        why=why,
    )


def _seat(e: IllegalMoveError) -> Msg:
    p = e.params
    match e.code, e.reason:
        case "unknown_chair", _:
            return _("There is no chair {chair} on this board.", **_quoted(p, "chair"))
        case "joker_nation", _:
            first, second, *_more = _names(p["nations"])  # a chair is between two tables at most
            return _(
                "A joker on {chair} sits between {first} and {second}: say which, e.g. {example}.",
                chair=p["chair"],
                first=first,
                second=second,
                example=f"{p['card']}={first}@{p['chair']}",
            )
        case "too_many_cards", "stammtisch":
            return _("One move seats three or four cards only to fill one table with four men or four women.")
        case "too_many_cards", _:
            return _("One move seats at most two cards.")
        case "not_in_hand", "only":
            return _("You do not hold {card} (only {held}) for this move.", card=p["card"], held=p["held"])
        case "not_in_hand", _:
            return _("You do not hold {card} for this move.", card=p["card"])
        case "chair_taken", _:
            return _("{chair} is taken.", chair=p["chair"])
        case "wrong_nation", _:
            tables = _names(p["tables"])
            if len(tables) == 1:
                return _(
                    "{card} cannot sit on {chair}, a chair of {table}.",
                    card=p["card"],
                    chair=p["chair"],
                    table=tables[0],
                )
            return _(
                "{card} cannot sit on {chair}, a chair of {first} and {second}.",
                card=p["card"],
                chair=p["chair"],
                first=tables[0],
                second=tables[1],
            )
        case "gender", "stammtisch" if p["gender"] == "m":
            return _("Three or four cards must fill {table} with four men.", table=p["table"])
        case "gender", "stammtisch":
            return _("Three or four cards must fill {table} with four women.", table=p["table"])
        case "gender", _:
            men = _n("{n} man", "{n} men", cast(int, p["men"]))
            women = _n("{n} woman", "{n} women", cast(int, p["women"]))
            return _(
                "{card} on {chair} would leave {table} with {men} and {women}.",
                card=p["card"],
                chair=p["chair"],
                table=p["table"],
                men=men,
                women=women,
            )
    return _other(e)


def _other(e: IllegalMoveError) -> Msg:
    p = e.params
    match e.code, e.reason:
        case "alone", "join":
            return _(
                "{card} on {chair} would sit alone: the second card must join it at its table.",
                card=p["card"],
                chair=p["chair"],
            )
        case "alone", _:
            return _("{card} on {chair} would sit alone and score nothing.", card=p["card"], chair=p["chair"])
        case "joker_to_bar", _:
            return _("A joker goes to the bar only when nothing else can be played.")
        case "bad_swap", "no_joker":
            return _("There is no joker on {chair}.", chair=p["chair"])
        case "bad_swap", _:
            return _bad_swap(p)
        case "game_over", _:
            return _("The game has ended.")
        case "unknown_player", _:
            return _("{player} is not a player of this game.", **_quoted(p, "player"))
        case "already_out", _:
            return _("{name} is out of the game already.", name=p["name"])
    # a refusal this module has no sentence for yet still reaches its reader, in English
    return Msg(e.message, {})


def _bad_swap(p: Mapping[str, object]) -> Msg:
    """The guests a joker can be exchanged for: of its gender, from one nation or either of two."""
    values = {"chair": p["chair"], "joker": p["joker"]}
    nations = _names(p["nations"])
    man = p["gender"] == "m"
    if len(nations) == 1:
        if man:
            return _(
                "The joker on {chair} ({joker}) can only be exchanged for a man of {nation}.",
                nation=nations[0],
                **values,
            )
        return _(
            "The joker on {chair} ({joker}) can only be exchanged for a woman of {nation}.",
            nation=nations[0],
            **values,
        )
    first, second = nations[0], nations[1]
    if man:
        return _(
            "The joker on {chair} ({joker}) can only be exchanged for a man of {first} or {second}.",
            first=first,
            second=second,
            **values,
        )
    return _(
        "The joker on {chair} ({joker}) can only be exchanged for a woman of {first} or {second}.",
        first=first,
        second=second,
        **values,
    )


def refusal(e: IllegalMoveError) -> Msg:
    """The sentence of ``e`` as a text for people (its English equals the engine's message)."""
    if e.code == "bad_notation":
        return _notation(e)
    return _seat(e)
