"""The lobby: connections, names, resume tokens, and routing each command to its room.

The lobby answers what needs no room (hello, nick, who, the room list, help, history, ping) and
posts everything else to the session's room. It knows rooms and names only through a
:class:`~server.directory.local.Directory`, the same for one process or a cluster. Nothing here holds a
lock: the game state lives in the room actors.
"""

from __future__ import annotations

import contextlib
import functools
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog

from bots.strategy import STRATEGIES
from protocol import messages as m
from protocol.commands import AsciiMode, Quit, ShowRequest, help_text, parse_command
from protocol.errors import UNAVAILABLE, Close, ProtocolError
from protocol.i18n import LANGUAGES, _, lang
from protocol.names import NAME_RULE, ROOM_RULE, ReservedNames, is_name, is_room_name
from server.analysis import AnalysisDesk
from server.config import Config
from server.directory import Directory
from server.directory.names import name_taken
from server.directory.privacy import here, seen_from
from server.directory.roomlist import listed
from server.limits import security_event
from server.lobby import account_commands, language, profiles
from server.lobby.accounts import Accounts, bad_password
from server.lobby.background import Background
from server.lobby.choices import StoredLists, account_settings
from server.lobby.moderation import HUSHED, Moderation
from server.lobby.seeking import Seeks
from server.lobby.social import PersonalLists, Social
from server.lobby.tables import Tables
from server.log.contract import GameLog, StoreUnavailable
from server.metrics import Metrics
from server.ratelimit import AddressBuckets, TokenBucket
from server.ratings import ACCOUNT
from server.room import Enter, Leave, Returned, Room, not_invited
from server.session import RoomRef, Session
from server.tasks import OneAtATime
from server.tournament import commands as tournament_commands
from server.tournament.director import Director

log = structlog.get_logger("cafe.lobby")

#: abuse strikes (rate-limit hits) after which a connection is closed
MAX_STRIKES = 10
#: seconds a flooding connection's last refusal may take to be written before it closes
LAST_WORD = 1.0
#: a ``list_rooms`` counts against the connection's rate as one message more for each this many
#: rooms it lists (a list of every room, read and sent again each time, is not one message's work)
ROOMS_A_MESSAGE = 100
#: and a ``who`` as one more for each this many people (a line of each, with their rating)
PEOPLE_A_MESSAGE = 100
#: the addresses whose reading of the records is counted at once (more: the least recent forgotten)
READING_ADDRESSES = 10_000

#: what answers a message: done at once (``None``) or when awaited
Handler = Callable[[Session, Any], Awaitable[None] | None]
#: the messages a connection may send before its hello
_BEFORE_HELLO = frozenset({m.Hello, m.Command})
#: their types (a malformed message of another type is answered ``hello_first``)
_BEFORE_HELLO_TYPES = frozenset(("hello", "command"))
#: the refusals of a frame whose type could not be read: their own answer, before hello too
_UNREAD = frozenset(("bad_json", "unknown_type"))

#: the messages that count against the chat limit: what reaches other people's screens (an
#: invitation too)
_CHAT = frozenset({m.Say, m.Tell, m.TellReply, m.Invite})
#: what a room tells its members of, a line each ("ann takes a seat", "enters the room"): at twice
#: the chat's rate, in bursts of ``COMINGS_BURST``, so that nobody floods a room with such lines
#: (and a program that plays game after game in room after room is not held up)
_COMINGS = frozenset({m.EnterRoom, m.Watch, m.LeaveRoom, m.Join, m.LeaveGame, m.AddBot, m.RemoveBot})
COMINGS_BURST = 20


def _may_come_first(raw: str | bytes) -> bool:
    """Whether a frame that failed validation is of a type that may come before ``hello`` (or
    of no type it names): its own error is the answer then, else ``hello_first``."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return True
    kind = data.get("type") if isinstance(data, dict) else None
    return not isinstance(kind, str) or kind in _BEFORE_HELLO_TYPES


def _still_accepting(lobby: Lobby, msg_id: m.ClientId) -> None:
    """``shutting_down`` once the server stops: a hello is not welcomed after the ``bye``."""
    if not lobby.accepting:
        raise ProtocolError("shutting_down", _("The server is stopping; try again later."), msg_id)


def _language_asked(session: Session, raw: str | bytes) -> None:
    """A first message the server cannot take that names a language it speaks (``lang``, as a
    ``hello`` does): the connection reads that language from its answer on, as it does after a
    well-formed ``hello`` that is refused."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # (a frame nested past Python's limit: bad_json)
        return
    chosen = data.get("lang") if isinstance(data, dict) else None
    if isinstance(chosen, str) and chosen in LANGUAGES:
        session.lang = lang(chosen)


def _hello_first(msg_id: m.ClientId) -> ProtocolError:
    return ProtocolError(
        "hello_first", _("Say hello first: {example}.", example='{"type": "hello", "name": ...}'), msg_id
    )


#: the refusal of a message over the connection's rate
SLOW_DOWN = _("Slow down: too many messages.")


def _frame_id(raw: str | bytes | None) -> m.ClientId:
    """The id of a frame refused unread, so that its sender knows which one (a flood is closed
    after a few refusals, so reading these few costs little)."""
    try:
        value = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    msg_id = value.get("id") if isinstance(value, dict) else None
    return msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None


class Lobby:
    """Every connection of this process: its name, its limits, and where its commands go.

    ``attach`` a session when it connects and ``detach`` it when it goes; feed it what the client
    sends with ``receive`` (a WebSocket frame) or ``receive_line`` (a typed line). Every message
    gets an answer: its effect, or an error with a stable code, to the sender alone.
    """

    def __init__(self, config: Config, directory: Directory, store: GameLog, metrics: Metrics) -> None:
        self.config = config
        self.directory = directory
        self.store = store
        self.metrics = metrics
        self.accepting = True
        self.connections = 0
        #: the clock the rate limits of connections attached from now on read (seconds, monotonic)
        self.clock: Callable[[], float] = time.monotonic
        self.all_sessions: set[Session] = set()
        #: who holds each name changes one at a time here (a resume, a login, an account's password
        #: changed or its deletion): the second finds the first's connection to replace, its token
        #: revoked, or the account as it is now
        self.name_changes = OneAtATime()
        self.accounts = Accounts(store, **config.argon2)
        #: what each address may still read of the records (``/history``, ``/finger``, the HTTP
        #: API): at the connections' message rate and burst, its connections and requests together
        self.reading = AddressBuckets(config.rate, config.burst, READING_ADDRESSES)
        #: names no guest takes and nobody registers, whatever their case or look-alike
        self.reserved = ReservedNames(STRATEGIES)
        self._jobs = Background(log)
        self._tasks = self._jobs.tasks
        self._background = self._jobs.run
        self.social = Social(directory, StoredLists(store), lambda: self.all_sessions)
        self.social.with_ratings = self._as_shown  # (``/whereis``: as ``/who`` shows people)
        #: new rooms the server makes for people: quick pairing, tournaments
        self.tables = Tables(directory, config.max_rooms)
        #: quick pairing: the queue and, where this node leads, the pairing
        self.seeks = Seeks(
            directory,
            store,
            self.tables,
            clock_min=config.clock_min,
            max_bot_games=config.max_bot_games,
            # (a quarter of the connections an address may hold: 5 by default)
            per_address=max(1, config.max_per_ip // 4),
        )
        #: the finished games' analyses: queued, run in worker processes, kept in the store
        self.analyses = AnalysisDesk(config, store, lambda: self.all_sessions)
        #: the tournaments' director (set by the server)
        self.tournaments: Director | None = None
        #: the staff's commands, reports, and the sanctions that hold on this node's connections
        self.moderation = Moderation(self)
        #: who answers each message the lobby answers (every other goes to the room: ``_to_room``)
        self._handlers: dict[type, Handler] = {
            m.Command: self._command,
            m.Hello: self._hello,
            m.Nick: self._nick,
            m.ListRooms: self._list_rooms,
            m.Who: self._who,
            m.EnterRoom: self._enter,
            m.Watch: self._enter,
            m.Join: self._join,
            m.LeaveRoom: self._leave_room,
            m.Ping: self._ping,
            m.Seek: self.seeks.seek,
            m.Unseek: self.seeks.unseek,
            ShowRequest: self._show,
            m.Tell: self.social.tell,
            m.TellReply: self.social.tell,
            m.WhereIs: self.social.whereis,
            m.ListEdit: self.social.edit,
            m.GetFriends: self.social.friends,
            m.Invite: self.social.invite,
            m.Analyse: self.analyses.ask,
            **{kind: functools.partial(command, self) for kind, command in account_commands.HANDLERS.items()},
            **{kind: functools.partial(does, self) for kind, does in tournament_commands.HANDLERS.items()},
            **self.moderation.handlers(),
        }

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The room actors of this process, by casefolded name."""
        return self.directory.rooms

    # --- connections -------------------------------------------------------------------------

    def can_accept(self) -> bool:
        return self.accepting and self.connection_count() < self.config.max_connections

    def connection_count(self) -> int:
        return self.connections

    def attach(self, session: Session) -> None:
        """A new connection: give it its rate limits."""
        session.bucket = TokenBucket(self.config.rate, self.config.burst, self.clock)
        session.chat_bucket = TokenBucket(self.config.chat_rate, self.config.chat_burst, self.clock)
        session.comings_bucket = TokenBucket(2 * self.config.chat_rate, COMINGS_BURST, self.clock)
        self.connections += 1
        self.all_sessions.add(session)
        self.metrics.connections.labels(transport=session.transport).inc()
        self.directory.attach(session)

    def detach(self, session: Session) -> None:
        """The connection is gone: leave the room, hold a running game's seat for the window."""
        self.connections -= 1
        self.all_sessions.discard(session)
        self.metrics.connections.labels(transport=session.transport).dec()
        name = session.name
        self.seeks.ended(session)
        if name is not None:
            if session.token is not None:  # the token, and so the name, hold for the resume window
                expires = time.time() + self.config.resume_window
                self.directory.away(name, expires, session.token)
                self._background(self.store.token_released(session.token, expires))
            self.directory.unbind(session, name)
        self.directory.detach(session)
        self.social.gone(session)
        room = session.room
        session.room = None  # pragma: no mutate - a closed connection's room is read no more
        if room is not None and name is not None:  # a seat in a running game is held for the window
            room.post(session, Leave(disconnected=True))

    # --- messages ----------------------------------------------------------------------------

    async def receive(self, session: Session, raw: str | bytes) -> None:
        """A frame from a WebSocket client (none is read once it flooded: it is being closed)."""
        self.metrics.received(session.transport)
        if session.strikes >= MAX_STRIKES:
            return
        try:
            self._limit(session, raw)
            try:
                msg = m.parse_client_message(raw)
            except ProtocolError as e:
                if session.name is None:
                    _language_asked(session, raw)  # (a hello refused is answered in its language)
                if session.name is None and e.code not in _UNREAD and not _may_come_first(raw):
                    raise _hello_first(e.id) from None  # (whatever else is wrong, it came first)
                raise
            await self.handle(session, msg)
        except ProtocolError as e:
            self.error(session, e.code, e.message, e.id)

    async def _quit(self, session: Session) -> None:
        """/quit: the resume token is given up, so nobody can come back with it, and the room is
        left as with ``leave_room``: a seat in a running game goes to a bot at once (with
        ``absent`` ``drop``, its player leaves the game) rather than waiting for the window. A
        guest, who cannot come back to the seat, leaves a game against the server's bots alone,
        also one whose room they left before."""
        self.seeks.ended(session)
        if session.token is not None:
            await self.store.token_revoked(session.token)
            session.token = None  # pragma: no mutate - releasing a revoked token touches nothing
        gone = not session.registered  # (an account logs in again, and has its seat back)
        leave = Leave(disconnected=False, id=None, name=session.name, asked=False, gone=gone)
        room = session.room
        if room is not None:
            session.room = None
            room.post(session, leave)
            self.directory.moved(session)
        if gone and session.name is not None:
            # the room that holds the seat hears it too: a room left before, or (in a cluster) the
            # one just left when its owner was being found (a second word changes nothing there)
            with contextlib.suppress(StoreUnavailable):  # (out of reach, the game waits as before)
                seat = await self.directory.seat_room(session.name)
                if seat is not None and seat is not room:
                    seat.post(session, leave)

    async def receive_line(
        self, session: Session, line: str, asked: Callable[[Any], Any] | None = None
    ) -> bool:
        """A line from a line client (counted against its rate by the line endpoint, with the
        lines it answers itself); ``False`` when the client asked to quit. ``asked`` sees each
        command before it is handled, and may give it an id."""
        self.metrics.received(session.transport)
        try:
            command = parse_command(line)
            if isinstance(command, Quit):
                await self._quit(session)
                return False
            if command is not None:
                await self.handle(session, command if asked is None else asked(command))
        except ProtocolError as e:
            self.error(session, e.code, e.message, e.id)
        return True

    def _limit(self, session: Session, raw: str | bytes | None = None) -> None:
        if self.over_limit(session):
            raise ProtocolError("rate_limited", SLOW_DOWN, _frame_id(raw))

    def over_limit(self, session: Session, cost: float = 1.0) -> bool:
        """Whether a message from ``session`` (``cost``: what it counts as, a part of one for a
        terminal's empty line) goes over its rate (``--rate``, ``--burst``); each one that does is
        a strike, and the last strike closes the connection."""
        if session.bucket.take(cost):
            return False
        self._strike(session)
        return True

    def _strike(self, session: Session) -> None:
        session.strikes += 1
        if session.strikes == MAX_STRIKES:
            # the last refusal is written, then the connection closes; nothing it sends meanwhile
            # is read (``receive``, and the line endpoint's loop)
            security_event(self.metrics, "rate_limit_close", player=session.name, peer=session.peer)
            session.close_after_drain(Close.POLICY, _("flooding"), LAST_WORD)

    def error(self, session: Session, code: str, message: str, msg_id: m.ClientId = None) -> None:
        """The lobby's way to refuse: counted by its code, sent to ``session`` alone."""
        self.metrics.error_sent(code)
        session.send(m.Error(id=msg_id, code=code, message=message))

    async def handle(self, session: Session, msg: Any) -> None:
        """Route one message: the lobby answers its own, the rest go to the session's room.

        An answer that needs the shared data (names, rooms, the log) while it cannot be reached
        is ``unavailable``: nothing escapes to the transport, the connection stays."""
        try:
            await self._route(session, msg)
        except (StoreUnavailable, OSError, TimeoutError) as e:
            log.warning("unavailable", player=session.name, message=type(msg).__name__, error=str(e))
            raise ProtocolError("unavailable", UNAVAILABLE, getattr(msg, "id", None)) from None

    async def _route(self, session: Session, msg: Any) -> None:
        """One way for every message: its type's handler (a move's is the room's), after the
        checks every message passes (a name first; chat within its own limit)."""
        kind = type(msg)  # (looked up by type: isinstance() with pydantic's classes costs more)
        if session.name is None and kind not in _BEFORE_HELLO:
            raise _hello_first(getattr(msg, "id", None))
        if kind in _CHAT and not session.chat_bucket.take():
            self._strike(session)
            raise ProtocolError("rate_limited", _("Slow down: too much chat."), msg.id)
        if kind in _COMINGS and not session.comings_bucket.take():
            self._strike(session)
            raise ProtocolError("rate_limited", _("Slow down: too many comings and goings."), msg.id)
        if session.silenced and (kind in HUSHED or (kind is m.TournamentRequest and msg.action == "new")):
            self.moderation.hushed(session, msg.id)
        done = self._handlers.get(kind, self._to_room)(session, msg)
        if done is not None:
            await done

    async def _command(self, session: Session, msg: m.Command) -> None:
        """A typed command, sent as a message: routed as the message it stands for."""
        command = parse_command(msg.text, id=msg.id)
        if isinstance(command, Quit):  # the token is given up; the client closes the connection
            await self._quit(session)
        if command is None or isinstance(command, Quit | AsciiMode):  # for the line endpoint only
            session.send(m.Ack(id=msg.id))
            return
        await self._route(session, command)

    def _to_room(self, session: Session, msg: Any) -> None:
        """What the room answers (a move, chat, the game's commands): to the session's room; chat
        in the lobby to the lobby."""
        room = session.room
        if room is None and type(msg) is m.Say:
            self.social.lobby_chat(session, msg)
            return
        if room is None:
            raise ProtocolError(
                "not_in_room",
                _("Enter a room first: /room NAME, or /join NAME to play."),
                getattr(msg, "id", None),
            )
        room.post(session, msg)

    async def _show(self, session: Session, msg: ShowRequest) -> None:
        """``/help``, the account commands' lookups, and what the room shows (the board, the hand...)."""
        if msg.what == "help":
            session.send(m.Text(id=msg.id, kind="help", text=help_text(msg.topic)))
        elif msg.what in account_commands.SHOWN:
            await account_commands.show(self, session, msg)
        else:
            self._to_room(session, msg)

    # --- lobby commands ----------------------------------------------------------------------

    async def _hello(self, session: Session, msg: m.Hello) -> None:
        if session.name is not None:
            raise ProtocolError("already_welcome", _("You are already {name}.", name=session.name), msg.id)
        language.hello_language(session, msg)
        _still_accepting(self, msg.id)  # (connected just before the stop began, told ``bye`` already)
        # (a ban or a kick keeps the name out; a registered name's is told once it is shown to be theirs)
        admitted = await self.moderation.admit(session, msg.name, msg.id, proven=False)
        if msg.token:
            await self._resume(session, msg)
            return
        name = msg.name
        if not is_name(name):
            raise ProtocolError("bad_name", _("A name is {rule}.", rule=NAME_RULE), msg.id)
        login = await account_commands.login_identity(self, session, msg)
        if login is not None:  # the account's owner, named as the account spells it: like a resume
            await self._taken_back(session, login.name, login.identity, msg, verified=login.hash)
            return
        held = await self.directory.claim_name(name)  # (login_identity refused a reserved name)
        if held is not None:
            raise name_taken(name, held, msg.id)
        # a new guest: the tokens they resume with carry it on
        identity = secrets.token_hex(8)  # pragma: no mutate - only compared: any length
        token = secrets.token_hex(16)
        try:
            await self.store.token_issued(token, name, identity)
        except BaseException:  # (the store away: a hello again may claim the name at once)
            self.directory.unclaim(name)
            raise
        session.identity = identity
        admitted()
        await self._welcome(session, name, token, msg, resumed=False)
        await self.social.welcome(session, PersonalLists())  # (nothing is kept for a new identity)

    async def _resume(self, session: Session, msg: m.Hello) -> None:
        """Take a name (and its seat) back with its latest resume token. A token holds for the
        name it was issued for, while its connection is open, for the resume window after, and as
        long as a running game holds a seat for the name; a newer token revokes it."""
        assert msg.token is not None
        info = await self.store.token(msg.token)
        if info is None or info.name.casefold() != msg.name.casefold():
            raise self._unknown_token(session, msg.name, msg.id)
        name = info.name
        room = await self.directory.back_room(name)
        if (
            info.expires is not None
            and info.expires < time.time()  # pragma: no mutate - < and <= differ at an instant no socket hits
            and room is None
        ):
            security_event(self.metrics, "token_expired", player=name, peer=session.peer)
            raise ProtocolError(
                "bad_token", _("That resume token has expired; say hello without it."), msg.id
            )
        if info.identity.startswith(ACCOUNT) and await self.store.account(name) is None:
            # the records were restored from a backup older than the account: the token (kept
            # with what is live, in Redis) would log in to an account that is not there
            await self.store.token_revoked(msg.token)
            raise self._unknown_token(session, name, msg.id)
        await self._taken_back(session, name, info.identity, msg, room)  # pragma: no mutate - a lookup spared

    async def _account_holds(self, session: Session, name: str, msg: m.Hello, verified: str | None) -> None:
        """The account that a login or a resume takes back is still there, and a login's password
        still its password, now that nothing else here changes the name (its deletion, a new
        password, may have come while the password was hashed or the token read): else the hello
        is refused, before any token is issued (the name's own stays as it is)."""
        account = await self.store.account(name)
        if account is not None and verified in (None, account.hash):
            return
        if msg.token:
            raise self._unknown_token(session, name, msg.id)
        if account is None:
            raise account_commands.not_registered(name, msg.id)
        raise bad_password(name, msg.id)

    def _unknown_token(self, session: Session, name: str, msg_id: m.ClientId) -> ProtocolError:
        """The answer to a resume token that is not (or no longer) the name's, noted as a
        security event."""
        security_event(self.metrics, "token_refused", player=name, peer=session.peer)
        return ProtocolError("bad_token", _("That resume token is unknown; say hello without it."), msg_id)

    async def _taken_back(
        self,
        session: Session,
        name: str,
        identity: str,
        msg: m.Hello,
        room: RoomRef | None = None,
        verified: str | None = None,
    ) -> None:
        """``name`` comes back on this connection (a resume, or an account's login, ``verified``
        the password's hash it matched): an older connection of the name goes, and a seat held in
        a running game is taken back."""
        async with self.name_changes.hold(name.casefold()):
            await self._take_back(session, name, identity, msg, room, verified)

    async def _take_back(
        self,
        session: Session,
        name: str,
        identity: str,
        msg: m.Hello,
        room: RoomRef | None,
        verified: str | None,
    ) -> None:
        admitted = await self.moderation.admit(session, name, msg.id)  # (shown to be theirs now)
        if room is None:
            room = await self.directory.seat_room(name)
        # the name is theirs, its seat and connection too, but not a look-alike someone else holds
        held = await self.directory.claim_name(name, own=name)
        if held is not None:
            raise name_taken(name, held, msg.id)
        # what the player chose, read before anything changes (the store may be out of reach)
        lists = await self.social.lists_of(identity)
        if identity.startswith(ACCOUNT):
            await account_settings(self.store, session, name, msg)
        if identity.startswith(ACCOUNT):
            await self._account_holds(session, name, msg, verified)
        token = secrets.token_hex(16)
        # the one used is revoked, unless another resume with it came first (here or elsewhere)
        if not await self.store.token_issued(token, name, identity, replacing=msg.token or None):
            raise self._unknown_token(session, name, msg.id)
        old = self.directory.session(name)
        if old is not None:  # the same person on a new connection: the old one goes
            await self.seeks.ended_now(old)  # (its seek by name: gone before the new one may seek)
            self.detach_quietly(old)
            online = True
        else:  # (or, in a cluster, the one on another node)
            online = await self.directory.replaced(name)
        session.identity = identity
        admitted()
        await self._welcome(session, name, token, msg, resumed=msg.token is not None or room is not None)
        if session.name is not None and await self._revoked(token):
            # a newer connection of the name, through another node, took it as this one was
            # welcomed (its word that the old one goes came before there was one): this is the old one
            self._replaced(session, name)
        if session.name is None:  # (replaced, meanwhile or just now)
            return
        # their friends heard they came online with the connection replaced
        await self.social.welcome(session, lists, announce=not online)
        if room is not None:
            session.room = room
            room.post(session, Returned())
            self.directory.moved(session)  # (bound above, in the lobby)

    def replaced_elsewhere(self, name: str) -> None:
        """``name`` came back through another node: its connection here is the old one, and goes
        (the name is the new connection's there), unless its token still holds: then it is the
        newer one, and the word came late (a name taken back twice, through two nodes, in a moment)."""
        old = self.directory.session(name)
        if old is not None:
            self._background(self._replaced_unless_newer(old, name))

    async def _revoked(self, token: str) -> bool:
        """Whether ``token`` no longer holds (out of reach: not known, taken to hold)."""
        try:
            return await self.store.token(token) is None
        except StoreUnavailable:
            return False

    async def _replaced_unless_newer(self, old: Session, name: str) -> None:
        with contextlib.suppress(StoreUnavailable):  # (out of reach: it goes, as the word says)
            if old.token is not None and await self.store.token(old.token) is not None:
                return
        if self.directory.session(name) is old:
            self._replaced(old, name)

    def _replaced(self, old: Session, name: str) -> None:
        """``old``, the connection here of ``name``, is replaced by a newer one elsewhere."""
        self.directory.unbind(old, name)
        self.detach_quietly(old)

    def detach_quietly(self, old: Session) -> None:
        """Close an older connection of a name that reconnected."""
        self.seeks.ended(old)  # (while it has its name: the queue knows the seeker by it)
        if old.room is not None:
            old.room.post(old, Leave(disconnected=True, name=old.name, replaced=True))
            # (its detach then posts nothing: it reads the room only beside a name)
            old.room = None  # pragma: no mutate
        # the name stays bound to the old session until the new one takes it (its detach reads
        # the name only beside a room, which is gone)
        old.name = None  # pragma: no mutate
        # (a terminal reads a sentence; a program, the web page among them, a word as a kick's or
        # a ban's, the same in every language)
        reason = _("replaced by a new connection") if old.transport == "line" else "replaced"
        old.close_soon(Close.POLICY, reason)

    async def _welcome(self, session: Session, name: str, token: str, msg: m.Hello, *, resumed: bool) -> None:
        """Name the connection, and welcome it once every node lists it (a ``who``, a ``tell`` or
        a ``kick`` through another node finds it from then on)."""
        _still_accepting(self, msg.id)  # (the stop may have begun while a password was checked)
        session.name = name
        session.kind = msg.kind
        session.token = token
        self.directory.bind(session)
        await self.directory.published()
        log.info("hello", player=name, transport=session.transport, resumed=resumed, peer=session.peer)
        registered = account_commands.is_registered(session)
        session.send(m.Welcome(id=msg.id, name=name, token=token, resumed=resumed, registered=registered))
        self.moderation.welcomed(session)

    async def _nick(self, session: Session, msg: m.Nick) -> None:
        assert session.name is not None
        room = session.room
        if room is not None:
            raise ProtocolError("not_in_lobby", _("Change your name in the lobby: /leave first."), msg.id)
        if not is_name(msg.name):
            raise ProtocolError("bad_name", _("A name is {rule}.", rule=NAME_RULE), msg.id)
        await account_commands.check_not_playing(self, session, "nick", msg.id)
        await account_commands.check_nick(self, session, msg)
        admitted = await self.moderation.admit(session, msg.name, msg.id)  # (a new name sheds no silence)
        # (a name like one's own is one's own, unless someone else holds that very name)
        held = await self.directory.claim_name(msg.name, own=session.name)
        if held is not None:
            raise name_taken(msg.name, held, msg.id)
        identity = session.identity  # every named session has one
        assert identity is not None
        token = secrets.token_hex(16)  # logged first: if the log refuses, the name stays as it was
        try:
            await self.store.token_issued(token, msg.name, identity)
        except BaseException:  # (the store away: nothing changed, and the name is free again)
            self.directory.unclaim(msg.name)
            raise
        # (the queue knows the seeker by name: dropped before the rename, and before a new seek)
        await self.seeks.ended_now(session, told=True)
        if session.token is not None:
            await self.store.token_revoked(session.token)
        old = session.name
        self.directory.unbind(session, old)
        session.name = msg.name
        self.directory.bind(session)
        session.token = token
        admitted()
        await self.directory.published()  # (as at hello: every node knows the new name first)
        session.send(m.Welcome(id=msg.id, name=msg.name, token=token))
        log.info("renamed", player=msg.name, old=old)

    async def _list_rooms(self, session: Session, msg: m.ListRooms) -> None:
        if session.room is None:  # (watching from before the read: a change meanwhile is told after)
            self.directory.watch_rooms(session, None)
        rooms = listed(await self.directory.room_list())
        if session.room is None:
            self.directory.watch_rooms(session, rooms)
        session.send(m.Rooms(id=msg.id, rooms=rooms))
        # a long list costs what it is: one more message for each ROOMS_A_MESSAGE rooms in it
        session.bucket.spend(len(rooms) // ROOMS_A_MESSAGE)

    async def _as_shown(self, people: list[m.Person]) -> list[m.Person]:
        """``people`` with their ratings and the staff's roles, as ``who`` shows them."""
        return await self.moderation.marked(await profiles.with_ratings(self.store, people))

    async def _who(self, session: Session, msg: m.Who) -> None:
        people = seen_from(await self.directory.people(), here(session))
        session.send(m.WhoList(id=msg.id, people=await self._as_shown(people)))
        session.bucket.spend(len(people) // PEOPLE_A_MESSAGE)  # (as a long room list costs)

    async def _enter(self, session: Session, msg: m.EnterRoom | m.Watch) -> None:
        await self.enter_room(session, msg.room, join=False, msg_id=msg.id)

    async def _join(self, session: Session, msg: m.Join) -> None:
        if msg.room is None or (
            session.room is not None and session.room.name.casefold() == msg.room.casefold()
        ):
            if session.room is None:
                raise ProtocolError("not_in_room", _("Say which room: /join NAME."), msg.id)
            self._seat_ends_seek(session, msg.id)
            session.room.post(session, msg)
            return
        if msg.seat is not None:  # a seat is taken over where one watches the game
            raise ProtocolError(
                "not_in_room",
                _("Enter {room} first, then /join {seat}.", room=msg.room[:24], seat=msg.seat),
                msg.id,
            )
        await self.enter_room(session, msg.room, join=True, msg_id=msg.id)

    async def enter_room(self, session: Session, name: str, *, join: bool, msg_id: m.ClientId) -> None:
        if not is_room_name(name):
            raise ProtocolError("bad_room", _("A room name is {rule}.", rule=ROOM_RULE), msg_id)
        for _attempt in range(3):
            room = await self._room_named(session, name, msg_id)
            if session.room is room:
                if join:
                    self._seat_ends_seek(session, msg_id)
                room.post(session, Enter(join=join, id=msg_id))
                return
            if session.room is not None and session.room.name.casefold() == room.name.casefold():
                admitted = True  # in it already (in a cluster, by another reference to the same room)
            else:  # a private room lets in its guests and players; asked before anything changes
                door = await self.directory.admission(room, session)
                if door == "closed":
                    raise not_invited(room.name, msg_id)
                admitted = door == "guest"
            # a room of this node whose last member left while that was asked (in a cluster, of
            # Redis) has ended: what was posted to it would never be answered; the name is looked
            # up again (and opened again)
            if not isinstance(room, Room) or self.directory.rooms.get(name.casefold()) is room:
                break
        if join:
            self._seat_ends_seek(session, msg_id)
        if session.room is not None:
            session.room.post(session, Leave(disconnected=False, id=None, name=session.name, asked=False))
        session.room = room
        room.post(session, Enter(join=join, id=msg_id, admitted=admitted))
        self.directory.moved(session)

    async def _room_named(self, session: Session, name: str, msg_id: m.ClientId) -> RoomRef:
        """The room ``name``: this node's, one another node owns, or a new one."""
        room: RoomRef | None = self.directory.rooms.get(name.casefold())
        if room is not None:
            return room
        if session.silenced:  # a new room's name is read by all; entering one (here or on
            # another node of a cluster) is not refused
            there = {r.name.casefold() for r in await self.directory.room_list()}
            if name.casefold() not in there:
                self.moderation.hushed(session, msg_id)
        if len(self.directory.rooms) >= self.config.max_rooms and not await self.directory.make_way():
            raise ProtocolError("too_many_rooms", _("The server holds as many rooms as it can."), msg_id)
        return await self.directory.resolve(name)

    def _seat_ends_seek(self, session: Session, msg_id: m.ClientId) -> None:
        """A seat of one's own choosing ends seeking, once the room takes the ``join``
        (``msg_id``): a refused one changes nothing."""
        if session.seeking:
            session.ask_join(msg_id, lambda: self.seeks.ended(session, told=True))

    def _leave_room(self, session: Session, msg: m.LeaveRoom) -> None:
        room = session.room
        if room is None:
            raise ProtocolError("not_in_room", _("You are in the lobby."), msg.id)
        session.room = None
        # with its name now: a /nick right after may rename the session before the room reads it
        room.post(session, Leave(disconnected=False, id=msg.id, name=session.name))
        self.directory.moved(session)

    def _ping(self, session: Session, msg: m.Ping) -> None:
        session.send(m.Pong(id=msg.id))
