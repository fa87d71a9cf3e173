"""The engine's errors: a small tree under ``ValueError``."""

from __future__ import annotations

from collections.abc import Mapping


class EngineError(ValueError):
    """Base of every error the engine raises."""


class InvalidPositionError(EngineError):
    """A position, card, board or record that cannot be loaded, with what is wrong."""


class IllegalMoveError(EngineError):
    """A move refused by the rules, with a stable ``code`` (docs/rules.md section 13) and a sentence.

    The sentence is English, for the engine's own users; ``reason`` (which of the code's sentences,
    ``""`` when the code has one) and ``params`` (the values the sentence names: chair and table
    names, cards, counts) let a caller say the same in another language."""

    def __init__(
        self, code: str, message: str, *, reason: str = "", params: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.params: Mapping[str, object] = dict(params or {})

    def __repr__(self) -> str:
        return f"IllegalMoveError({self.code!r}, {self.message!r})"


#: The rule error codes of docs/rules.md section 13, in the order faults are reported.
RULE_ERROR_CODES = (
    "game_over",
    "bad_notation",
    "unknown_chair",
    "joker_nation",
    "too_many_cards",
    "not_in_hand",
    "chair_taken",
    "wrong_nation",
    "gender",
    "alone",
    "joker_to_bar",
    "bad_swap",
    "not_your_turn",
)

#: The codes ``leave`` adds for a player who cannot leave (besides ``game_over``): a name or seat
#: that is not a player of the game, and a player who already left or was eliminated. Leaving is
#: not a move of section 11, so these are not section 13 codes.
LEAVE_ERROR_CODES = ("unknown_player", "already_out")
