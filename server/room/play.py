"""The game at a room's table: its options, starting it, moves from players, bots and the clock,
players away, the end, and what each member sees of it
(:class:`~server.room.sight.Sight`, a part it owns).

A part of the room core (:mod:`server.room.core`). It plays on the room's seats
(:class:`~server.room.seats.Seats`), tells the members (:class:`~server.room.members.Members`)
and runs the turns on the room's timers (:class:`~server.room.clock.Clock`); it is given all
three. A change the log must hold comes back as a :class:`~server.room.effects.Step`: its entries
are written first, and only ``then`` does the game change.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine import GameRecord, IllegalMoveError, Options, Outcome, Position, leave, parse_leave, play
from engine.game import seed_hash
from engine.rules import PlayResult
from protocol import i18n
from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.options import RoomOptions
from protocol.outgoing import Outgoing
from protocol.refusals import refusal
from protocol.view import LastMove, RoomViews
from server.log.contract import CLOSED
from server.room.clock import Clock
from server.room.effects import Answers, Entry, GameEnd, GameStart, MoveLogged, Step
from server.room.items import BotMove, ClockTimeout, ClockWarning, TurnRetry, WindowPassed
from server.room.members import Members
from server.room.seats import Seats
from server.room.sight import Sight, rated
from server.room.start import check_start
from server.room.state import DRAWN, LISTED, Game, State
from server.room.world import Member, RoomSettings


def greedy_move(position: Position) -> str:
    """The greedy bot's move for the player to move (the clock's move, and the hint)."""
    from bots.strategy import bot_view, get_strategy

    return get_strategy("greedy").choose(bot_view(position, position.to_move), random.Random(0))


def closed_outcome(position: Position) -> Outcome:
    """The outcome of a game ended before its time (its room closed by the staff, or left to the
    server's bots alone): the scores as they stand, no hand penalties, ranked
    by score (those out of the game after the others, the last one out last)."""
    players = position.players
    scores = {p.name: p.score for p in players}
    playing = sorted(
        (i for i in range(len(players)) if i not in position.eliminated), key=lambda i: -players[i].score
    )
    order = [*playing, *reversed(position.eliminated)]
    places: dict[str, int] = {}
    for rank, i in enumerate(order):
        before = players[order[rank - 1]]
        tie = rank > 0 and i in playing and order[rank - 1] in playing and before.score == players[i].score
        places[players[i].name] = places[before.name] if tie else rank + 1
    ranking = tuple(players[i].name for i in order)
    return Outcome(CLOSED, scores, dict.fromkeys(scores, 0), ranking, places)


class Play:
    """The game of a room (``game``: ``None`` before the first start) and the options it is
    played with."""

    def __init__(
        self,
        name: str,
        settings: RoomSettings,
        members: Members,
        seats: Seats,
        clock: Clock,
        *,
        new_game_id: Callable[[], str],
        new_seed: Callable[[], int],
        bot_games: Callable[[str, str | None], int],
    ) -> None:
        self.name = name
        self.settings = settings
        self.members = members
        self.seats = seats
        self.clock = clock
        self.options = RoomOptions()
        self.game: Game | None = None
        self._new_game_id = new_game_id
        self._new_seed = new_seed
        #: how many games ``name`` has running against the server's bots alone (on this server)
        self._bot_games = bot_games
        self.sight = Sight(name, members, seats)
        #: called when a game ends (set by the room's core: a vote of that game ends with it)
        self.on_finish: Callable[[], None] = _nothing
        #: the players whose seat waited for them (casefolded) when the game ended: back within
        #: the resume window after its end (``away_until``, the loop's clock), they come to its
        #: result (the room stays that long for them)
        self.away_at_end: set[str] = set()
        self.away_until = float("-inf")
        #: called after each move of a game that goes on (a vote to remove the player who just
        #: moved loses its point)
        self.on_moved: Callable[[], None] = _nothing
        #: the players of a table the server made who have not taken their seat yet: the game's
        #: start is told them when they do
        self._arriving: set[str] = set()
        #: the seed of the game was drawn by the server for a table it made (a casual table of
        #: quick pairing), not chosen by the room's players
        self.seed_drawn = False
        #: who chose the room's seed (``/option seed N``): it deals a game only while they sit at
        #: the table, since whoever knows the seed knows every hand
        self.seed_by: str | None = None

    @property
    def state(self) -> State:
        if self.game is None:
            return "waiting"
        return "over" if self.game.outcome is not None else "playing"

    # --- what members see --------------------------------------------------------------------

    def public_options(self) -> dict[str, Any]:
        """The options as members see them (:meth:`Sight.public_options`)."""
        return self.sight.public_options(self.options)

    def views(self) -> RoomViews:
        """The room as each member sees it now."""
        return self.sight.views(self.state, self.options, self.game)

    def rated(self) -> bool:
        """Whether the game counts for ratings (:func:`~server.room.sight.rated`)."""
        return rated(self.game, self.seats, self.options)

    def publish(self) -> None:
        """Send every member what changed in its own view."""
        self.members.publish(self.views())

    def publish_to(self, member: Member, answering: m.ClientId = None) -> None:
        """Send ``member`` what changed in its view (a snapshot if it is new to the room, carrying
        ``answering``: the id of the ``resync`` it answers)."""
        self.members.publish_to(member, self.views(), answering)

    # --- checks ------------------------------------------------------------------------------

    def require_game(self, msg_id: m.ClientId) -> Game:
        """The game running; ``no_game`` or ``game_over`` without one."""
        if self.game is None:
            raise ProtocolError("no_game", _("No game is running here; /join and /start one."), msg_id)
        if self.game.outcome is not None:
            raise ProtocolError("game_over", _("The game has ended; /start plays again."), msg_id)
        return self.game

    # --- the start ---------------------------------------------------------------------------

    def on_start(self, member: Member, msg: m.Start) -> Step:
        """``start``: the host starts a game with the seats as they are, logged first."""
        check_start(
            member,
            msg.id,
            state=self.state,
            seats=self.seats,
            options=self.options,
            settings=self.settings,
            bot_games=self._bot_games,
        )
        return self.begin(member, msg.id)

    def begin(
        self,
        member: Member | None,
        msg_id: m.ClientId,
        *,
        done: Callable[[str], None] | None = None,
        failed: Callable[[], None] | None = None,
        listed: bool = False,
    ) -> Step:
        """Start a game with the seats as they are (checked by the caller), logged first;
        ``member`` asked for it (``None``: the server, for a table it made), ``done`` follows the
        start with the game's id, ``failed`` a start the log refused. A seat of a person with no
        connection yet waits for them as for one who lost it (``hold``)."""
        options = self.options
        seats = self.seats
        start = options.start
        seed = options.seed
        if seed is None:
            seed = self._new_seed()
        order = list(seats)
        if options.drawseat:  # drawn from the seed, so that the same seed seats the same way
            random.Random(f"seats:{seed}").shuffle(order)
        record = GameRecord(
            players=tuple(s.name for s in order),
            seed=seed,
            options=Options(stammtisch=options.stammtisch),
            start_player=None if start is None else start - 1,
        )
        game_id = self._new_game_id()
        kinds = [s.logged_kind for s in order]
        # the clock and absent hold for the whole game, a restart included
        for s in order:  # a player connected here as they are now: registered, or not, since they sat
            if s.session is not None and s.strategy is None and s.session.identity is not None:
                s.identity = s.session.identity
        identities = [s.identity for s in order]
        drawn = member is None and options.seed is not None
        room_options = options.to_dict()
        # beside the options, in the log only: a restart keeps the game public, or the seed the
        # server's own
        if listed:
            room_options[LISTED] = True
        if drawn:
            room_options[DRAWN] = True
        entry = GameStart(game_id, self.name, record, kinds, room_options, identities)

        def started(answers: Answers) -> None:
            self.away_at_end = set()
            self.seats.replace(order)
            position = record.start()
            for s in order:
                s.timeouts = 0
                s.stand_in = None
            self.game = Game(
                game_id=game_id,
                seed=seed,
                start=record,
                position=position,
                listed=listed,
                practice=options.seed is not None,
            )
            self.seed_drawn = drawn
            self.members.note("game_started", game=game_id, players=list(record.players))
            self._arriving = set()
            for s in order:
                if s.strategy is None and s.session is None:  # a table's player on their way
                    self.hold(s.name)
                    self._arriving.add(s.name.casefold())
            if member is not None:
                self.members.ack(member, msg_id)
            # the first turn's deadline is in the views published now (published at once, the next
            # publication finds nothing new: the same patch, at the same place)
            self.next_turn(publish=False)  # pragma: no mutate
            self.publish()  # views first, so that a line client's "game starts" can say whose turn it is
            self.members.broadcast(self._started(game_id, record, seed))
            if done is not None:
                done(game_id)

        otherwise = failed
        if member is not None:
            otherwise = self.members.unavailable(member, msg_id)
        return Step(entries=(entry,), then=started, otherwise=otherwise)

    def greet(self, member: Member) -> None:
        """``member`` took their seat at a table the server made: they hear the game's start."""
        name = member.name
        game = self.game
        if name is None or name.casefold() not in self._arriving or game is None:
            return
        self._arriving.discard(name.casefold())
        self.members.send(member, self._started(game.game_id, game.start, game.seed))

    def seat_given_up(self, name: str) -> None:
        """``name`` gave up their seat before a game: a seed they chose goes with them, since
        whoever knows it knows every hand (the room reads so before anyone starts)."""
        if (
            self.options.seed is not None
            and self.seed_by is not None
            and self.seed_by.casefold() == name.casefold()
        ):
            self.forget_seed(_("The seed {name} chose is forgotten: {name} left the table.", name=name))

    def forget_seed(self, why: str | None) -> None:
        """The room's seed goes back to random, the members told ``why`` (if anything)."""
        self.options = self.options.with_value("seed", None)
        self.seed_by = None
        if why is not None:
            self.members.broadcast(m.Notice(room=self.name, text=why))

    def _started(self, game_id: str, record: GameRecord, seed: int) -> m.GameStarted:
        """The message that game ``game_id`` of ``record`` (dealt from ``seed``) started."""
        return m.GameStarted(
            room=self.name,
            game=game_id,
            players=list(record.players),
            start_player=record.players[record.start().to_move],
            # a seed a player typed has no fingerprint, which would give it away to anyone who tries
            # the numbers in turn; one the server drew (a casual table's) has, as a random one has
            seed_hash=None if self.options.seed is not None and not self.seed_drawn else seed_hash(seed),
            practice=self.options.seed is not None,
            seed_drawn=self.seed_drawn,
        )

    # --- moves -------------------------------------------------------------------------------

    def entries(self, result: PlayResult, auto: str | None = None) -> tuple[Entry, ...]:
        """What the log must hold before ``result`` (a move of the game running) is made: the
        move (``auto``: ``"clock"`` or ``"bot"``, played by the server for its player), and the
        outcome if it ends the game."""
        game = self.game
        assert game is not None
        logged = MoveLogged(game.game_id, game.moves + 1, result.move, auto)
        if result.outcome is None:
            return (logged,)
        return (logged, GameEnd(game.game_id, result.outcome))

    def moved(self, result: PlayResult, answers: Answers, *, auto: bool, clock: bool = False) -> None:
        """``result`` is in the log (``answers`` is what the log said): make it the position and
        tell everyone; ``auto``: the server played it for the player (``clock``: as the clock ran
        out)."""
        game = self.game
        assert game is not None
        player = game.position.players[result.player].name
        number = game.moves + 1
        game.position = result.position
        game.moves = number
        # as the log marks it: a player's leave is no move played for them
        mark = "clock" if clock else "bot" if auto and parse_leave(result.move) is None else None
        game.last_move = LastMove(player, result.move, result.points, mark)
        game.history.append(game.last_move)
        members = self.members
        members.note("move", player=player, move=result.move, points=result.points, number=number)
        if result.outcome is None:
            # the next turn's deadline goes out with the move (as at the start)
            self.next_turn(publish=False)  # pragma: no mutate
        self.publish()
        events = [e for e in result.events if e["type"] != "game_over"]
        members.broadcast(Outgoing.played(self.name, player, result.move, result.points, events, auto, clock))
        for event in result.events:
            if event["type"] == "eliminated":
                members.broadcast(m.Eliminated(room=self.name, player=event["player"], place=event["place"]))
        if result.outcome is not None:
            self.finish(result.outcome, answers.ratings)
        else:
            self.on_moved()

    def on_move(self, member: Member, msg: m.PlayMove) -> Step:
        """``move``: the player to move plays, logged before anyone is told."""
        game = self.require_game(msg.id)
        seat = self.seats.held(member)
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
        mover = self.seats[seat]

        def played(answers: Answers) -> None:  # logged before anyone, the mover included, is told
            mover.timeouts = 0
            self.moved(result, answers, auto=False)
            self.members.ack(member, msg.id)

        return Step(
            entries=self.entries(result), then=played, otherwise=self.members.unavailable(member, msg.id)
        )

    def on_bot_move(self, _: Member | None, msg: BotMove) -> Step | None:
        """A bot (or a stand-in) chose its move; a move for a turn gone by is dropped."""
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return None
        seat = self.seats.index_of(msg.name)
        if seat is None or game.position.to_move != seat or self.seats[seat].played_by_bot is None:
            return None
        result = play(game.position, msg.move)
        # a stand-in's move (for a person, or a bot client away) is played for its player; the
        # server's own bot plays its own
        auto = self.seats[seat].strategy is None

        def played(answers: Answers) -> None:
            self.moved(result, answers, auto=auto)

        entries = self.entries(result, "bot" if auto else None)
        return Step(entries=entries, then=played, otherwise=self._retry_turn)

    def on_clock(self, _: Member | None, msg: ClockTimeout) -> Step | None:
        """The turn clock ran out: the server plays the greedy move for the player."""
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return None
        index = game.position.to_move
        seat = self.seats[index]
        if seat.played_by_bot is not None:
            return None
        move = greedy_move(game.position)
        result = play(game.position, move)

        def ran_out(answers: Answers) -> None:
            seat.timeouts += 1
            text = i18n._("{name}'s time ran out: the server plays {move}.", name=seat.name, move=move)
            self.members.broadcast(m.Notice(room=self.name, text=text))
            if seat.timeouts >= 3:
                self.take_over(index, m.RAN_OUT_THRICE)
            self.moved(result, answers, auto=True, clock=True)

        def again() -> None:  # the log refused the move: the clock runs out again shortly
            self.clock.retry(ClockTimeout(msg.move_number), self.members.now, self.members.out)

        return Step(entries=self.entries(result, "clock"), then=ran_out, otherwise=again)

    def on_turn_retry(self, _: Member | None, msg: TurnRetry) -> None:
        """An automatic move the log refused: the turn starts again."""
        if self.game is not None and self.game.outcome is None and self.game.moves == msg.move_number:
            self.next_turn()

    def _retry_turn(self) -> None:
        """An automatic move was refused by the log: the turn starts again shortly."""
        assert self.game is not None
        self.clock.retry(TurnRetry(self.game.moves), self.members.now, self.members.out)

    # --- turns -------------------------------------------------------------------------------

    def next_turn(self, *, publish: bool = True) -> None:
        """Start the bot's thinking or the turn clock for whoever is to move, and publish a new
        deadline (unless the caller publishes next)."""
        game, clock, members = self.game, self.clock, self.members
        if game is None or game.outcome is not None:  # (a guard: every caller has a game running)
            clock.stop_turn(members.out)
            if game is not None:
                clock.turn_seen(game, members.now)
            return
        seconds = self.options.clock
        changed = clock.start_turn(
            game,
            self.seats[game.position.to_move],
            # nobody is in the room to play or watch: the server's bots (and the stand-ins of
            # players away) wait until someone comes (a game of the server's bots alone would
            # cost the server's time for nobody)
            unattended=not members,
            clock=float(seconds) if seconds else None,
            now=members.now,
            out=members.out,
            empty_since=members.empty_since,
        )
        if publish and changed:  # pragma: no mutate - publishing nothing new sends nothing
            self.publish()

    def on_clock_warning(self, _: Member | None, msg: ClockWarning) -> None:
        """Tell the player to move that the clock is about to run out."""
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return
        seat = self.seats[game.position.to_move]
        warned = self.clock.warned == (game.game_id, game.moves)  # (one armed again at a return)
        if seat.played_by_bot is None and seat.session is not None and not warned:
            text = i18n._n(
                "{n} second left to move, {name}.",
                "{n} seconds left to move, {name}.",
                msg.seconds,
                name=seat.name,
            )
            self.members.send(seat.session, m.Notice(room=self.name, text=text))
            self.clock.warned = (game.game_id, game.moves)

    # --- the end -----------------------------------------------------------------------------

    def closed(self, after: Callable[[], None] | None = None) -> Step | None:
        """End the running game now, unrated (its outcome's reason is ``closed``, which the log
        does not rate), then ``after`` (also should the log refuse the end); ``None`` when none
        runs."""
        game = self.game
        if game is None or game.outcome is not None:
            return None
        outcome = closed_outcome(game.position)

        def finished(answers: Answers) -> None:
            self.finish(outcome, None)
            if after is not None:
                after()

        end = (GameEnd(game.game_id, outcome),)
        return Step(effects=self.members.out, entries=end, then=finished, otherwise=after)

    def finish(self, outcome: Outcome, ratings: dict[str, m.RatingShift] | None) -> None:
        """The game ended with ``outcome`` (its end is in the log, which rated it: ``ratings``)."""
        game = self.game
        assert game is not None
        members = self.members
        game.outcome = outcome  # (a finished game's view shows no deadline)
        if ratings:  # (the views show them, so that a reload after the end reads them)
            game.ratings = {name: shift.model_dump() for name, shift in ratings.items()}
        self.clock.stop_turn(members.out)
        members.note(
            "game_over", game=game.game_id, reason=outcome.reason, final_scores=dict(outcome.final_scores)
        )
        # the seed is revealed now: it deals no other game unless someone chooses it again
        chosen = self.options.seed is not None and not self.seed_drawn
        if self.options.seed is not None:
            self.forget_seed(None)
        self.publish()
        members.broadcast(
            m.GameOver(
                room=self.name,
                game=game.game_id,
                reason=outcome.reason,
                final_scores=dict(outcome.final_scores),
                penalties=dict(outcome.penalties),
                ranking=list(outcome.ranking),
                places=dict(outcome.places),
                seed=game.seed,
                ratings=ratings or None,
            )
        )
        if chosen:
            text = _("The seed is random again for the next game.")
            members.broadcast(m.Notice(room=self.name, text=text))
        if self.seats.give_up_empty():
            self.publish()
        # (a game closed, by the staff or for its age, greets nobody: its room goes as it went)
        windows = () if outcome.reason == "closed" else self.clock.windows
        self.away_at_end = {name.casefold() for name in windows}
        self.away_until = members.now + self.clock.settings.resume_window
        self.clock.release_all(members.out)
        self.on_finish()

    # --- players away ------------------------------------------------------------------------

    def hold(self, name: str) -> None:
        """Keep ``name``'s seat for the resume window; then a bot plays it (or, with the option
        ``absent`` ``drop``, the player leaves the game)."""
        self.clock.hold(name, self.members.now, self.members.out)

    def drop(self, seat: int) -> PlayResult | None:
        """The move by which the player of ``seat`` leaves the game (the room option ``absent``
        ``drop``), to be logged like any other; none for a player out of the game already."""
        game = self.game
        assert game is not None
        if seat in game.position.eliminated:  # a player already out has no turns to drop
            return None
        return leave(game.position, seat)

    def take_over(self, seat: int, why: str) -> None:
        """A bot plays a person's seat until they return."""
        s = self.seats[seat]
        if s.stand_in is None:
            s.stand_in = "greedy"
            self.members.broadcast(
                m.Presence(room=self.name, name=s.name, event="replaced_by_bot", detail=why)
            )
            if self.game is not None and self.game.position.to_move == seat:  # else a clock runs on
                self.next_turn()

    def on_window_passed(self, _: Member | None, msg: WindowPassed) -> Step | None:
        """A player's resume window passed: a bot plays the seat, or with ``absent`` ``drop``
        the player leaves the game."""
        name = msg.name
        self.clock.passed(name)
        seat = self.seats.index_of(name)
        if seat is None or self.seats[seat].session is not None or self.state != "playing":
            return None
        if self.options.absent == "drop":
            result = self.drop(seat)
            if result is None:
                return None

            def dropped(answers: Answers) -> None:
                self.moved(result, answers, auto=True)

            def again() -> None:
                # nobody may be left to play the seat: try again shortly, as the log comes back
                self.clock.hold_again(name, self.members.now, self.members.out)

            return Step(entries=self.entries(result), then=dropped, otherwise=again)
        self.take_over(seat, i18n._("did not come back in time"))
        self.publish()
        return None


def _nothing() -> None:
    """What a game's end does beyond the game, until the room's core says."""


__all__ = ["Play", "greedy_move"]
