"""The rules: legal moves, playing a move, scoring, drawing, elimination and the end of the game.

``play`` validates and never changes its input; ``legal_moves`` lists every legal move; ``leave``
takes a player out of a running game (as elimination does, section 5).

>>> from engine.position import new_position
>>> p = new_position(["ann", "bob"], seed=7)
>>> moves = legal_moves(p)
>>> result = play(p, moves[0])
>>> result.position.to_move != p.to_move
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import permutations, product
from typing import Any

from engine.board import BAR_PLACES, BAR_VALUES, Board
from engine.cards import Card, Guest, joker_guest, natural_guest
from engine.errors import IllegalMoveError
from engine.notation import (
    BarMove,
    Move,
    Placement,
    SeatMove,
    SwapMove,
    leave_text,
    parse_move,
    placement,
    seat_move,
)
from engine.position import GENDER_OK, Player, Position, sorted_hand

#: nation marker of a table whose guests are of more than one nation
MIXED = "*"
#: the game ends once the deck holds this many cards or fewer
DECK_END = 4
NATURAL_PENALTY = 5
JOKER_PENALTY = 10


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: why, the final scores (after hand penalties), and the ranking.

    ``places`` gives each player's place (1 is best); players who tie share a place."""

    reason: str
    final_scores: Mapping[str, int]
    penalties: Mapping[str, int]
    ranking: tuple[str, ...]
    places: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "final_scores": dict(self.final_scores),
            "penalties": dict(self.penalties),
            "ranking": list(self.ranking),
            "places": dict(self.places),
        }


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What a move did. ``events`` are JSON-ready and public; ``drawn`` (the cards the player
    drew) is private to that player."""

    position: Position
    move: str
    player: int
    points: int
    events: tuple[dict[str, Any], ...]
    drawn: tuple[Card, ...] = field(default=())
    outcome: Outcome | None = None

    # written out, as Player's (engine/position.py says why)
    def __init__(
        self,
        position: Position,
        move: str,
        player: int,
        points: int,
        events: tuple[dict[str, Any], ...],
        drawn: tuple[Card, ...] = (),
        outcome: Outcome | None = None,
    ) -> None:
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "move", move)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "outcome", outcome)


# --- the board as counts -------------------------------------------------------------------


def _table_counts(
    board: Board, chairs: tuple[Guest | None, ...], only: Iterable[int] | None = None
) -> tuple[list[int], list[int], list[str | None]]:
    """Men, women and the nation (``None`` empty, ``MIXED``) at every table (or only at the
    tables ``only`` names: the others then read as empty)."""
    n = len(board.tables)
    men, women = [0] * n, [0] * n
    nation: list[str | None] = [None] * n
    # (only a shortcut: counting every table changes none of the counts ``only`` names)
    for table in board.tables if only is None else (board.tables[t] for t in only):  # pragma: no mutate
        t = table.index
        for c in table.chairs:
            g = chairs[c]
            if g is None:
                continue
            if g.gender == "m":
                men[t] += 1
            else:
                women[t] += 1
            if nation[t] is None:
                nation[t] = g.nation
            elif nation[t] != g.nation:
                nation[t] = MIXED
    return men, women, nation


def _count(n: int, one: str, many: str) -> str:
    """``n`` things, in the word's form for that many (``1 woman``, ``3 men``)."""
    return f"{n} {one if n == 1 else many}"


def _points(k: int, one_nation: bool) -> int:
    if k < 2:
        return 0
    return 2 * k if one_nation else k


def _evolve(
    position: Position,
    *,
    players: tuple[Player, ...] | None = None,
    eliminated: tuple[int, ...] | None = None,
    to_move: int | None = None,
    chairs: tuple[Guest | None, ...] | None = None,
    bar: tuple[Card, ...] | None = None,
    deck: tuple[Card, ...] | None = None,
) -> Position:
    """``dataclasses.replace`` for a position, without its generic cost (``play`` runs it thrice)."""
    return Position(
        board=position.board,
        options=position.options,
        players=position.players if players is None else players,
        eliminated=position.eliminated if eliminated is None else eliminated,
        to_move=position.to_move if to_move is None else to_move,
        start_player=position.start_player,
        chairs=position.chairs if chairs is None else chairs,
        bar=position.bar if bar is None else bar,
        deck=position.deck if deck is None else deck,
    )


# --- end of the game -----------------------------------------------------------------------


def game_over_reason(position: Position) -> str | None:
    """Why the game is over (docs/rules.md section 7), or ``None`` while it goes on."""
    if len(position.deck) <= DECK_END:
        return "deck"
    if None not in position.chairs:
        return "chairs"
    if len(position.bar) >= BAR_PLACES:
        return "bar"
    eliminated = position.eliminated
    if len(position.players) - len(eliminated) <= 1:
        return "last_player"
    for i, p in enumerate(position.players):
        if not p.hand and i not in eliminated:
            return "empty_hand"
    return None


def is_over(position: Position) -> bool:
    return game_over_reason(position) is not None


def hand_penalty(hand: Iterable[Card]) -> int:
    return sum(JOKER_PENALTY if c.is_joker else NATURAL_PENALTY for c in hand)


def outcome(position: Position) -> Outcome | None:
    """Final scores and ranking of a finished game (``None`` while it goes on)."""
    reason = game_over_reason(position)
    if reason is None:
        return None
    players = position.players
    remaining = position.remaining()
    penalties = {p.name: (hand_penalty(p.hand) if i in remaining else 0) for i, p in enumerate(players)}
    final = {p.name: p.score - penalties[p.name] for p in players}

    def key(i: int) -> tuple[int, int]:
        name = players[i].name
        return (-final[name], penalties[name])

    ordered = sorted(remaining, key=lambda i: (*key(i), i))
    places: dict[str, int] = {}
    for rank, i in enumerate(ordered):
        prev = ordered[rank - 1] if rank else None
        shared = prev is not None and key(prev) == key(i)
        places[players[i].name] = places[players[prev].name] if shared and prev is not None else rank + 1
    ranking = [players[i].name for i in ordered]
    for i in reversed(position.eliminated):
        ranking.append(players[i].name)
        places[players[i].name] = len(ranking)
    return Outcome(reason, final, penalties, tuple(ranking), places)


# --- legal moves ---------------------------------------------------------------------------


def legal_moves(position: Position) -> list[Move]:
    """Every legal move for the player to move, each once, sorted by canonical text."""
    if is_over(position):
        return []
    hand = position.players[position.to_move].hand
    moves: list[Move] = list(_seat_moves(position, hand))
    if position.options.stammtisch:
        moves.extend(_stammtisch_moves(position, hand))
    naturals = sorted({c for c in hand if not c.is_joker})  # (cards sort by their text)
    # (the bar has a free place: a full bar ends the game)
    if naturals:
        moves.extend(BarMove(c) for c in naturals)
    elif not moves:
        moves.extend(BarMove(c) for c in sorted(set(hand)))
    moves.extend(_swap_moves(position, naturals))
    moves.sort(key=lambda m: m.text)
    return moves


def legal_move_texts(position: Position) -> list[str]:
    """``legal_moves`` as canonical text, sorted."""
    return [m.text for m in legal_moves(position)]


def _seat_moves(position: Position, hand: tuple[Card, ...]) -> list[SeatMove]:
    board = position.board
    chairs = position.chairs
    men, women, _ = _table_counts(board, chairs)
    bchairs = board.chairs
    counts = Counter(hand)
    unique = sorted(counts)
    free = [i for i, g in enumerate(chairs) if g is None]
    # for each card: every (placement, gender ok, scores) on a free chair whose nation fits,
    # in chair order, and the same grouped by chair
    cands: dict[Card, list[tuple[Placement, bool, bool]]] = {}
    at_chair: dict[Card, dict[int, list[Placement]]] = {}
    for card in unique:
        is_m = card.gender == "m"
        lst: list[tuple[Placement, bool, bool]] = []
        by_chair: dict[int, list[Placement]] = {}
        for ci in free:
            ch = bchairs[ci]
            if card.is_joker:
                guests = [joker_guest(card, n) for n in ch.nations]
            elif card.nation in ch.nations:
                guests = [natural_guest(card)]
            else:
                continue
            after = [(men[t] + is_m, women[t] + (not is_m)) for t in ch.tables]
            ok = all(state in GENDER_OK for state in after)
            scores = any(m + f >= 2 for m, f in after)
            ps = [placement(board, g, ci) for g in guests]
            by_chair[ci] = ps
            for p in ps:
                lst.append((p, ok, scores))
        cands[card] = lst
        at_chair[card] = by_chair

    moves: list[SeatMove] = []
    opening = position.is_opening
    for card in unique:
        for p, ok, scores in cands[card]:
            if ok and (scores or opening):
                moves.append(SeatMove((p,), p.text))

    for c1 in unique:
        # the second card: another card of the hand, or a second one of the first
        others = [c for c in unique if c is not c1 or counts[c] > 1]
        for p1, ok1, sc1 in cands[c1]:
            if not ok1:
                continue
            ch1 = p1.chair
            tables1 = bchairs[ch1].tables
            m1 = p1.guest.gender == "m"
            neighbours = board.neighbours[ch1]
            for c2 in others:
                is_m2 = c2.gender == "m"
                # a second card at one of the first card's tables: the order matters; check it
                by_chair2 = at_chair[c2]
                for ch2 in neighbours:
                    ps2 = by_chair2.get(ch2)
                    if not ps2:
                        continue
                    for t in bchairs[ch2].tables:
                        both = t in tables1
                        m = men[t] + is_m2 + (m1 if both else 0)
                        f = women[t] + (not is_m2) + ((not m1) if both else 0)
                        if (m, f) not in GENDER_OK:
                            break
                    else:  # every table keeps the gender rule
                        for p2 in ps2:
                            moves.append(SeatMove((p1, p2), f"{p1.text} {p2.text}"))
                # no table in common: both must score on their own; listed once, in board order
                if sc1:
                    for p2, ok2, sc2 in cands[c2]:
                        ch2 = p2.chair
                        if ok2 and sc2 and ch2 > ch1 and ch2 not in neighbours:
                            moves.append(SeatMove((p1, p2), f"{p1.text} {p2.text}"))
    return moves


def _stammtisch_moves(position: Position, hand: tuple[Card, ...]) -> list[SeatMove]:
    board = position.board
    chairs = position.chairs
    men, women, _ = _table_counts(board, chairs)
    found: dict[str, SeatMove] = {}
    for table in board.tables:
        t = table.index
        free = sorted(c for c in table.chairs if chairs[c] is None)
        for gender in ("m", "f"):
            state = (men[t], women[t])
            if state == (0, 0):
                need = 4
            elif state == ((1, 0) if gender == "m" else (0, 1)):
                need = 3
            else:
                continue
            cards = [c for c in hand if c.gender == gender]
            if len(cards) < need:
                continue
            seen: set[tuple[Card, ...]] = set()
            for perm in permutations(cards, need):
                if perm in seen:
                    continue
                seen.add(perm)  # pragma: no mutate - a shortcut: ``found`` keeps each move once too
                options: list[list[Placement]] = []
                # (as many free chairs as cards needed: strict only says so)
                for card, ci in zip(perm, free, strict=True):  # pragma: no mutate
                    ch = board.chairs[ci]
                    if card.is_joker:
                        guests = [joker_guest(card, n) for n in ch.nations]
                    elif card.nation in ch.nations:
                        guests = [natural_guest(card)]
                    else:
                        break
                    # other tables reached through a shared chair keep the gender rule
                    is_m = gender == "m"
                    if any(
                        (men[o] + is_m, women[o] + (not is_m)) not in GENDER_OK for o in ch.tables if o != t
                    ):
                        break
                    options.append([placement(board, g, ci) for g in guests])
                else:
                    for combo in product(*options):
                        move = seat_move(tuple(combo))
                        found.setdefault(move.text, move)
    return list(found.values())


def _swap_moves(position: Position, naturals: list[Card]) -> list[SwapMove]:
    board = position.board
    moves = []
    for ci, g in enumerate(position.chairs):
        if g is None or not g.card.is_joker:
            continue
        chair = board.chairs[ci]
        for card in naturals:
            if card.gender == g.gender and card.nation in chair.nations:
                moves.append(SwapMove(card, ci, chair.name))
    return moves


# --- playing a move ------------------------------------------------------------------------


def play(position: Position, move: Move | str) -> PlayResult:
    """Validate ``move`` for the player to move and return the new position and what happened.

    Raises ``IllegalMoveError`` with a code of docs/rules.md section 13; ``position`` never changes."""
    if is_over(position):
        raise IllegalMoveError("game_over", "The game has ended.")
    if isinstance(move, str):
        move = parse_move(move, position.board)
    if isinstance(move, SeatMove):
        return _play_seat(position, move)
    if isinstance(move, BarMove):
        return _play_bar(position, move)
    return _play_swap(position, move)


def leave(position: Position, player: int | str) -> PlayResult:
    """Take ``player`` (a seat index or a name) out of a running game, at any time, whoever is to
    move; ``position`` never changes.

    Leaving works as elimination does (docs/rules.md section 5): the score stays as it was, the hand
    leaves play (it stays recorded with the player), no card is drawn, the player's turns are
    skipped and the player joins ``eliminated``, so ranks below every remaining player (section 8).
    If the leaver was to move, the turn passes to the next remaining player; with one player left
    the game is over (section 7, condition 5) and the result carries the outcome.

    The result's ``move`` is the game record's entry, ``leave NAME``; its events are
    ``{"type": "left", "player": NAME}`` and, when the game ends, ``game_over``. Raises
    ``IllegalMoveError`` with ``game_over``, ``unknown_player`` (no such seat or name) or
    ``already_out`` (the player left or was eliminated before).

    >>> from engine.position import new_position
    >>> p = new_position(["ann", "bob", "cem"], seed=1, start_player=0)
    >>> result = leave(p, "ann")
    >>> result.move, result.position.to_move, [e["type"] for e in result.events]
    ('leave ann', 1, ['left'])
    """
    if is_over(position):
        raise IllegalMoveError("game_over", "The game has ended.")
    players = position.players
    if isinstance(player, str):
        index = next((i for i, p in enumerate(players) if p.name == player), None)
    else:
        index = player if 0 <= player < len(players) else None
    if index is None:
        raise IllegalMoveError(
            "unknown_player", f"{player!r} is not a player of this game.", params={"player": player}
        )
    name = players[index].name
    if index in position.eliminated:
        raise IllegalMoveError("already_out", f"{name} is out of the game already.", params={"name": name})
    after = _evolve(position, eliminated=(*position.eliminated, index))
    events: list[dict[str, Any]] = [{"type": "left", "player": name}]
    if index == position.to_move:
        return _end_turn(after, leave_text(name), index, 0, events, ())
    # another player is to move and stays so; the game may still end (one player left)
    result = outcome(after)
    if result is not None:
        events.append({"type": "game_over", **result.to_dict()})
    return PlayResult(after, leave_text(name), index, 0, tuple(events), (), result)


def _take_from_hand(hand: tuple[Card, ...], cards: Iterable[Card]) -> list[Card]:
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            held = sum(1 for c in hand if c is card)
            more = f" (only {held})" if held else ""
            raise IllegalMoveError(
                "not_in_hand",
                f"You do not hold {card.text}{more} for this move.",
                reason="only" if held else "",
                params={"card": card.text, "held": held},
            ) from None
    return rest


def _stammtisch_table(position: Position, move: SeatMove) -> int:
    board = position.board
    pl = move.placements
    common = set(board.chairs[pl[0].chair].tables)
    for p in pl[1:]:
        common &= set(board.chairs[p.chair].tables)
    # (a table has four chairs: five distinct chairs of one table there are not)
    if (
        not position.options.stammtisch
        or len(common) != 1
        or len({p.chair for p in pl}) != len(pl)
        or len({p.guest.gender for p in pl}) != 1
    ):
        allowed = (
            "three or four cards only to fill one table with four men or four women"
            if position.options.stammtisch
            else "at most two cards"
        )
        raise IllegalMoveError(
            "too_many_cards",
            f"One move seats {allowed}.",
            reason="stammtisch" if position.options.stammtisch else "",
        )
    return common.pop()


def _play_seat(position: Position, move: SeatMove) -> PlayResult:
    board = position.board
    pl = move.placements
    player_index = position.to_move
    player = position.players[player_index]
    stammtisch = _stammtisch_table(position, move) if len(pl) > 2 else None
    rest = _take_from_hand(player.hand, (p.card for p in pl))

    chairs = list(position.chairs)
    # only the tables this move touches matter (a shortcut: every table counted reads the same)
    touched = {t for p in pl for t in board.chairs[p.chair].tables}  # pragma: no mutate
    men, women, nation = _table_counts(board, position.chairs, touched)  # pragma: no mutate
    events: list[dict[str, Any]] = []
    scored: list[bool] = []
    points = 0
    completed = 0
    for p in pl:
        chair = board.chairs[p.chair]
        g = p.guest
        if chairs[p.chair] is not None:
            raise IllegalMoveError("chair_taken", f"{chair.name} is taken.", params={"chair": chair.name})
        if g.nation not in chair.nations:
            where = " and ".join(board.tables[t].name for t in chair.tables)
            raise IllegalMoveError(
                "wrong_nation",
                f"{g.text} cannot sit on {chair.name}, a chair of {where}.",
                params={
                    "card": g.text,
                    "chair": chair.name,
                    "tables": tuple(board.tables[t].name for t in chair.tables),
                },
            )
        is_m = g.gender == "m"
        for t in chair.tables:
            state = (men[t] + is_m, women[t] + (not is_m))
            if t != stammtisch and state not in GENDER_OK:
                raise IllegalMoveError(
                    "gender",
                    f"{g.text} on {chair.name} would leave {board.tables[t].name} with "
                    f"{_count(state[0], 'man', 'men')} and {_count(state[1], 'woman', 'women')}.",
                    params={
                        "card": g.text,
                        "chair": chair.name,
                        "table": board.tables[t].name,
                        "men": state[0],
                        "women": state[1],
                    },
                )
        tables: dict[str, int] = {}
        finishes = False
        for t in chair.tables:
            men[t] += is_m
            women[t] += not is_m
            nation[t] = g.nation if nation[t] in (None, g.nation) else MIXED
            k = men[t] + women[t]
            one_nation = nation[t] != MIXED
            if k == 4 and one_nation:
                finishes = True
            if t == stammtisch:
                continue
            pts = _points(k, one_nation)
            tables[board.tables[t].name] = pts
        chairs[p.chair] = g
        card_points = sum(tables.values())
        points += card_points
        completed += finishes
        # the card scores when it joins a guest at a table of its own (not the stammtisch)
        scored.append(any(men[t] + women[t] >= 2 for t in chair.tables if t != stammtisch))
        events.append(
            {
                "type": "seat",
                "player": player.name,
                "card": g.text,
                "chair": chair.name,
                "points": card_points,
                "tables": tables,
            }
        )

    if stammtisch is not None:
        t = stammtisch
        gender = pl[0].guest.gender  # pragma: no mutate - one gender, _stammtisch_table checked
        if (men[t], women[t]) != ((4, 0) if gender == "m" else (0, 4)):
            word = "men" if gender == "m" else "women"
            raise IllegalMoveError(
                "gender",
                f"Three or four cards must fill {board.tables[t].name} with four {word}.",
                reason="stammtisch",
                params={"table": board.tables[t].name, "gender": gender},
            )
        table_points = 40 if nation[t] != MIXED else 20
        points += table_points
        events.append(
            {
                "type": "stammtisch",
                "player": player.name,
                "table": board.tables[t].name,
                "gender": gender,
                "points": table_points,
            }
        )
        pl = tuple(sorted(pl, key=lambda p: p.chair))
    else:
        _check_alone(position, pl, scored)
        if len(pl) == 2 and pl[1].chair not in board.neighbours[pl[0].chair]:
            pl = tuple(sorted(pl, key=lambda p: p.chair))
    canonical = seat_move(pl).text
    after = _evolve(position, chairs=tuple(chairs))
    return _finish(after, canonical, points, events, rest, completed)


def _check_alone(position: Position, pl: tuple[Placement, ...], scored: list[bool]) -> None:
    board = position.board
    first = pl[0]
    if len(pl) == 1:
        if not scored[0] and not position.is_opening:
            raise IllegalMoveError(
                "alone",
                f"{first.guest.text} on {board.chairs[first.chair].name} would sit alone and score nothing.",
                params={"card": first.guest.text, "chair": board.chairs[first.chair].name},
            )
        return
    second = pl[1]
    if not scored[0] and second.chair not in board.neighbours[first.chair]:
        raise IllegalMoveError(
            "alone",
            f"{first.guest.text} on {board.chairs[first.chair].name} would sit alone: "
            "the second card must join it at its table.",
            reason="join",
            params={"card": first.guest.text, "chair": board.chairs[first.chair].name},
        )
    if not scored[1]:
        raise IllegalMoveError(
            "alone",
            f"{second.guest.text} on {board.chairs[second.chair].name} would sit alone and score nothing.",
            params={"card": second.guest.text, "chair": board.chairs[second.chair].name},
        )


def _has_seat_move(position: Position) -> bool:
    """Whether the player to move can seat a card. Asked only of a hand of jokers alone, two of a
    gender at most: never a stammtisch, which takes three or four of one gender."""
    return bool(_seat_moves(position, position.players[position.to_move].hand))


def _play_bar(position: Position, move: BarMove) -> PlayResult:
    player_index = position.to_move
    player = position.players[player_index]
    card = move.card
    rest = _take_from_hand(player.hand, (card,))
    if card.is_joker and (any(not c.is_joker for c in player.hand) or _has_seat_move(position)):
        raise IllegalMoveError(
            "joker_to_bar", "A joker goes to the bar only when nothing else can be played."
        )
    place = len(position.bar) + 1
    value = BAR_VALUES[place - 1]
    points = min(value, 0) if card.is_joker else value  # a joker wins nothing, and pays a cost
    bar = (*position.bar, card)
    events: list[dict[str, Any]] = []
    if player.score < -points:  # cannot pay the cost (a score is never below 0: only a cost can)
        events.append({"type": "bar", "player": player.name, "card": card.text, "place": place, "points": 0})
        events.append(
            {
                "type": "eliminated",
                "player": player.name,
                "place": place,
                "cost": -points,
                "score": player.score,
            }
        )
        players = list(position.players)
        players[player_index] = replace(player, hand=sorted_hand(rest))
        after = _evolve(
            position, bar=bar, players=tuple(players), eliminated=(*position.eliminated, player_index)
        )
        return _end_turn(after, move.text, player_index, 0, events, ())
    events.append({"type": "bar", "player": player.name, "card": card.text, "place": place, "points": points})
    return _finish(_evolve(position, bar=bar), move.text, points, events, rest, 0)


def _play_swap(position: Position, move: SwapMove) -> PlayResult:
    board = position.board
    player_index = position.to_move
    player = position.players[player_index]
    card = move.card
    rest = _take_from_hand(player.hand, (card,))
    chair = board.chairs[move.chair]
    seated = position.chairs[move.chair]
    if seated is None or not seated.card.is_joker:
        raise IllegalMoveError(
            "bad_swap", f"There is no joker on {chair.name}.", reason="no_joker", params={"chair": chair.name}
        )
    if card.is_joker or card.gender != seated.gender or card.nation not in chair.nations:
        raise IllegalMoveError(
            "bad_swap",
            f"The joker on {chair.name} ({seated.text}) can only be exchanged for a "
            f"{'man' if seated.gender == 'm' else 'woman'} of {' or '.join(chair.nations)}.",
            params={
                "chair": chair.name,
                "joker": seated.text,
                "gender": seated.gender,
                "nations": chair.nations,
            },
        )
    chairs = list(position.chairs)
    chairs[move.chair] = natural_guest(card)
    players = list(position.players)
    players[player_index] = replace(player, hand=sorted_hand([*rest, seated.card]))
    after = _evolve(position, chairs=tuple(chairs), players=tuple(players))
    events: list[dict[str, Any]] = [
        {
            "type": "swap",
            "player": player.name,
            "card": card.text,
            "chair": chair.name,
            "joker": seated.card.text,
        }
    ]
    return _end_turn(after, move.text, player_index, 0, events, ())


def _finish(
    position: Position,
    move: str,
    points: int,
    events: list[dict[str, Any]],
    rest: list[Card],
    completed: int,
) -> PlayResult:
    """Score, lower the hand limit, draw, then pass the turn."""
    player_index = position.to_move
    player = position.players[player_index]
    limit = max(0, player.hand_limit - completed)
    if limit != player.hand_limit:
        events.append({"type": "hand_limit", "player": player.name, "hand_limit": limit})
    count = min(max(0, limit - len(rest)), len(position.deck))
    drawn = position.deck[:count]
    events.append({"type": "draw", "player": player.name, "count": count})
    players = list(position.players)
    players[player_index] = Player(player.name, sorted_hand([*rest, *drawn]), player.score + points, limit)
    after = _evolve(position, players=tuple(players), deck=position.deck[count:])
    return _end_turn(after, move, player_index, points, events, drawn)


def _end_turn(
    position: Position,
    move: str,
    player_index: int,
    points: int,
    events: list[dict[str, Any]],
    drawn: tuple[Card, ...],
) -> PlayResult:
    n = len(position.players)
    nxt = (player_index + 1) % n
    while nxt in position.eliminated and nxt != player_index:
        nxt = (nxt + 1) % n
    after = _evolve(position, to_move=nxt)
    result = outcome(after)
    if result is not None:
        events.append({"type": "game_over", **result.to_dict()})
    return PlayResult(after, move, player_index, points, tuple(events), drawn, result)
