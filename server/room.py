"""Room actors: one asyncio task and one inbox per room; only it touches the room's game.

The actor takes a command from its inbox, calls the engine, logs the accepted move to the store,
then sends each member its own patch (or a snapshot on entry and on resync) and the events.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import structlog

from engine import GameRecord, IllegalMoveError, Options, Outcome, Position, leave, play, replay
from engine.game import seed_hash
from engine.rules import PlayResult, legal_move_texts
from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.diff import diff
from protocol.errors import ProtocolError
from protocol.view import LastMove, RoomViews, SeatInfo
from server.session import Outgoing, Session
from server.store import LeaseLost, StoredGame, StoreUnavailable

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("cafe.room")

MAX_SEATS = 4
MIN_PLAYERS = 2
#: seconds before a drop that the log refused is tried again
DROP_RETRY = 2.0
#: a new room's options; a game's room options are logged with it and come back with it on restore
DEFAULT_OPTIONS: dict[str, Any] = {"seed": None, "stammtisch": False, "clock": None, "absent": "bot"}
State = Literal["waiting", "playing", "over"]


@dataclass
class Seat:
    """A seat: a person (with a session while connected) or a bot (with a strategy)."""

    name: str
    kind: Literal["person", "bot"]
    session: Session | None = None
    strategy: str | None = None
    #: a person's seat played by a bot while they are away (after the window or clock timeouts)
    stand_in: str | None = None
    timeouts: int = 0

    @property
    def connected(self) -> bool:
        return self.strategy is not None or self.session is not None

    @property
    def played_by_bot(self) -> str | None:
        """The strategy that plays this seat now: a server-side bot's, or a stand-in's."""
        return self.strategy if self.strategy is not None else self.stand_in


@dataclass
class Game:
    """The game in progress (or just finished) in a room."""

    game_id: str
    seed: int
    record: GameRecord
    position: Position
    last_move: LastMove | None = None
    outcome: Outcome | None = None
    moves: int = 0


# --- inbox items that are not client messages ---------------------------------------------


@dataclass(frozen=True)
class Enter:
    session: Session
    join: bool = False
    id: m.ClientId = None


@dataclass(frozen=True)
class Leave:
    session: Session
    disconnected: bool = False
    id: m.ClientId = None


@dataclass(frozen=True)
class Returned:
    """A player reclaimed their seat with a resume token."""

    session: Session


@dataclass(frozen=True)
class WindowPassed:
    """The resume window of a lost player passed: a bot takes the seat, or with the room option
    ``absent`` ``drop`` the player leaves the game."""

    name: str


@dataclass(frozen=True)
class BotMove:
    name: str
    move: str
    move_number: int


@dataclass(frozen=True)
class ClockTimeout:
    move_number: int


@dataclass(frozen=True)
class Stop:
    pass


@dataclass
class _Item:
    session: Session | None
    message: Any
    received: float = field(default_factory=time.perf_counter)


class Room:
    """A room: its members (spectators and players), four seats, options and the game."""

    def __init__(self, name: str, lobby: Lobby) -> None:
        self.name = name
        self.lobby = lobby
        self.members: dict[Session, None] = {}
        self.seats: list[Seat] = []
        self.options: dict[str, Any] = dict(DEFAULT_OPTIONS)
        self.game: Game | None = None
        self.inbox: asyncio.Queue[_Item] = asyncio.Queue()
        #: what each member was last sent: the room's views then, and the member's name then
        self._views: dict[Session, tuple[RoomViews, str | None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._clock: asyncio.TimerHandle | None = None
        self._thinking: asyncio.Task[None] | None = None
        #: resume windows of players whose connection was lost in a running game
        self._windows: dict[str, asyncio.TimerHandle] = {}
        self._last_views: RoomViews | None = None
        self.log = log.bind(room=name)  # every line of this room's names it
        self._handlers = self._handler_table()

    # --- outside the actor: only queueing ----------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room:{self.name}")

    def post(self, session: Session | None, message: Any) -> None:
        self.inbox.put_nowait(_Item(session, message))

    def abandon(self) -> None:
        """Stop at once, without touching the game (another node owns the room now)."""
        self._cancel_timers()
        for window in self._windows.values():
            window.cancel()
        if self._task is not None:
            self._task.cancel()

    async def stop(self, timeout: float = 5.0) -> None:
        """Finish what is queued, then end the actor."""
        self.post(None, Stop())
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout)
            except TimeoutError:
                self._task.cancel()

    @property
    def state(self) -> State:
        if self.game is None:
            return "waiting"
        return "over" if self.game.outcome is not None else "playing"

    @property
    def empty(self) -> bool:
        return not self.members and self.state != "playing"

    def summary(self) -> m.RoomSummary:
        return m.RoomSummary(
            name=self.name,
            state=self.state,
            seats=[m.SeatSummary(name=s.name, kind=s.kind, connected=s.connected) for s in self.seats],
            spectators=sum(1 for s in self.members if self._seat_of(s.name) is None),
            options=self._public_options(),
        )

    # --- the actor ---------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            message = item.message
            if isinstance(message, Stop):
                self._cancel_timers()
                for window in self._windows.values():
                    window.cancel()
                return
            try:
                await self._handle(item)
            except StoreUnavailable:
                self.log.warning("store_unavailable")
                if item.session is not None:
                    self._error(
                        item.session,
                        "unavailable",
                        "The game log is unavailable just now; nothing changed, try again.",
                        getattr(message, "id", None),
                    )
            except LeaseLost:
                self.log.warning("lease_lost")
                if self.lobby.cluster is not None:
                    self.lobby.cluster._lost(self.name.casefold())
                return
            except ProtocolError as e:
                if item.session is not None:
                    self._error(item.session, e.code, e.message, e.id)
            except Exception:
                player = item.session.name if item.session else None
                self.log.exception("room_failed", message=type(message).__name__, player=player)
                if item.session is not None:
                    self._error(
                        item.session,
                        "internal",
                        "The server failed to handle that.",
                        getattr(message, "id", None),
                    )
            if self.lobby.cluster is not None:
                self.lobby.cluster.room_changed(self)
            if self.empty:
                self.lobby.discard_room(self)
                self._cancel_timers()
                return
            if not self.inbox.empty():
                # let the members' writes go out between two commands, so a burst does not fill
                # outboxes (an empty inbox yields to them anyway)
                await asyncio.sleep(0)

    async def _handle(self, item: _Item) -> None:
        session, msg = item.session, item.message
        handler = self._handlers.get(type(msg))
        if handler is None:
            raise ProtocolError("unknown_type", f"{type(msg).__name__} is not handled in rooms.")
        done = handler(session, msg)
        if done is not None:  # the handlers that write to the game log are coroutines
            await done
        if isinstance(msg, m.PlayMove | BotMove | ClockTimeout):
            self.lobby.metrics.move_latency.observe(time.perf_counter() - item.received)

    def _handler_table(self) -> dict[type, Callable[[Any, Any], Awaitable[None] | None]]:
        return {
            Enter: self._on_enter,
            Leave: self._on_leave,
            Returned: self._on_returned,
            WindowPassed: self._on_window_passed,
            m.Resync: self._on_resync,
            m.Say: self._on_say,
            m.Join: self._on_join,
            m.LeaveGame: self._on_leave_game,
            m.Start: self._on_start,
            m.SetOption: self._on_option,
            m.PlayMove: self._on_move,
            m.GetLegalMoves: self._on_legal_moves,
            m.GetHint: self._on_hint,
            m.AddBot: self._on_add_bot,
            m.RemoveBot: self._on_remove_bot,
            ShowRequest: self._on_show,
            BotMove: self._on_bot_move,
            ClockTimeout: self._on_clock,
        }

    # --- membership ----------------------------------------------------------------------------

    def _on_enter(self, session: Session, msg: Enter) -> None:
        if session not in self.members:
            self.members[session] = None
            self._broadcast(
                m.Presence(room=self.name, name=self._name(session), event="entered"), exclude=session
            )
        self._views.pop(session, None)
        self._publish_to(session)
        if msg.join:
            self._on_join(session, m.Join(id=msg.id))
            return
        self._ack(session, msg.id)
        self._publish()

    async def _on_leave(self, session: Session, msg: Leave) -> None:
        if session not in self.members:
            return
        del self.members[session]
        self._views.pop(session, None)
        name = self._name(session)
        seat = self._seat_of(name)
        if seat is not None and self.seats[seat].session is session:
            if self.state == "playing":
                self.seats[seat].session = None
                if msg.disconnected:
                    self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                    self.hold(name)
                elif self.options["absent"] == "drop":
                    try:
                        await self._drop(seat)
                    except StoreUnavailable:  # the seat waits; the window passing tries again
                        self.log.warning("store_unavailable")
                        self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                        self.hold(name)
                else:
                    self._broadcast(m.Presence(room=self.name, name=name, event="away"))
                    self._take_over(seat, "left the game")
            else:
                del self.seats[seat]
                self._broadcast(m.Presence(room=self.name, name=name, event="unseated"))
        self._broadcast(m.Presence(room=self.name, name=name, event="left"))
        if not msg.disconnected:
            self._ack(session, msg.id)
        self._publish()

    def _on_returned(self, session: Session, msg: Returned) -> None:
        self.members[session] = None
        self._views.pop(session, None)
        name = self._name(session)
        seat = self._seat_of(name)
        if seat is not None:
            self.seats[seat].session = session
            self.seats[seat].stand_in = None
            self.seats[seat].timeouts = 0
        window = self._windows.pop(name, None)
        if window is not None:
            window.cancel()
        self._broadcast(m.Presence(room=self.name, name=name, event="back"))
        self._publish()
        self._next_turn()

    def hold(self, name: str) -> None:
        """Keep ``name``'s seat for the resume window; then a bot plays it (or, with the option
        ``absent`` ``drop``, the player leaves the game)."""
        loop = asyncio.get_running_loop()
        self._windows[name] = loop.call_later(
            self.lobby.config.resume_window, self.post, None, WindowPassed(name)
        )

    async def _on_window_passed(self, _: Session | None, msg: WindowPassed) -> None:
        self._windows.pop(msg.name, None)
        seat = self._seat_of(msg.name)
        if seat is None or self.seats[seat].session is not None or self.state != "playing":
            return
        if self.options["absent"] == "drop":
            try:
                await self._drop(seat)
            except StoreUnavailable:
                # nobody may be left to play the seat: try again shortly, as the log comes back
                self.log.warning("store_unavailable")
                self._windows[msg.name] = asyncio.get_running_loop().call_later(
                    DROP_RETRY, self.post, None, WindowPassed(msg.name)
                )
            return
        self._take_over(seat, "did not come back in time")
        self._publish()

    async def _drop(self, seat: int) -> None:
        """The player of ``seat`` leaves the game (the room option ``absent`` ``drop``)."""
        game = self.game
        assert game is not None
        if seat not in game.position.eliminated:  # a player already out has no turns to drop
            # logged like a move, before anyone is told; the seat stays empty from then on
            await self._apply(leave(game.position, seat), auto=True)

    def _take_over(self, seat: int, why: str) -> None:
        """A bot plays a person's seat until they return."""
        s = self.seats[seat]
        if s.stand_in is None:
            s.stand_in = "greedy"
            self._broadcast(m.Presence(room=self.name, name=s.name, event="replaced_by_bot", detail=why))
            self._next_turn()

    def _on_resync(self, session: Session, msg: m.Resync) -> None:
        if session not in self.members:
            raise ProtocolError("not_in_room", "Enter a room first: /room NAME.", getattr(msg, "id", None))
        self._views.pop(session, None)
        self._publish_to(session)

    # --- seats and options ----------------------------------------------------------------------

    def _on_join(self, session: Session, msg: m.Join) -> None:
        name = self._name(session)
        if self._seat_of(name) is not None:
            raise ProtocolError("already_seated", "You already have a seat here.", msg.id)
        if self.state == "playing":
            raise ProtocolError(
                "game_running", "The game is running; watch, or wait for the next one.", msg.id
            )
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", "All four seats are taken.", msg.id)
        self.seats.append(Seat(name=name, kind=session.kind, session=session))
        self._broadcast(m.Presence(room=self.name, name=name, event="joined"))
        self._ack(session, msg.id)
        self._publish()

    async def _on_leave_game(self, session: Session, msg: m.LeaveGame) -> None:
        seat = self._require_seat(session, msg.id)
        if self.state == "playing":
            if self.options["absent"] != "drop" or self.seats[seat].session is not session:
                raise ProtocolError("game_running", "You cannot give up a seat during the game.", msg.id)
            # with absent drop the player leaves the game and stays to watch; the seat, out of
            # play, is given up when the game ends (so before the drop, which may end it)
            given_up = self.seats[seat]
            given_up.session = None
            try:
                await self._drop(seat)
            except StoreUnavailable:
                given_up.session = session  # nothing changed
                raise
            self._ack(session, msg.id)
            self._publish()
            return
        del self.seats[seat]
        self._broadcast(m.Presence(room=self.name, name=self._name(session), event="unseated"))
        self._ack(session, msg.id)
        self._publish()

    def _on_add_bot(self, session: Session, msg: m.AddBot) -> None:
        if self.state == "playing":
            raise ProtocolError("game_running", "Bots join between games.", msg.id)
        if len(self.seats) >= MAX_SEATS:
            raise ProtocolError("room_full", "All four seats are taken.", msg.id)
        name = self.lobby.reserve_bot_name(msg.strategy)
        self.seats.append(Seat(name=name, kind="bot", strategy=msg.strategy))
        self._broadcast(m.Presence(room=self.name, name=name, event="joined", detail=f"{msg.strategy} bot"))
        self._ack(session, msg.id)
        self._publish()

    def _on_remove_bot(self, session: Session, msg: m.RemoveBot) -> None:
        seat = self._seat_of(msg.name)
        if seat is None or self.seats[seat].strategy is None:  # bots over a connection leave by themselves
            raise ProtocolError("no_such_bot", f"No server bot called {msg.name!r} sits here.", msg.id)
        if self.state == "playing":
            raise ProtocolError("game_running", "Bots leave between games.", msg.id)
        del self.seats[seat]
        self.lobby.release_bot_name(msg.name)
        self._broadcast(m.Presence(room=self.name, name=msg.name, event="unseated"))
        self._ack(session, msg.id)
        self._publish()

    def _on_option(self, session: Session, msg: m.SetOption) -> None:
        if self.state == "playing":
            raise ProtocolError("game_running", "Options are fixed while a game runs.", msg.id)
        value = msg.value
        if msg.key == "stammtisch":
            if not isinstance(value, bool):
                raise ProtocolError("bad_option", "stammtisch is on or off (true/false).", msg.id)
        elif msg.key == "seed":
            if value is not None and (isinstance(value, bool | float | str) or not 0 <= value < 2**63):
                raise ProtocolError("bad_option", "seed is a whole number from 0, or random.", msg.id)
        elif msg.key == "clock":
            if value in (None, 0, False):
                value = None
            elif isinstance(value, bool | str) or not self.lobby.config.clock_min <= value <= 3600:
                raise ProtocolError(
                    "bad_option", f"clock is {self.lobby.config.clock_min:g} to 3600 seconds, or off.", msg.id
                )
        elif msg.key == "absent" and value not in ("bot", "drop"):
            raise ProtocolError(
                "bad_option",
                "absent is bot (a bot plays a lost player's seat) or drop (the player leaves the game).",
                msg.id,
            )
        self.options[msg.key] = value
        self._broadcast(
            m.Notice(
                room=self.name,
                text=f"{self._name(session)} set {msg.key} to "
                f"{'random' if value is None and msg.key == 'seed' else value}.",
            )
        )
        self._ack(session, msg.id)
        self._publish()

    def _public_options(self) -> dict[str, Any]:
        return {
            "stammtisch": self.options["stammtisch"],
            "clock": self.options["clock"],
            "seed": self.options["seed"],
            "absent": self.options["absent"],
        }

    # --- the game ----------------------------------------------------------------------------

    async def _on_start(self, session: Session, msg: m.Start) -> None:
        self._require_seat(session, msg.id)
        if self.state == "playing":
            raise ProtocolError("game_running", "The game has already started.", msg.id)
        if not MIN_PLAYERS <= len(self.seats) <= MAX_SEATS:
            raise ProtocolError(
                "not_enough_players", "A game needs 2 to 4 seated players: /join or /addbot.", msg.id
            )
        seed = self.options["seed"]
        if seed is None:
            seed = secrets.randbelow(2**63)
        record = GameRecord(
            players=tuple(s.name for s in self.seats),
            seed=seed,
            options=Options(stammtisch=bool(self.options["stammtisch"])),
        )
        position = record.start()
        game_id = secrets.token_hex(8)
        await self.lobby.store.game_started(
            game_id,
            self.name,
            record,
            [s.kind if s.strategy is None else f"bot:{s.strategy}" for s in self.seats],
            dict(self.options),  # the clock and absent hold for the whole game, a restart included
        )
        for s in self.seats:
            s.timeouts = 0
            s.stand_in = None
        self.game = Game(game_id=game_id, seed=seed, record=record, position=position)
        self.lobby.metrics.games_started.inc()
        self.log.info("game_started", game=game_id, players=list(record.players))
        self._ack(session, msg.id)
        self._publish()  # views first, so that a line client's "game starts" can say whose turn it is
        self._broadcast(
            m.GameStarted(
                room=self.name,
                players=list(record.players),
                start_player=record.players[position.to_move],
                seed_hash=seed_hash(seed),
            )
        )
        self._next_turn()

    async def _on_move(self, session: Session, msg: m.PlayMove) -> None:
        game = self._require_game(msg.id)
        seat = self._seat_of(self._name(session))
        if seat is None or self.seats[seat].session is not session:
            raise ProtocolError("not_seated", "Spectators cannot play; /join a game first.", msg.id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn", f"It is {self.seats[game.position.to_move].name}'s turn.", msg.id
            )
        try:
            result = play(game.position, msg.move)
        except IllegalMoveError as e:
            self._error(session, e.code, e.message, msg.id)
            return
        self.seats[seat].timeouts = 0
        await self._apply(result, auto=False)  # logged before anyone, the mover included, is told
        self._ack(session, msg.id)

    async def _on_bot_move(self, _: Session | None, msg: BotMove) -> None:
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return
        seat = self._seat_of(msg.name)
        if seat is None or game.position.to_move != seat or self.seats[seat].played_by_bot is None:
            return
        await self._apply(play(game.position, msg.move), auto=self.seats[seat].kind == "person")

    async def _on_clock(self, _: Session | None, msg: ClockTimeout) -> None:
        game = self.game
        if game is None or game.outcome is not None or game.moves != msg.move_number:
            return
        seat = self.seats[game.position.to_move]
        if seat.played_by_bot is not None:
            return
        seat.timeouts += 1
        move = self._greedy_move(game.position)
        self._broadcast(
            m.Notice(room=self.name, text=f"{seat.name}'s time ran out: the server plays {move}.")
        )
        if seat.timeouts >= 3:
            self._take_over(self.seats.index(seat), "ran out of time three times in a row")
        await self._apply(play(game.position, move), auto=True)

    async def _apply(self, result: PlayResult, *, auto: bool) -> None:
        game = self.game
        assert game is not None
        player = game.position.players[result.player].name
        # durable before anyone is told
        await self.lobby.store.move_played(game.game_id, game.moves + 1, result.move)
        game.record = game.record.with_move(result.move)
        game.position = result.position
        game.moves += 1
        game.last_move = LastMove(player, result.move, result.points)
        self.lobby.metrics.moves.inc()
        self.log.info("move", player=player, move=result.move, points=result.points, number=game.moves)
        self._publish()
        events = [e for e in result.events if e["type"] != "game_over"]
        self._broadcast(Outgoing.played(self.name, player, result.move, result.points, events, auto))
        for event in result.events:
            if event["type"] == "eliminated":
                self._broadcast(m.Eliminated(room=self.name, player=event["player"], place=event["place"]))
        if result.outcome is not None:
            await self._finish(result.outcome)
        else:
            self._next_turn()

    async def _finish(self, outcome: Outcome) -> None:
        game = self.game
        assert game is not None
        game.outcome = outcome
        self._cancel_timers()
        await self.lobby.store.game_finished(game.game_id, outcome)
        self.lobby.metrics.games_finished.inc()
        self.log.info(
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
            )
        )
        given_up = [s for s in self.seats if s.strategy is None and s.session is None]
        for seat in given_up:
            self.seats.remove(seat)
        if given_up:
            self._publish()
        for window in self._windows.values():
            window.cancel()
        self._windows.clear()

    async def restore(self, stored: StoredGame) -> None:
        """Take up a game from the log as its players left it: server-side bots play on, the
        others' seats wait for them for the resume window."""
        record = stored.record
        replayed = replay(record)  # a player who left is in the record as "leave NAME"
        out = {record.players[i] for i in replayed.position.eliminated}
        # the options the game started with (a game logged before they were kept gets the
        # defaults); the engine's option comes from the record itself
        kept = {k: v for k, v in stored.room_options.items() if k in DEFAULT_OPTIONS}
        self.options = {**DEFAULT_OPTIONS, **kept, "stammtisch": record.options.stammtisch}
        self.seats = []
        for name, kind in zip(record.players, stored.kinds, strict=True):
            if kind.startswith("bot:"):
                self.seats.append(Seat(name=name, kind="bot", strategy=kind.removeprefix("bot:")))
                self.lobby.bot_names.add(name.casefold())
            else:
                self.seats.append(Seat(name=name, kind="bot" if kind == "bot" else "person"))
                if name not in out:  # a player who is out of the game has no turns to wait for
                    self.hold(name)
        last = replayed.results[-1] if replayed.results else None
        self.game = Game(
            game_id=stored.game_id,
            seed=record.seed,
            record=record,
            position=replayed.position,
            last_move=None if last is None else LastMove(record.players[last.player], last.move, last.points),
            moves=len(record.moves),
        )
        self.log.info("restored", game=stored.game_id, moves=len(record.moves))
        if replayed.outcome is not None:
            await self._finish(replayed.outcome)
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        """Start the bot's thinking or the turn clock for whoever is to move."""
        self._cancel_timers()
        game = self.game
        if game is None or game.outcome is not None:
            return
        seat = self.seats[game.position.to_move]
        strategy = seat.played_by_bot
        loop = asyncio.get_running_loop()
        if strategy is not None:
            self._thinking = loop.create_task(self._think(seat.name, strategy, game.position, game.moves))
        elif self.options["clock"]:
            self._clock = loop.call_later(
                float(self.options["clock"]), self.post, None, ClockTimeout(game.moves)
            )

    async def _think(self, name: str, strategy: str, position: Position, move_number: int) -> None:
        from bots.strategy import bot_view, get_strategy

        kwargs: dict[str, Any] = {"budget": self.lobby.config.bot_budget} if strategy == "strong" else {}
        bot = get_strategy(strategy, **kwargs)
        view = bot_view(position, position.to_move)
        rng = random.Random(f"{self.game.game_id if self.game else ''}:{move_number}")
        if strategy == "strong":
            move = await asyncio.to_thread(bot.choose, view, rng)
        else:
            move = bot.choose(view, rng)
        self.post(None, BotMove(name, move, move_number))

    def _greedy_move(self, position: Position) -> str:
        from bots.strategy import bot_view, get_strategy

        return get_strategy("greedy").choose(bot_view(position, position.to_move), random.Random(0))

    def _cancel_timers(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None

    # --- questions ----------------------------------------------------------------------------

    def _on_legal_moves(self, session: Session, msg: m.GetLegalMoves) -> None:
        position = self._my_turn(session, msg.id)
        session.send(m.LegalMoves(id=msg.id, moves=legal_move_texts(position)))

    def _on_hint(self, session: Session, msg: m.GetHint) -> None:
        position = self._my_turn(session, msg.id)
        move = self._greedy_move(position)
        session.send(m.Hint(id=msg.id, move=move, points=play(position, move).points))

    def _on_say(self, session: Session, msg: m.Say) -> None:
        self._broadcast(m.Chat(room=self.name, name=self._name(session), text=msg.text))
        self._ack(session, msg.id)

    def _on_show(self, session: Session, msg: ShowRequest) -> None:
        from protocol import text

        view = self._view_for(session)
        if msg.what == "board":
            body = text.render_board(view, ascii_only=session.ascii_only)
        elif msg.what == "hand":
            body = text.render_hand(view)
        elif msg.what == "score":
            body = text.render_scores(view)
        else:
            raise ProtocolError("bad_arguments", f"/{msg.what} is not shown by rooms.")
        session.send(m.Text(kind=msg.what, text=body))

    def _my_turn(self, session: Session, msg_id: m.ClientId) -> Position:
        game = self._require_game(msg_id)
        seat = self._require_seat(session, msg_id)
        if game.position.to_move != seat:
            raise ProtocolError(
                "not_your_turn", f"It is {self.seats[game.position.to_move].name}'s turn.", msg_id
            )
        return game.position

    def _require_game(self, msg_id: m.ClientId) -> Game:
        if self.game is None:
            raise ProtocolError("no_game", "No game is running here; /join and /start one.", msg_id)
        if self.game.outcome is not None:
            raise ProtocolError("game_over", "The game has ended; /start plays again.", msg_id)
        return self.game

    def _require_seat(self, session: Session, msg_id: m.ClientId) -> int:
        seat = self._seat_of(self._name(session))
        if seat is None:
            raise ProtocolError("not_seated", "You have no seat here; /join first.", msg_id)
        return seat

    # --- sending ----------------------------------------------------------------------------

    def _seat_of(self, name: str | None) -> int | None:
        for i, s in enumerate(self.seats):
            if s.name == name:
                return i
        return None

    @staticmethod
    def _name(session: Session) -> str:
        assert session.name is not None
        return session.name

    def _room_views(self) -> RoomViews:
        game = self.game
        spectators = [self._name(s) for s in self.members if self._seat_of(s.name) is None]
        self._last_views = RoomViews(
            room=self.name,
            state=self.state,
            seats=[SeatInfo(s.name, s.kind, s.connected) for s in self.seats],
            spectators=spectators,
            options=self._public_options(),
            position=game.position if game else None,
            last_move=game.last_move if game else None,
            outcome=game.outcome if game else None,
            move_number=game.moves if game else 0,
            previous=self._last_views,  # what did not change is the same object: diffs skip it
        )
        return self._last_views

    def _view_for(self, session: Session) -> dict[str, Any]:
        return self._room_views().view(session.name)

    def _publish(self) -> None:
        """Send every member what changed in its own view."""
        # What members see alike is built and diffed once, and a patch that several members get
        # (the same operation objects) is serialised once.
        views = self._room_views()
        patches: dict[tuple[int, ...], Outgoing] = {}
        for session in self.members:
            self._publish_to(session, views, patches)

    def _publish_to(
        self,
        session: Session,
        views: RoomViews | None = None,
        patches: dict[tuple[int, ...], Outgoing] | None = None,
    ) -> None:
        views = views or self._room_views()
        name = session.name
        sent = self._views.get(session)
        self._views[session] = (views, name)
        if sent is None:
            session.send(m.Snapshot(room=self.name, view=views.view(name)))
            return
        before, before_name = sent
        if before_name == name:
            ops = views.changes(before, name)
        else:  # renamed: "you" changed too
            ops = diff(before.view(before_name), views.view(name))
        if not ops:
            return
        if patches is None:
            session.send(Outgoing.patch(self.name, ops))
            return
        key = tuple(map(id, ops))
        out = patches.get(key)
        if out is None:
            out = patches[key] = Outgoing.patch(self.name, ops)
        session.send(out)

    def _broadcast(self, message: m._ServerMessage | Outgoing, exclude: Session | None = None) -> None:
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        for session in self.members:
            if session is not exclude:
                session.send(out)

    def _ack(self, session: Session, msg_id: m.ClientId) -> None:
        session.send(Outgoing.ack(msg_id))

    def _error(self, session: Session, code: str, message: str, msg_id: m.ClientId) -> None:
        self.lobby.metrics.errors.labels(code=code).inc()
        session.send(m.Error(id=msg_id, code=code, message=message))
