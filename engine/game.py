"""Game records: seed, options, players and moves. Replaying a record gives the same game.

``moves`` holds the moves in the notation of docs/rules.md section 11 and, where a player left the
running game, the entry ``leave NAME`` (see ``engine.rules.leave``); no move starts with that word.

>>> record = random_game(["ann", "bob"], seed=3)
>>> replay(record).position == replay(load_record(dump_record(record))).position
True
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalMoveError, InvalidPositionError
from engine.notation import parse_leave
from engine.position import Options, Position, new_position
from engine.rules import Outcome, PlayResult, is_over, leave, legal_moves, outcome, play

#: fields a published record may carry beside the game itself; ``replay`` ignores them,
#: ``verify`` checks ``seed_hash`` and ``result`` (``auto``: the moves the server played for their
#: player, which change nothing in the game)
RECORD_NOTES = ("seed_hash", "result", "room", "id", "auto")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything needed to replay a game. ``start_player`` is ``None`` when the seed drew it."""

    players: tuple[str, ...]
    seed: int
    options: Options = field(default_factory=Options)
    board: str = "classic"
    start_player: int | None = None
    moves: tuple[str, ...] = ()

    def start(self) -> Position:
        return new_position(
            self.players,
            self.seed,
            options=self.options,
            board=self.board,
            start_player=self.start_player,
        )

    def with_move(self, move: str) -> GameRecord:
        return GameRecord(
            self.players, self.seed, self.options, self.board, self.start_player, (*self.moves, move)
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "board": self.board,
            "options": {"stammtisch": self.options.stammtisch},
            "players": list(self.players),
            "seed": self.seed,
            "moves": list(self.moves),
        }
        if self.start_player is not None:
            data["start_player"] = self.start_player
        return data


@dataclass(frozen=True, slots=True)
class Replay:
    """A replayed record: the final position, every move's result and the outcome, if over."""

    position: Position
    results: tuple[PlayResult, ...]
    outcome: Outcome | None


def record_from_dict(data: Mapping[str, Any]) -> GameRecord:
    """Load a record, checking its fields (not its moves: ``replay`` does that)."""
    if not isinstance(data, Mapping):
        raise InvalidPositionError("a game record is a JSON object")
    extra = set(data) - {"board", "options", "players", "seed", "moves", "start_player", *RECORD_NOTES}
    if extra:
        raise InvalidPositionError(f"record: unknown field(s) {', '.join(sorted(extra))}")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidPositionError("record: players must be a list of names")
    seed = data.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidPositionError("record: seed must be an integer")
    moves = data.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise InvalidPositionError("record: moves must be a list of move texts")
    options = data.get("options", {})
    if not isinstance(options, Mapping) or set(options) - {"stammtisch"}:
        raise InvalidPositionError("record: options may only hold 'stammtisch'")
    start = data.get("start_player")
    if start is not None and (not isinstance(start, int) or isinstance(start, bool)):
        raise InvalidPositionError("record: start_player must be a seat number")
    board = data.get("board", "classic")
    if not isinstance(board, str):
        raise InvalidPositionError("record: board must be a name")
    return GameRecord(
        players=tuple(players),
        seed=seed,
        options=Options(stammtisch=bool(options.get("stammtisch", False))),
        board=board,
        start_player=start,
        moves=tuple(moves),
    )


def load_record(text: str | bytes) -> GameRecord:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:  # (nested past Python's limit: RecursionError)
        raise InvalidPositionError(f"not JSON: {e}") from None
    return record_from_dict(data)


def dump_record(record: GameRecord, *, indent: int | None = None) -> str:
    return json.dumps(record.to_dict(), sort_keys=True, indent=indent)


def replay(record: GameRecord) -> Replay:
    """Play every move of ``record`` from its start (an entry ``leave NAME`` takes that player out,
    as ``leave`` does); raises ``InvalidPositionError`` naming the first entry the rules refuse."""
    position = record.start()
    results = []
    for number, move in enumerate(record.moves, 1):
        leaver = parse_leave(move)
        try:
            result = play(position, move) if leaver is None else leave(position, leaver)
        except IllegalMoveError as e:
            raise InvalidPositionError(f"move {number} {move!r} is refused: {e.code}: {e}") from None
        results.append(result)
        position = result.position
    return Replay(position, tuple(results), outcome(position))


def random_game(
    players: Sequence[str], seed: int, *, options: Options | None = None, move_seed: int | None = None
) -> GameRecord:
    """A whole game of uniformly random legal moves (the moves drawn with ``move_seed``,
    by default the deal's seed)."""
    record = GameRecord(tuple(players), seed, options or Options())
    position = record.start()
    rng = random.Random(seed if move_seed is None else move_seed)
    moves = []
    while not is_over(position):
        result = play(position, rng.choice(legal_moves(position)))
        moves.append(result.move)
        position = result.position
    return GameRecord(record.players, seed, record.options, record.board, None, tuple(moves))


def seed_hash(seed: int) -> str:
    """The fingerprint published when a game starts: sha256 of the seed's decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def verify(data: Mapping[str, Any], seen: str | None = None) -> dict[str, Any]:
    """Check a published record: its seed matches the fingerprint and its moves replay to
    ``result`` (its reason, final scores, penalties, ranking and places, each). The fingerprint
    is ``seen``, the one the checker got when the game started, when given; else the record's
    own ``seed_hash``, which is only the server's word (a seed changed after the start would
    come with its own hash).

    Returns ``{"ok": bool, "checks": [{"check": ..., "ok": bool, "detail": ...}, ...]}``; raises
    ``InvalidPositionError`` for a record that cannot be read as a game at all (its start
    included: two to four players, a board there is)."""
    record = record_from_dict(data)
    record.start()
    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool, detail: str) -> None:
        checks.append({"check": name, "ok": ok, "detail": detail})

    published = data.get("seed_hash") if seen is None else seen.strip().lower()
    whose = "the record's" if seen is None else "the one seen at the start"
    computed = seed_hash(record.seed)
    if published is None:
        check("seed_hash", False, "the record carries no seed_hash to check the seed against")
    else:
        check(
            "seed_hash",
            published == computed,
            f"sha256({record.seed}) = {computed}"
            + (f", {whose}" if published == computed else f", not {published} ({whose})"),
        )
    try:
        result = replay(record)
    except InvalidPositionError as e:
        check("moves", False, str(e))
        return {"ok": False, "checks": checks}
    check("moves", True, f"all {len(record.moves)} moves are legal")
    claimed = data.get("result")
    if result.outcome is None:
        check(
            "result",
            claimed is None,
            "the game is not over" + ("" if claimed is None else ", but the record claims a result"),
        )
    elif not isinstance(claimed, Mapping):
        check("result", False, "the game is over but the record carries no result")
    else:
        replayed = result.outcome.to_dict()
        differ = [key for key, value in replayed.items() if claimed.get(key) != value]
        scores = ", ".join(f"{n} {s}" for n, s in result.outcome.final_scores.items())
        check(
            "result",
            not differ,
            f"replayed final scores: {scores}"
            + (f"; the record's {', '.join(differ)} differ: it says {dict(claimed)}" if differ else ""),
        )
    return {"ok": all(c["ok"] for c in checks), "checks": checks}
