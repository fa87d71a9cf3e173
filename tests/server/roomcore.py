"""A driver for :class:`server.room.core.RoomCore` with no event loop: a clock that is a number,
members that must never be sent to directly, and a game log that writes or refuses on demand.

The driver plays the actor's part by hand: it feeds an item, writes the step's entries (or refuses
them), and keeps what came out: the messages each member got, the errors, the timers armed and
the bots asked to think. A timer fires, or a bot moves, only when a test says so.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from typing import Any, Literal

from bots.strategy import bot_view, get_strategy
from engine import legal_move_texts, play
from protocol import messages as m
from protocol.diff import apply_patch
from protocol.errors import ERROR_CODES
from protocol.outgoing import Outgoing
from server.room.core import BotNameList, RoomCore, RoomSettings
from server.room.effects import WRITTEN, Answers, Arm, Cancel, Effect, Entry, Note, Reply, Send, Step, Think
from server.room.items import BotMove, Enter

ROOM = "cafe"
SEED = 7
GAME_ID = "g1"


class FakeMember:
    """A member as the core sees one; the core names recipients and never calls ``send``."""

    def __init__(
        self, name: str, kind: Literal["person", "bot"] = "person", ascii_only: bool = False
    ) -> None:
        self.name: str | None = name
        self.kind: Literal["person", "bot"] = kind
        self.ascii_only = ascii_only
        self.identity: str | None = f"id-{name}"

    def send(self, message: Outgoing) -> None:
        raise AssertionError(f"the core sent {message.json} to {self.name} itself")

    def __repr__(self) -> str:
        return f"FakeMember({self.name!r})"


@dataclasses.dataclass
class Handled:
    """What one item did: the step the core returned, whether its entries were written, and every
    effect that followed (``commit`` or ``refuse`` hands back the step's own effects first)."""

    step: Step
    written: bool | None  # None: the step had no entries
    effects: list[Effect]

    def sends(self, member: FakeMember) -> list[m._ServerMessage]:
        """The messages ``member`` got, in order."""
        return [
            e.message.message
            for e in self.effects
            if isinstance(e, Send) and any(r is member for r in e.recipients)
        ]

    def types(self, member: FakeMember) -> list[str]:
        """The ``type`` of each message ``member`` got, in order."""
        return [getattr(msg, "type") for msg in self.sends(member)]  # noqa: B009 - each subclass has one

    def of(self, member: FakeMember, kind: type[Any]) -> list[Any]:
        """The messages of class ``kind`` that ``member`` got."""
        return [msg for msg in self.sends(member) if isinstance(msg, kind)]

    def presence(self, member: FakeMember) -> list[tuple[str, str]]:
        """The ``(name, event)`` of each presence message ``member`` got."""
        return [(p.name, p.event) for p in self.of(member, m.Presence)]

    def replies(self, member: FakeMember | None = None) -> list[Reply]:
        """The errors (to ``member`` only, if given)."""
        return [e for e in self.effects if isinstance(e, Reply) and (member is None or e.recipient is member)]

    def codes(self, member: FakeMember) -> list[str]:
        """The error codes ``member`` got."""
        return [r.code for r in self.replies(member)]

    @property
    def arms(self) -> list[Arm]:
        return [e for e in self.effects if isinstance(e, Arm)]

    @property
    def cancels(self) -> list[str]:
        return [e.key for e in self.effects if isinstance(e, Cancel)]

    @property
    def thinks(self) -> list[Think]:
        return [e for e in self.effects if isinstance(e, Think)]

    @property
    def notes(self) -> list[str]:
        return [e.event for e in self.effects if isinstance(e, Note)]

    @property
    def recipients(self) -> set[int]:
        """The ids of everyone sent anything (a check that nobody was)."""
        sent = {id(r) for e in self.effects if isinstance(e, Send) for r in e.recipients}
        return sent | {id(e.recipient) for e in self.effects if isinstance(e, Reply)}


class Driver:
    """A room core, a clock, a game log and the timers the core armed.

    >>> d = Driver()
    >>> ann = d.enter("ann")
    >>> d.feed(ann, m.Join(id=1)).types(ann)
    ['presence', 'ack', 'patch']
    """

    def __init__(
        self,
        settings: RoomSettings | None = None,
        *,
        seed: int | None = SEED,
        bot_games: Callable[[str, str | None], int] = lambda name, identity: 0,
    ) -> None:
        self.bot_names = BotNameList()
        self.core = RoomCore(
            ROOM,
            settings or RoomSettings(),
            self.bot_names,
            new_game_id=lambda: GAME_ID,
            new_seed=lambda: 99,
            bot_games=bot_games,
        )
        self.now = 0.0
        #: every entry written to the log, in order
        self.written: list[Entry] = []
        #: the timers and bot turns pending, by key, as the actor would hold them
        self.timers: dict[str, Arm | Think] = {}
        #: each member's view, as its snapshot and the patches since make it
        self.views: dict[FakeMember, Any] = {}
        if seed is not None:
            self.core.options = self.core.options.with_value("seed", seed)
        self._ids = 0  # the ids given to messages fed without one

    # --- feeding --------------------------------------------------------------------------------

    def handle(self, session: FakeMember | None, message: Any) -> Step:
        """Only ask the core: the step, with nothing written, committed or refused yet."""
        return self.core.handle(session, message, self.now)

    def finish(self, step: Step, *, log: bool = True, answers: Answers = WRITTEN) -> Handled:
        """Write ``step``'s entries (``log``; the log answers ``answers``) or have the log refuse
        them, and follow up."""
        if not step.entries:
            return self._track(Handled(step, None, self.core.commit(step)))
        if log:
            self.written.extend(step.entries)
            return self._track(Handled(step, True, self.core.commit(step, answers)))
        return self._track(Handled(step, False, self.core.refuse(step)))

    def feed(
        self, session: FakeMember | None, message: Any, *, log: bool = True, answers: Answers = WRITTEN
    ) -> Handled:
        """Handle ``message`` from ``session`` and carry out the step. A member's message without
        an id gets one, as a client's usually has, and every answer to it must carry that id;
        every error must have a code of the catalogue and a message."""
        if session is not None and getattr(message, "id", 0) is None:
            self._ids += 1
            message = _with_id(message, f"auto-{self._ids}")
        outcome = self.finish(self.handle(session, message), log=log, answers=answers)
        if session is not None and hasattr(message, "id"):
            for reply in outcome.replies(session):
                assert reply.id == message.id, f"{reply} answers {message}"
                assert reply.code in ERROR_CODES and isinstance(reply.text, str) and reply.text, reply
            for answer in outcome.sends(session):
                if isinstance(answer, m._Answer):
                    assert answer.id == message.id, f"{answer} answers {message}"
        return outcome

    def enter(
        self, name: str, kind: Literal["person", "bot"] = "person", *, join: bool = False
    ) -> FakeMember:
        """A new member ``name`` enters the room (and takes a seat, with ``join``)."""
        member = FakeMember(name, kind)
        self.feed(member, Enter(join=join))
        return member

    def _track(self, outcome: Handled) -> Handled:
        for effect in outcome.effects:
            if isinstance(effect, Send):
                message = effect.message.message
                # whatever a room tells (presence, chat, notices) names the room it happens in
                assert getattr(message, "room", ROOM) == ROOM, message
                for recipient in effect.recipients:
                    if not isinstance(recipient, FakeMember):
                        continue
                    if isinstance(message, m.Snapshot):
                        self.views[recipient] = message.view
                    elif isinstance(message, m.Patch):
                        self.views[recipient] = apply_patch(self.views[recipient], message.ops)
                    if isinstance(message, m.Snapshot | m.Patch):
                        assert self.views[recipient]["room"] == ROOM
            elif isinstance(effect, Arm | Think):
                self.timers[effect.key] = effect
            elif isinstance(effect, Cancel):
                self.timers.pop(effect.key, None)
        return outcome

    # --- time, timers and bots ------------------------------------------------------------------

    def due(self, key: str) -> Any:
        """Let the clock reach timer ``key``: the item it posts (handled by nobody yet)."""
        arm = self.timers.pop(key)
        assert isinstance(arm, Arm), f"{key} is a bot thinking, not a timer"
        self.now = max(self.now, arm.at)
        return arm.item

    def fire(self, key: str, *, log: bool = True) -> Handled:
        """Let the clock reach timer ``key`` and post its item, as the actor's loop would."""
        return self.feed(None, self.due(key), log=log)

    def think(self, key: str = "turn", *, log: bool = True) -> Handled:
        """Let the bot asked to think under ``key`` choose its move and post it."""
        think = self.timers.pop(key)
        assert isinstance(think, Think), f"{key} is a timer, not a bot thinking"
        bot = get_strategy(think.strategy)
        move = bot.choose(bot_view(think.position, think.position.to_move), random.Random(think.seed))
        return self.feed(None, BotMove(think.name, move, think.move_number), log=log)

    # --- the game -------------------------------------------------------------------------------

    def seat(self, *names: str, options: Iterable[tuple[Any, Any]] = ()) -> list[FakeMember]:
        """``names`` enter and sit down, in that order, with ``options`` set."""
        members = [self.enter(name, join=True) for name in names]
        for key, value in options:
            assert self.feed(members[0], m.SetOption(key=key, value=value)).replies() == []
        return members

    def start(self, *names: str, options: Iterable[tuple[Any, Any]] = ()) -> list[FakeMember]:
        """``names`` seated, the game started and logged."""
        members = self.seat(*names, options=options)
        outcome = self.feed(members[0], m.Start(id="start"))
        assert outcome.written and self.core.state == "playing", outcome.replies()
        return members

    @property
    def position(self) -> Any:
        assert self.core.game is not None
        return self.core.game.position

    @property
    def to_move(self) -> str:
        """The name of the player whose turn it is."""
        name: str = self.position.players[self.position.to_move].name
        return name

    def legal(self) -> str:
        """A legal move for whoever is to move (the first in the engine's order)."""
        return legal_move_texts(self.position)[0]

    def move(self, members: Iterable[FakeMember], *, log: bool = True, answers: Answers = WRITTEN) -> Handled:
        """The player to move (one of ``members``) plays a legal move (the log answers ``answers``)."""
        mover = next(p for p in members if p.name == self.to_move)
        return self.feed(mover, m.PlayMove(move=self.legal(), id="mv"), log=log, answers=answers)

    def ends_game(self) -> bool:
        """Whether the move ``legal`` gives ends the game."""
        return play(self.position, self.legal()).outcome is not None


def _with_id(message: Any, msg_id: str) -> Any:
    """``message`` with the id ``msg_id``: a protocol message, a parsed command or a room item."""
    if isinstance(message, m._ClientMessage):
        return message.model_copy(update={"id": msg_id})
    return dataclasses.replace(message, id=msg_id)


def state_of(core: RoomCore) -> dict[str, Any]:
    """What a refused log write must leave as it was: game, seats, options, members, windows."""
    game = core.game
    return {
        "game": None if game is None else dataclasses.replace(game),
        "seats": [dataclasses.replace(s) for s in core.seats],
        "options": core.options,
        "members": list(core.members),
        "windows": set(core.clock.windows),
    }


__all__ = ["GAME_ID", "ROOM", "SEED", "Driver", "FakeMember", "Handled", "state_of"]
