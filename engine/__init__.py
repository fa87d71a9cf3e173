"""The rules of Café International as a pure library: boards, cards, positions, moves, play.

>>> from engine import new_position, legal_moves, play
>>> position = new_position(["ann", "bob"], seed=1)
>>> result = play(position, legal_moves(position)[0])
>>> result.position.players[position.to_move].score >= 0
True

A player who leaves a running game is taken out with ``leave(position, name)``, which treats them
as eliminated; a game record writes it as the entry ``leave NAME``, which ``replay`` understands.
"""

from engine.board import BAR_PLACES, BAR_VALUES, Board, Chair, Table, get_board
from engine.cards import NATIONS, Card, Guest, parse_card, parse_guest
from engine.errors import (
    LEAVE_ERROR_CODES,
    RULE_ERROR_CODES,
    EngineError,
    IllegalMoveError,
    InvalidPositionError,
)
from engine.game import (
    GameRecord,
    Replay,
    dump_record,
    load_record,
    random_game,
    record_from_dict,
    replay,
)
from engine.notation import (
    BarMove,
    Move,
    Placement,
    SeatMove,
    SwapMove,
    leave_text,
    parse_leave,
    parse_move,
)
from engine.position import (
    Options,
    Player,
    Position,
    dump_position,
    load_position,
    new_position,
    position_from_dict,
    position_to_dict,
)
from engine.rules import (
    Outcome,
    PlayResult,
    game_over_reason,
    is_over,
    leave,
    legal_move_texts,
    legal_moves,
    outcome,
    play,
)
from engine.view import view

__all__ = [
    "BAR_PLACES",
    "BAR_VALUES",
    "LEAVE_ERROR_CODES",
    "NATIONS",
    "RULE_ERROR_CODES",
    "BarMove",
    "Board",
    "Card",
    "Chair",
    "EngineError",
    "GameRecord",
    "Guest",
    "IllegalMoveError",
    "InvalidPositionError",
    "Move",
    "Options",
    "Outcome",
    "Placement",
    "PlayResult",
    "Player",
    "Position",
    "Replay",
    "SeatMove",
    "SwapMove",
    "Table",
    "dump_position",
    "dump_record",
    "game_over_reason",
    "get_board",
    "is_over",
    "leave",
    "leave_text",
    "legal_move_texts",
    "legal_moves",
    "load_position",
    "load_record",
    "new_position",
    "outcome",
    "parse_card",
    "parse_guest",
    "parse_leave",
    "parse_move",
    "play",
    "position_from_dict",
    "position_to_dict",
    "random_game",
    "record_from_dict",
    "replay",
    "view",
]
