"""Room options: their names, values, defaults and checks, in one place.

A value comes as text from a chat command (``/option clock 60``) or as JSON from a message
(``{"type": "option", "key": "clock", "value": 60}``); both are checked here, and so is the range
a server sets (the shortest clock), so that the parser, the message and the room agree.

>>> parse_text("CLOCK", "off"), parse_text("absent", "DROP"), parse_text("seed", "random")
(('clock', None), ('absent', 'drop'), ('seed', None))
>>> RoomOptions().with_value("clock", check_value("clock", 60, clock_min=5)).clock
60
>>> check_json("stammtisch", "on")
Traceback (most recent call last):
...
protocol.options.OptionError: stammtisch is true or false.

Each refusal is one whole sentence for one option, in the words of the way the value came: a chat
command's (``on``, ``off``, ``random``) or a message's JSON (``true``, ``false``, ``null``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from protocol.i18n import Msg, _, number

Absent = Literal["bot", "drop"]
OptionKey = Literal["seed", "stammtisch", "clock", "absent", "host", "private", "drawseat", "start"]
KEYS: Final[tuple[str, ...]] = get_args(OptionKey)
SEED_LIMIT: Final = 2**63
CLOCK_MAX: Final = 3600

_INTEGER = re.compile(r"[0-9]{1,30}")
_SECONDS = re.compile(r"[0-9]{1,10}(\.[0-9]{1,9})?")

#: the largest seed
SEED_MAX: Final = SEED_LIMIT - 1


def typed_rule(key: str) -> Msg:
    """What ``key`` takes, as a chat command writes its value (``/option clock 60``); the switches
    share one sentence, which names the key.

    >>> typed_rule("host")
    'host is on or off.'
    """
    if key in SWITCHES:
        return _("{key} is on or off.", key=key)
    match key:
        case "seed":
            return _("seed is a whole number from 0 to {largest}, or random.", largest=SEED_MAX)
        case "clock":
            return _("clock is a number of seconds per turn, up to {most}, or off.", most=CLOCK_MAX)
        case "absent":
            return _("absent is bot (a bot plays the seat) or drop (the player leaves the game).")
        case "start":
            return _("start is a seat number from 1 to 4, or random.")
    return unknown(key)


def json_rule(key: str) -> Msg:
    """What ``key`` takes, as an ``option`` message gives its value in JSON; the switches share one
    sentence, which names the key."""
    if key in SWITCHES:
        return _("{key} is true or false.", key=key)
    match key:
        case "seed":
            return _("seed is a whole number from 0 to {largest}, or null (random).", largest=SEED_MAX)
        case "clock":
            return _(
                "clock is a number of seconds per turn, up to {most}, or null (no clock).", most=CLOCK_MAX
            )
        case "absent":
            return _("absent is 'bot' (a bot plays the seat) or 'drop' (the player leaves the game).")
        case "start":
            return _("start is a seat number from 1 to 4, or null (drawn by the shuffle).")
    return unknown(key)


def unknown(key: str) -> Msg:
    """The refusal of an option that does not exist, naming those that do."""
    return _(
        "No option {key}; the options are {options} and {last}.",
        key=repr(key[:24]),
        options=", ".join(KEYS[:-1]),
        last=KEYS[-1],
    )


#: the options that are switches, on or off
SWITCHES: Final[tuple[str, ...]] = ("stammtisch", "host", "private", "drawseat")
#: options that a room may change while its game runs (they do not touch the game)
ANY_TIME: Final[tuple[str, ...]] = ("host", "private")


class OptionError(ValueError):
    """A room option or value that is not allowed; ``text`` says what is, for people."""

    def __init__(self, text: Msg) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """The options of a room, all set to valid values."""

    seed: int | None = None
    stammtisch: bool = False
    clock: int | float | None = None
    absent: Absent = "bot"
    #: the first seated person decides the room's options, bots and start
    host: bool = True
    #: the room is not listed; people come in by its name or an invitation
    private: bool = False
    #: the seats are shuffled when the game starts
    drawseat: bool = False
    #: the seat (1 to 4) that begins, or None for the one the shuffle draws
    start: int | None = None

    def with_value(self, key: str, value: Any) -> RoomOptions:
        """These options with ``key`` set to a value already checked."""
        return dataclasses.replace(self, **{key: value})

    def to_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in KEYS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoomOptions:
        """Options as a log kept them: unknown keys and values that no longer pass are left at
        their defaults (a game logged long ago still comes back)."""
        options = cls()
        for key in KEYS:
            if key in data:
                with contextlib.suppress(OptionError):
                    options = options.with_value(key, check_json(key, data[key]))
        return options


def parse_text(key: str, text: str) -> tuple[str, Any]:
    """The option and value a chat command names, both without regard to case, in the value's
    JSON type; ``OptionError`` (with ``typed_rule``) for text that is no value of the key. Its
    range is checked with the message, by ``check_json``."""
    key, text = key.lower(), text.lower()
    if key == "seed":
        if text == "random":
            return key, None
        if not _INTEGER.fullmatch(text):
            raise OptionError(typed_rule(key))
        return key, int(text)
    if key in SWITCHES:
        if text not in ("on", "off"):
            raise OptionError(typed_rule(key))
        return key, text == "on"
    if key == "start":
        if text == "random":
            return key, None
        if not _INTEGER.fullmatch(text):
            raise OptionError(typed_rule(key))
        return key, int(text)
    if key == "clock":
        if text == "off":
            return key, None
        if not _SECONDS.fullmatch(text):
            raise OptionError(typed_rule(key))
        return key, float(text) if "." in text else int(text)
    if key == "absent":
        if text not in get_args(Absent):
            raise OptionError(typed_rule(key))
        return key, text
    raise OptionError(unknown(key))


def check_json(key: str, value: Any) -> Any:
    """``value`` as a JSON message gives it for ``key``: of the key's one JSON type (a string is no
    number, a number no boolean), in range; the words of ``absent`` in any case. Clock 0 is off."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if key == "seed":
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SEED_LIMIT:
            return value
    elif key in SWITCHES:
        if isinstance(value, bool):
            return value
    elif key == "start":
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4:
            return value
    elif key == "clock":
        if value is None or (number and value == 0):
            return None
        if number and 0 < value <= CLOCK_MAX:
            return value
    elif key == "absent":
        word = value.lower() if isinstance(value, str) else None
        if word == "bot" or word == "drop":
            return word
    else:
        raise OptionError(unknown(str(key)))
    raise OptionError(json_rule(key))


def value_schema(key: str) -> tuple[dict[str, Any], bool]:
    """The JSON Schema of what ``check_json`` takes for ``key``, and whether a message must give a
    value (it may leave out one whose absence means null)."""
    if key in SWITCHES:
        return {"type": "boolean"}, True
    if key == "absent":
        return {"enum": ["bot", "drop"]}, True  # (the server takes them in any case too)
    number = {
        "seed": {"type": "integer", "minimum": 0, "maximum": SEED_LIMIT - 1},
        "start": {"type": "integer", "minimum": 1, "maximum": 4},
        "clock": {"type": "number", "minimum": 0, "maximum": CLOCK_MAX},
    }[key]
    return {"anyOf": [number, {"type": "null"}]}, False


def check_value(key: str, value: Any, *, clock_min: float) -> Any:
    """A checked ``value`` that this server also allows: a clock no shorter than ``clock_min``."""
    value = check_json(key, value)
    if key == "clock" and value is not None and value < clock_min:
        raise OptionError(
            _("clock is {least} to {most} seconds per turn, or off.", least=number(clock_min), most=CLOCK_MAX)
        )
    return value


def announcement(who: str, key: str, value: Any) -> Msg:
    """What a room is told when ``who`` sets ``key`` to a checked ``value``: one sentence for each
    option and value (a seed itself stays secret: a chosen deal makes a practice game)."""
    on = bool(value)
    match key:
        case "seed" if value is None:
            return _("{who} set the seed to random.", who=who)
        case "seed":
            return _("{who} chose a seed: a practice game.", who=who)
        case "stammtisch" if on:
            return _(
                "{who} turned stammtisch on: three or four guests of one gender may fill a table.", who=who
            )
        case "stammtisch":
            return _("{who} turned stammtisch off.", who=who)
        case "clock" if value is None:
            return _("{who} turned the clock off.", who=who)
        case "clock":
            return _("{who} set the clock to {seconds} seconds per turn.", who=who, seconds=number(value))
        case "absent" if value == "drop":
            return _("{who} set absent to drop: a player who does not come back leaves the game.", who=who)
        case "absent":
            return _(
                "{who} set absent to bot: a bot plays the seat of a player who does not come back.", who=who
            )
        case "host" if on:
            return _("{who} turned host on: only the host sets options, seats bots and starts.", who=who)
        case "host":
            return _("{who} turned host off: every player sets options, seats bots and starts.", who=who)
        case "private" if on:
            return _("{who} made the room private.", who=who)
        case "private":
            return _("{who} made the room public.", who=who)
        case "drawseat" if on:
            return _("{who} turned drawseat on: the seats are drawn at the start.", who=who)
        case "drawseat":
            return _("{who} turned drawseat off: everyone keeps their seat.", who=who)
        case "start" if value is None:
            return _("{who} left it to the shuffle who begins.", who=who)
        case "start":
            return _("{who} chose seat {seat} to begin.", who=who, seat=value)
    raise OptionError(unknown(key))


__all__ = [
    "ANY_TIME",
    "KEYS",
    "SWITCHES",
    "Absent",
    "OptionError",
    "OptionKey",
    "RoomOptions",
    "announcement",
    "check_json",
    "json_rule",
    "parse_text",
    "typed_rule",
    "unknown",
    "value_schema",
]
