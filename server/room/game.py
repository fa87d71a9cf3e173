"""The game in a room: starting it, moves from players, bots and the clock, resume windows,
the end, and taking a game up again from the log."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from engine import GameRecord, IllegalMoveError, Options, Outcome, Position, leave, play, replay
from engine.game import seed_hash
from engine.rules import PlayResult, legal_move_texts
from protocol import i18n
from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.options import RoomOptions
from protocol.outgoing import Outgoing
from protocol.refusals import refusal
from protocol.view import LastMove
from server.ratings import is_rated
from server.room.base import CLOCK_WARNING, TURN, WARN, RoomBase, window
from server.room.effects import Arm, Cancel, GameEnd, GameStart, MoveLogged, Step, Think
from server.room.items import BotMove, ClockTimeout, ClockWarning, TurnRetry, Unattended, WindowPassed
from server.room.state import MAX_SEATS, MIN_PLAYERS, Game, Seat
from server.room.world import Member

if TYPE_CHECKING:
    from server.log.contract import StoredGame

#: the timer of a game that waits with nobody in its room
IDLE = "idle"
#: seconds before an automatic move or a drop that the log refused is tried again
RETRY = 2.0


class RoomGame(RoomBase):
    """The part of a room core that plays the game."""

    #: the ratings the log gave the game whose end it just wrote (game id, name -> shift)
    _rated: tuple[str, dict[str, m.RatingShift]] | None = None
    #: (game id, name) of the players voted out (and of those whose seat was taken over)
    _voted_out: frozenset[tuple[str, str]] = frozenset()

    # --- the game ----------------------------------------------------------------------------------

    def _on_start(self, session: Member, msg: m.Start) -> Step:
        # (the starter's seat is checked with the host, before)
        if self.state == "playing":
            raise ProtocolError("game_running", _("The game has already started."), msg.id)
        if not MIN_PLAYERS <= len(self.seats) <= MAX_SEATS:
            raise ProtocolError(
                "not_enough_players", _("A game needs 2 to 4 seated players: /join or /addbot."), msg.id
            )
        starter = self._name(session)
        if all(s.strategy is not None for s in self.seats if s.name != starter):
            # the server's bots think on the server's time: a person may keep only a few such games
            limit = self.settings.max_bot_games
            if self._bot_games(starter) >= limit:
                raise ProtocolError(
                    "too_many_bot_games",
                    _(
                        "You have {limit} games against the server's bots running; finish one first.",
                        limit=limit,
                    ),
                    msg.id,
                )
        start = self.options.start
        if start is not None and start > len(self.seats):
            raise ProtocolError(
                "bad_option",
                _(
                    "Seat {start} is to begin, but {taken} are taken: /option start.",
                    start=start,
                    taken=len(self.seats),
                ),
                msg.id,
            )
        seed = self.options.seed
        if seed is None:
            seed = self._new_seed()
        seats = list(self.seats)
        if self.options.drawseat:  # drawn from the seed, so that the same seed seats the same way
            random.Random(f"seats:{seed}").shuffle(seats)
        record = GameRecord(
            players=tuple(s.name for s in seats),
            seed=seed,
            options=Options(stammtisch=self.options.stammtisch),
            start_player=None if start is None else start - 1,
        )
        game_id = self._new_game_id()
        kinds = _kinds(seats)
        # the clock and absent hold for the whole game, a restart included
        identities = [s.identity for s in seats]
        entry = GameStart(game_id, self.name, record, kinds, self.options.to_dict(), identities)

        def started() -> None:
            self.seats = seats
            position = record.start()
            for s in self.seats:
                s.timeouts = 0
                s.stand_in = None
            self.game = Game(game_id=game_id, seed=seed, start=record, position=position)
            self._note("game_started", game=game_id, players=list(record.players))
            self._ack(session, msg.id)
            # the first turn's deadline is in the views published now (published at once, the next
            # publication finds nothing new: the same patch, at the same place)
            self._next_turn(publish=False)  # pragma: no mutate
            self._publish()  # views first, so that a line client's "game starts" can say whose turn it is
            self._broadcast(
                m.GameStarted(
                    room=self.name,
                    players=list(record.players),
                    start_player=record.players[position.to_move],
                    seed_hash=seed_hash(seed),
                    practice=self.options.seed is not None,
                )
            )

        return Step(entries=(entry,), then=started, otherwise=self._unavailable(session, msg.id))

    def _on_move(self, session: Member, msg: m.PlayMove) -> Step | None:
        game = self._require_game(msg.id)
        seat = self._held_seat(session)
        if seat is None:
            raise ProtocolError("not_seated", _("Spectators cannot play; /join a game first."), msg.id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn",
                _("It is {name}'s turn.", name=self.seats[game.position.to_move].name),
                msg.id,
            )
        try:
            result = play(game.position, msg.move)
        except IllegalMoveError as e:
            raise ProtocolError(e.code, refusal(e), msg.id) from None

        def reset() -> None:
            self.seats[seat].timeouts = 0

        # logged before anyone, the mover included, is told
        step = self._chain(self._apply(result, auto=False), lambda: self._ack(session, msg.id), before=reset)
        step.otherwise = self._unavailable(session, msg.id)
        return step

    def _on_bot_move(self, _: Member | None, msg: BotMove) -> Step | None:
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return None
        seat = self._seat_of(msg.name)
        if seat is None or game.position.to_move != seat or self.seats[seat].played_by_bot is None:
            return None
        step = self._apply(play(game.position, msg.move), auto=self.seats[seat].kind == "person")
        step.otherwise = self._retry_turn
        return step

    def _on_clock(self, _: Member | None, msg: ClockTimeout) -> Step | None:
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return None
        index = game.position.to_move
        seat = self.seats[index]
        if seat.played_by_bot is not None:
            return None
        move = self._greedy_move(game.position)

        def ran_out() -> None:
            seat.timeouts += 1
            self._broadcast(
                m.Notice(
                    room=self.name,
                    text=i18n._("{name}'s time ran out: the server plays {move}.", name=seat.name, move=move),
                )
            )
            if seat.timeouts >= 3:
                self._take_over(index, i18n._("ran out of time three times in a row"))

        def again() -> None:  # the log refused the move: the clock runs out again shortly
            self._out.append(Arm(TURN, self._now + RETRY, ClockTimeout(msg.move_number)))

        played = self._apply(play(game.position, move), auto=True, clock=True)
        step = self._chain(
            played,
            lambda: None,  # pragma: no mutate - nobody reads its result
            before=ran_out,
        )
        step.otherwise = again
        return step

    def _on_turn_retry(self, _: Member | None, msg: TurnRetry) -> None:
        if self.game is not None and self.game.outcome is None and self.game.moves == msg.move_number:
            self._next_turn()

    def _retry_turn(self) -> None:
        """An automatic move was refused by the log: the turn starts again shortly."""
        assert self.game is not None
        self._out.append(Arm(TURN, self._now + RETRY, TurnRetry(self.game.moves)))

    def _apply(self, result: PlayResult, *, auto: bool, clock: bool = False) -> Step:
        """Log ``result``, then make it the room's position and tell everyone."""
        game = self.game
        assert game is not None
        player = game.position.players[result.player].name
        number = game.moves + 1
        entries: tuple[MoveLogged | GameEnd, ...] = (MoveLogged(game.game_id, number, result.move),)
        if result.outcome is not None:
            entries += (GameEnd(game.game_id, result.outcome),)

        def applied() -> None:
            game.position = result.position
            game.moves = number
            game.last_move = LastMove(player, result.move, result.points)
            game.history.append(game.last_move)
            self._note("move", player=player, move=result.move, points=result.points, number=number)
            if result.outcome is None:
                # the next turn's deadline goes out with the move (as in _on_start)
                self._next_turn(publish=False)  # pragma: no mutate
            self._publish()
            events = [e for e in result.events if e["type"] != "game_over"]
            played = Outgoing.played(self.name, player, result.move, result.points, events, auto, clock)
            self._broadcast(played)
            for event in result.events:
                if event["type"] == "eliminated":
                    self._broadcast(
                        m.Eliminated(room=self.name, player=event["player"], place=event["place"])
                    )
            if result.outcome is not None:
                self._finish(result.outcome)

        return Step(entries=entries, then=applied)

    def rated(self, game_id: str, ratings: dict[str, m.RatingShift]) -> None:
        """The log rated the game ``game_id`` as it logged its end: ``game_over`` carries it."""
        self._rated = (game_id, ratings)

    def _finish(self, outcome: Outcome) -> None:
        game = self.game
        assert game is not None
        ratings = self._rated[1] if self._rated is not None and self._rated[0] == game.game_id else None
        self._rated = None
        game.outcome = outcome  # (a finished game's view shows no deadline)
        self._out += [Cancel(TURN), Cancel(WARN)]
        self._note(
            "game_over", game=game.game_id, reason=outcome.reason, final_scores=dict(outcome.final_scores)
        )
        self._publish()
        self._broadcast(
            m.GameOver(
                room=self.name,
                reason=outcome.reason,
                final_scores=dict(outcome.final_scores),
                penalties=dict(outcome.penalties),
                ranking=list(outcome.ranking),
                places=dict(outcome.places),
                seed=game.seed,
                ratings=ratings or None,
            )
        )
        given_up = [s for s in self.seats if s.strategy is None and s.session is None]
        for seat in given_up:
            self.seats.remove(seat)
        if given_up:
            self._publish()
        for name in sorted(self._windows):
            self._out.append(Cancel(window(name)))
        self._windows.clear()

    # (every call comes through RoomVotes._next_turn, which passes publish)
    def _next_turn(self, *, publish: bool = True) -> None:  # pragma: no mutate
        """Start the bot's thinking or the turn clock for whoever is to move, and publish a new
        deadline (unless the caller publishes next)."""
        self._out += [Cancel(TURN), Cancel(WARN)]
        if self.state != "playing":  # (a guard: every caller has a game running)
            return
        game = self.game
        assert game is not None
        before, game.deadline = game.deadline, None
        seat = self.seats[game.position.to_move]
        strategy = seat.played_by_bot
        was_suspended, self.suspended = self.suspended, strategy is not None and self._unattended()
        if was_suspended and not self.suspended:
            self._out.append(Cancel(IDLE))
        if self.suspended:
            # the bots wait until someone comes (Enter or Returned starts the turn again); after the
            # resume window with nobody here the room leaves memory, its game kept in the log
            if not was_suspended:
                self._out.append(Arm(IDLE, self._now + self.settings.resume_window, Unattended(game.moves)))
        elif strategy is not None:
            self._out.append(
                Think(
                    TURN,
                    seat.name,
                    strategy,
                    game.position,
                    game.moves,
                    f"{game.game_id}:{game.moves}",
                    self.settings.bot_budget,
                )
            )
        elif self.options.clock:
            clock = float(self.options.clock)
            self._out.append(Arm(TURN, self._now + clock, ClockTimeout(game.moves)))
            # the views carry the deadline, so that every client can count down to it
            game.deadline = self.settings.wall_time(self._now + clock)
            if clock > CLOCK_WARNING:
                self._out.append(Arm(WARN, self._now + clock - CLOCK_WARNING, ClockWarning(game.moves)))
        changed = game.deadline != before
        if publish and changed:  # pragma: no mutate - publishing nothing new sends nothing
            self._publish()

    def _on_unattended(self, _: Member | None, msg: Unattended) -> None:
        game = self.game
        if self.suspended and not self.members and game is not None and game.moves == msg.move_number:
            self.unloaded = True
            self._note("unloaded", game=game.game_id, moves=game.moves)

    def _unattended(self) -> bool:
        """Whether nobody is in the room to play or watch: then the server's bots (and the
        stand-ins of players away) wait until someone comes (a game of the server's bots alone
        would cost the server's time for nobody)."""
        return not self.members

    def _on_clock_warning(self, _: Member | None, msg: ClockWarning) -> None:
        """Tell the player to move that the clock is about to run out."""
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return
        seat = self.seats[game.position.to_move]
        if seat.played_by_bot is None and seat.session is not None:
            self._send(
                seat.session,
                m.Notice(
                    room=self.name,
                    text=i18n._(
                        "{seconds} seconds left to move, {name}.",
                        seconds=f"{CLOCK_WARNING:.0f}",
                        name=seat.name,
                    ),
                ),
            )

    @staticmethod
    def _greedy_move(position: Position) -> str:
        from bots.strategy import bot_view, get_strategy

        return get_strategy("greedy").choose(bot_view(position, position.to_move), random.Random(0))

    # --- players away ------------------------------------------------------------------------------

    def _hold(self, name: str) -> None:
        """Keep ``name``'s seat for the resume window; then a bot plays it (or, with the option
        ``absent`` ``drop``, the player leaves the game)."""
        self._windows.add(name)
        self._out.append(Arm(window(name), self._now + self.settings.resume_window, WindowPassed(name)))

    def _on_window_passed(self, _: Member | None, msg: WindowPassed) -> Step | None:
        self._windows.discard(msg.name)
        seat = self._seat_of(msg.name)
        if seat is None or self.seats[seat].session is not None or self.state != "playing":
            return None
        if self.options.absent == "drop":
            step = self._drop(seat)
            if step is None:
                return None

            def again() -> None:
                # nobody may be left to play the seat: try again shortly, as the log comes back
                self._windows.add(msg.name)
                self._out.append(Arm(window(msg.name), self._now + RETRY, WindowPassed(msg.name)))

            step.otherwise = again
            return step
        self._take_over(seat, i18n._("did not come back in time"))
        self._publish()
        return None

    def _drop(self, seat: int) -> Step | None:
        """The player of ``seat`` leaves the game (the room option ``absent`` ``drop``): logged
        like a move, before anyone is told; the seat stays empty from then on."""
        game = self.game
        assert game is not None
        if seat in game.position.eliminated:  # a player already out has no turns to drop
            return None
        return self._apply(leave(game.position, seat), auto=True)

    def _take_over(self, seat: int, why: str) -> None:
        """A bot plays a person's seat until they return."""
        s = self.seats[seat]
        if s.stand_in is None:
            s.stand_in = "greedy"
            self._broadcast(m.Presence(room=self.name, name=s.name, event="replaced_by_bot", detail=why))
            if self.game is not None and self.game.position.to_move == seat:  # else a clock runs on
                self._next_turn()

    # --- taking a game up again --------------------------------------------------------------------

    def restore(self, stored: StoredGame, now: float) -> Step:
        """Take up a game from the log as its players left it: server-side bots play on, the
        others' seats wait for them for the resume window."""
        self._now = now
        self._out = []
        record = stored.record
        replayed = replay(record)  # a player who left is in the record as "leave NAME"
        out = {record.players[i] for i in replayed.position.eliminated}
        # the options the game started with (a game logged before they were kept gets the
        # defaults); the engine's option comes from the record itself
        self.options = RoomOptions.from_dict(stored.room_options).with_value(
            "stammtisch", record.options.stammtisch
        )
        self.seats = []
        voted_out = frozenset(stored.voted_out)  # they watch: a bot plays the seat, or it has no turns
        self._voted_out = self._voted_out | {(stored.game_id, name) for name in voted_out}
        # the player behind each seat, so that the game stays rated (no hints) as it was
        who = stored.identities or (None,) * len(record.players)
        # the log writes a kind and an identity for each player: strict only says so
        for name, kind, identity in zip(record.players, stored.kinds, who, strict=True):  # pragma: no mutate
            if kind.startswith("bot:"):
                self.seats.append(Seat(name=name, kind="bot", strategy=kind.removeprefix("bot:")))
                self.bot_names.add(name)
            else:
                seat = Seat(name=name, kind="bot" if kind == "bot" else "person", identity=identity)
                self.seats.append(seat)
                if name in out:  # a player who is out of the game has no turns to wait for
                    continue
                if name in voted_out:
                    seat.stand_in = "greedy"
                else:
                    self._hold(name)
        last = replayed.results[-1] if replayed.results else None
        history = [LastMove(record.players[r.player], r.move, r.points) for r in replayed.results]
        game = self.game = Game(
            game_id=stored.game_id,
            seed=record.seed,
            start=record,
            position=replayed.position,
            last_move=None if last is None else LastMove(record.players[last.player], last.move, last.points),
            moves=len(record.moves),
            history=history,
        )
        self._note("restored", game=stored.game_id, moves=len(record.moves))
        outcome = replayed.outcome
        if outcome is None:
            self._next_turn()
            return self._done()
        step = self._done()
        step.entries = (GameEnd(game.game_id, outcome),)
        step.then = step.otherwise = lambda: self._finish(outcome)
        return step

    # --- questions ---------------------------------------------------------------------------------

    def _on_legal_moves(self, session: Member, msg: m.GetLegalMoves) -> None:
        position = self._my_turn(session, msg.id)
        self._send(session, m.LegalMoves(id=msg.id, moves=legal_move_texts(position)))

    def _on_hint(self, session: Member, msg: m.GetHint) -> None:
        self._require_game(msg.id)
        self._require_seat(session, msg.id)
        if self._rated_game():
            raise ProtocolError(
                "no_hints", _("No hints in a rated game: hints are for practice and casual games."), msg.id
            )
        position = self._my_turn(session, msg.id)
        move = self._greedy_move(position)
        self._send(session, m.Hint(id=msg.id, move=move, points=play(position, move).points))

    def _rated_game(self) -> bool:
        """Whether the game counts for ratings as its players sit now (the log rates it so at its
        end): two seats or more held by registered people, and a seed the room did not choose."""
        seats = self.seats
        return is_rated(_kinds(seats), [s.identity for s in seats], self.options.to_dict())

    def _on_show(self, session: Member, msg: ShowRequest) -> None:
        from protocol import text

        view = self._room_views().view(session.name)
        render = {"board": text.render_board, "hand": text.render_hand, "score": text.render_scores}.get(
            msg.what
        )
        if render is None:
            raise ProtocolError("bad_arguments", _("/{what} is not shown by rooms.", what=msg.what), msg.id)
        ascii_only = session.ascii_only
        body = i18n.lazy(lambda lang: render(view, ascii_only=ascii_only, lang=lang))
        self._send(session, m.Text(id=msg.id, kind=msg.what, text=body))


def _kinds(seats: list[Seat]) -> list[str]:
    """Each seat's kind as the log keeps it: ``person``, ``bot`` (a client's), ``bot:STRATEGY``."""
    return [s.kind if s.strategy is None else f"bot:{s.strategy}" for s in seats]
