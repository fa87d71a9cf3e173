"""The room actor: one asyncio task and one inbox per room around its :class:`RoomCore`.

The actor takes an item from the inbox, asks the core what it does, writes the step's entries to
the game log (durable before anyone is told), then carries out the effects: messages to members,
timers, bots thinking. Only the actor touches its room, so no locks are needed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from protocol import messages as m
from protocol.i18n import _
from protocol.options import RoomOptions
from server.log.contract import GameLog, LeaseLost, StoreUnavailable
from server.room.core import RoomCore
from server.room.effects import (
    WRITTEN,
    Answers,
    Arm,
    Cancel,
    Effect,
    Entry,
    GameEnd,
    GameOption,
    GameStart,
    MoveLogged,
    Note,
    Reply,
    SeatTaken,
    Send,
    Step,
    Think,
    TurnedAway,
    VotedOut,
)
from server.room.items import BotMove, ClockTimeout, Item, Stop, TurnRetry
from server.room.world import BotNames, Member, RoomSettings

if TYPE_CHECKING:
    from server.botpool import BotPool
    from server.log.contract import StoredGame
    from server.metrics import Metrics
    from server.room.seats import Seats
    from server.room.state import Game, State

log = structlog.get_logger("cafe.room")

#: seconds before a bot whose move failed thinks again
BOT_RETRY = 1.0
#: the items whose handling the move latency histogram measures
_MOVES = (m.PlayMove, BotMove, ClockTimeout)


class RoomHost(Protocol):
    """What a room needs of the server around it (never the lobby itself)."""

    @property
    def settings(self) -> RoomSettings: ...
    @property
    def bot_names(self) -> BotNames: ...
    @property
    def log(self) -> GameLog: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def bots(self) -> BotPool: ...

    def room_changed(self, room: Room) -> None:
        """The room handled an item (its line in a room list may have changed)."""

    def room_empty(self, room: Room) -> None:
        """The room has nobody in it and no game running: it ends."""

    def lease_lost(self, room: Room) -> None:
        """Another node owns the room now (cluster mode): it has stopped here."""

    def bot_games(self, name: str, identity: str | None) -> int:
        """How many games the person ``name`` (or the player ``identity``, under whatever name) has
        running against the server's bots alone."""

    def refused_entry(self, room: Room, member: Member) -> None:
        """``member`` asked to enter the room and was refused: wherever it is connected, it is
        in no room now."""


class Room:
    """A room actor: ``post`` queues, the task handles one item at a time."""

    def __init__(self, name: str, host: RoomHost) -> None:
        self.core = RoomCore(name, host.settings, host.bot_names, bot_games=host.bot_games)
        self.host = host
        # a deque and a future rather than an asyncio.Queue: a move passes through the inbox, and
        # the queue's getters, task counts and join event cost more than the room's own bookkeeping
        self._inbox: deque[Item] = deque()
        #: the item being handled (a log write may hold it while the room is abandoned)
        self._handling: Item | None = None
        self.log = log.bind(room=name)  # every line of this room's names it
        self._task: asyncio.Task[None] | None = None
        #: set while the actor waits for an item (its inbox is empty and nothing is being handled)
        self._wake: asyncio.Future[None] | None = None
        #: ``settled()`` waiting for the actor to be idle
        self._settling: list[asyncio.Future[None]] = []
        #: armed timers and bots thinking, by the core's key
        self._timers: dict[str, asyncio.TimerHandle | asyncio.Task[None]] = {}

    # --- what the core holds -----------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.core.name

    @property
    def state(self) -> State:
        return self.core.state

    @property
    def empty(self) -> bool:
        return self.core.empty

    @property
    def game(self) -> Game | None:
        return self.core.game

    @property
    def seats(self) -> Seats:
        return self.core.seats

    @property
    def members(self) -> dict[Member, None]:
        return self.core.members.present

    @property
    def options(self) -> RoomOptions:
        return self.core.options

    def summary(self) -> m.RoomSummary:
        return self.core.summary()

    # --- outside the actor: only queueing ----------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room:{self.name}")

    def post(self, session: Member | None, message: Any) -> None:
        self._inbox.append(Item(session, message, time.perf_counter()))
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def reread(self, session: Member) -> None:
        """Nothing to do: a room here reads its members' language and ASCII from their sessions."""

    def unhandled(self) -> list[Item]:
        """Take every item the room stopped before answering: the one it was handling (its log
        write, say, still waiting when the room was abandoned) and those waiting in the inbox."""
        items = [self._handling, *self._inbox] if self._handling is not None else list(self._inbox)
        self._handling = None
        self._inbox.clear()
        return items

    def abandon(self) -> None:
        """Stop at once, without touching the game (another node owns the room now)."""
        self._cancel_all()
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

    async def restore(self, stored: StoredGame) -> None:
        """Take up a game from the log (before the room handles anything else)."""
        await self._carry(self.core.restore(stored, asyncio.get_running_loop().time()))

    # --- the actor ---------------------------------------------------------------------------

    async def settled(self) -> None:
        """Wait until every item posted so far has been handled, and every bot that is thinking
        has handed in its move and that move has been handled (timers still to run are not
        waited for)."""
        while True:
            thinking = [t for t in self._timers.values() if isinstance(t, asyncio.Task) and not t.done()]
            if thinking:
                await asyncio.wait(thinking)  # (a bot posts its move before its task ends)
            elif self._idle():
                return
            else:
                waiter = asyncio.get_running_loop().create_future()
                self._settling.append(waiter)
                await waiter

    def _idle(self) -> bool:
        """Nothing to handle and nothing being handled (or the actor has ended)."""
        task = self._task
        return task is None or task.done() or (self._wake is not None and not self._inbox)

    def _wake_settling(self) -> None:
        settling, self._settling = self._settling, []
        for waiter in settling:
            if not waiter.done():
                waiter.set_result(None)

    async def _run(self) -> None:
        inbox = self._inbox
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not inbox:
                    self._wake = wake = loop.create_future()
                    if self._settling:
                        self._wake_settling()
                    await wake
                    continue
                self._handling = inbox.popleft()
                # (the loop is at hand: asking for it again costs a system call on Python 3.11)
                carry_on = await self._handle(self._handling, loop.time())
                self._handling = None
                if not carry_on:
                    return
                if inbox:
                    # let the members' writes go out between two commands, so a burst does not
                    # fill outboxes (an empty inbox yields to them anyway)
                    await asyncio.sleep(0)
        finally:
            self._wake = None
            self._wake_settling()

    async def _handle(self, item: Item, now: float) -> bool:
        """Handle one item at ``now`` (the loop's clock); ``False`` when the actor ends."""
        message = item.message
        if isinstance(message, Stop):
            self._cancel_all()
            return False
        try:
            await self._carry(self.core.handle(item.session, message, now))
        except LeaseLost:
            self.log.warning("lease_lost")
            self._cancel_all()
            self._handling = None  # the sender heard it was not taken (``_carry``)
            self.host.lease_lost(self)
            return False
        except Exception:
            player = item.session.name if item.session else None
            self.log.exception("room_failed", message=type(message).__name__, player=player)
            if item.session is not None:
                msg_id = getattr(message, "id", None)
                self._reply(Reply(item.session, "internal", _("The server failed to handle that."), msg_id))
        if isinstance(message, _MOVES):
            self.host.metrics.move_handled(time.perf_counter() - item.received)
        self.host.room_changed(self)
        if self.core.empty and not self._inbox:
            # (a room whose last member left while someone's entering waits in the inbox goes on:
            # the room that person was sent to is this one)
            self._cancel_all()
            self.host.room_empty(self)
            return False
        return True

    async def _carry(self, step: Step) -> None:
        """Write the step's entries, then do what follows: what the core committed, or, when the
        log refused them, what it does instead."""
        answers = WRITTEN
        if step.entries:
            try:
                answers = await self._write(step.entries)
            except StoreUnavailable:
                self.log.warning("store_unavailable")
                self._do(self.core.refuse(step))
                return
            except LeaseLost:
                self._do(self.core.refuse(step))  # the sender hears it was not taken, then the room goes
                raise
        self._do(self.core.commit(step, answers))

    async def _write(self, entries: tuple[Entry, ...]) -> Answers:
        """Write ``entries`` in order; what the log answered."""
        answers = await self._write_one(entries[0])
        for entry in entries[1:]:
            try:
                answers = await self._write_one(entry)
            except StoreUnavailable:
                if not isinstance(entry, GameEnd):  # (a player voted out, then the move that drops them)
                    raise
                # the outcome follows from the moves logged: a restore writes it again
                self.log.warning("store_unavailable", entry=type(entry).__name__)
        return answers

    async def _write_one(self, entry: Entry) -> Answers:
        """Write ``entry``: what the log answered (the ratings of a game whose end it wrote)."""
        store, metrics = self.host.log, self.host.metrics
        if isinstance(entry, MoveLogged):
            if entry.auto is None:
                await store.move_played(entry.game_id, entry.number, entry.move)
            else:  # a move the server played for its player: the log keeps that too
                await store.move_played(entry.game_id, entry.number, entry.move, entry.auto)
            metrics.move_logged()
        elif isinstance(entry, GameStart):
            await store.game_started(
                entry.game_id, entry.room, entry.record, entry.kinds, entry.room_options, entry.identities
            )
            metrics.games_started.inc()
        elif isinstance(entry, SeatTaken):
            await store.seat_taken(entry.game_id, entry.seat, entry.old, entry.name, entry.identity)
        elif isinstance(entry, VotedOut):
            await store.voted_out(entry.game_id, entry.name)
        elif isinstance(entry, GameOption):
            await store.game_option(entry.game_id, entry.key, entry.value)
        elif isinstance(entry, GameEnd):
            changes = await store.game_finished(entry.game_id, entry.outcome)
            metrics.games_finished.inc()
            if changes:
                return Answers({c.name: m.RatingShift.model_validate(c.to_dict()) for c in changes})
        return WRITTEN

    # --- effects -------------------------------------------------------------------------------

    def _do(self, effects: list[Effect]) -> None:
        for effect in effects:
            match effect:
                case Send():
                    message = effect.message
                    for recipient in effect.recipients:
                        recipient.send(message)
                case Reply():
                    self._reply(effect)
                case Arm():
                    self._arm(effect)
                case Cancel():
                    self._cancel(effect.key)
                case Think():
                    self._think(effect)
                case Note():
                    self.log.info(effect.event, **effect.fields)
                case TurnedAway():
                    self.host.refused_entry(self, effect.member)

    def _reply(self, reply: Reply) -> None:
        """An error, counted by its code, to its recipient alone."""
        self.host.metrics.error_sent(reply.code)
        reply.recipient.send(m.Error(id=reply.id, code=reply.code, message=reply.text))

    def _arm(self, arm: Arm) -> None:
        self._cancel(arm.key)
        self._timers[arm.key] = asyncio.get_running_loop().call_at(arm.at, self.post, None, arm.item)

    def _cancel(self, key: str) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def _cancel_all(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _think(self, think: Think) -> None:
        self._cancel(think.key)
        task = asyncio.get_running_loop().create_task(self._thinking(think))
        self._timers[think.key] = task

    async def _thinking(self, think: Think) -> None:
        try:
            move = await self.host.bots.choose(think.strategy, think.budget, think.position, think.seed)
        except Exception:  # the bot's process died, say: the turn starts again shortly
            self.log.exception("bot_failed", player=think.name, move_number=think.move_number)
            delay = asyncio.get_running_loop().call_later
            self._timers[think.key] = delay(BOT_RETRY, self.post, None, TurnRetry(think.move_number))
            return
        self.post(None, BotMove(think.name, move, think.move_number))
