"""Messages between nodes: what a local member posts to a room owned elsewhere travels to the
owner, and what the owner's room sends a member on another node travels back (see
:mod:`server.cluster.envelopes` for the format)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Mapping
from typing import Any

import redis.asyncio as aioredis
import structlog
from pydantic import ValidationError
from redis.exceptions import RedisError

from protocol import messages as m
from protocol.commands import ShowRequest
from protocol.errors import UNAVAILABLE
from protocol.i18n import _, lang
from protocol.outgoing import ANSWER_START, Outgoing
from server.cluster import envelopes as env
from server.cluster.awaited import Awaited
from server.directory.roomlist import LOBBY_EVERY
from server.log.redis.batch import batched
from server.log.redis.keys import PREFIX
from server.room import Enter, Leave, Returned, Room
from server.session import Session

log = structlog.get_logger("cafe.cluster")

UNREACHABLE = UNAVAILABLE  # the same condition for the client: its answer cannot be had just now

#: envelopes published at most in one message (more go as several, in the same round trip)
BATCH = 256


def channel(node: str) -> str:
    return f"{PREFIX}to:{node}"


#: the channel every node listens to: news for the friends of someone
NEWS = f"{PREFIX}news"


#: seconds before such a question that reached nobody is asked again
ASK_AGAIN = 1.0

#: how the text of a patch and of a snapshot for a member begins
_PATCH = '{"seq":0,"type":"patch",'
_SNAPSHOT = '{"seq":0,"type":"snapshot",'

#: seconds a person here waits for the snapshot asked for after this node listened again before
#: it is asked for once more (the room's owner may itself have been listening again meanwhile)
RESYNC_AGAIN = 5.0


def _unread(sent: asyncio.Future[Any]) -> None:
    """A publish nobody waits for: its failure is only logged."""
    if not sent.cancelled() and (e := sent.exception()) is not None:
        log.info("rooms_changed_unsent", error=str(e) or type(e).__name__)


def _unavailable(msg_id: m.ClientId) -> m.Error:
    """The answer to a message whose own answer cannot be had: it was not, or may not have been,
    taken by its room."""
    return m.Error(id=msg_id, code="unavailable", message=UNREACHABLE)


class RemoteRoom:
    """A room owned by another node: what is posted to it travels to the owner.

    ``lease`` is the owner's lease token (``node:epoch``) when this reference was made; a new token
    means the room was taken up again, and its members must enter it anew."""

    def __init__(self, relay: Relay, name: str, lease: str) -> None:
        self.relay = relay
        self._name = name
        self.lease = lease

    @property
    def name(self) -> str:
        return self._name

    @property
    def owner(self) -> str:
        return self.lease.rsplit(":", 1)[0]

    def post(self, session: Session | None, message: Any) -> None:
        if session is not None:
            self.relay.forward(self, session, message)

    def reread(self, session: Session) -> None:
        self.relay.reread(self, session)


class RemoteSession(Session):
    """On the owner: a member connected to another node. What the room sends it goes there."""

    transport = "remote"

    def __init__(self, relay: Relay, node: str, sid: str, name: str, kind: str) -> None:
        super().__init__()
        self.relay = relay
        self.node = node
        self.sid = sid
        self.name = name
        self.kind = "bot" if kind == "bot" else "person"
        #: counts the messages to it that were lost: what was queued before a loss is not sent
        self.epoch = 0
        self._lost = False
        #: answers made while it waits for a snapshot: they follow the snapshot, as they followed
        #: the patches that were lost (its node waits for each one)
        self._held: list[str] = []

    def start(self) -> None:
        pass

    def send(self, message: m._ServerMessage | Outgoing) -> None:
        out = message if isinstance(message, Outgoing) else Outgoing(message)
        if not self.lang.english:  # its words in the member's language, as for a local session
            out = out.localized(self.lang)
        data = env.to_member(self.sid, out.json)
        # an answer changes no view, and its node waits for it: none is dropped
        answer = out.json.startswith(ANSWER_START)
        if self._lost:  # a patch after a lost one would not apply: a snapshot first
            if answer:
                self.hold(data)
                return
            if not isinstance(out.message, m.Snapshot):
                return
            self._lost = False
            self.relay.publish(self.node, data, member=(self, self.epoch))
            held, self._held = self._held, []
            for queued in held:
                self.relay.publish(self.node, queued, member=(self, None))
            return
        self.relay.publish(self.node, data, member=(self, None if answer else self.epoch))

    def hold(self, data: str) -> None:
        """An answer that did not reach its node: it goes again after the snapshot to come."""
        self._held.append(data)

    def lost(self) -> None:
        """A message to it could not be delivered, or may have been lost: nothing more goes until
        a fresh snapshot, which its room is asked for."""
        self.epoch += 1
        if not self._lost:
            self._lost = True
            if self.room is not None:
                self.room.post(self, m.Resync())


#: a message queued for another node: (node, envelope, sender, its message id, whether it answers
#: the sender's message, the member it is for and that member's epoch: ``None`` for an answer,
#: which goes whatever was lost before it)
_Queued = tuple[str, str, Session | None, m.ClientId, bool, tuple[RemoteSession, int | None] | None]


class Relay:
    """This node's end of the messages between nodes."""

    def __init__(self, redis: aioredis.Redis, node: str, rooms: Mapping[str, Room]) -> None:
        self.redis = redis
        #: what this node publishes goes with its other commands of the moment (its moves)
        self._batch = batched(redis)
        self.node = node
        self.rooms = rooms  # the rooms this node owns, by casefolded name
        self.local: dict[str, Session] = {}  # sid -> this node's sessions
        self.remote: dict[tuple[str, str], RemoteSession] = {}  # (node, sid) -> member from elsewhere
        #: what this node's connections wait for from rooms elsewhere
        self.awaited = Awaited()
        #: how the answer to this node's own question to a room begins (``resubscribed``)
        self._own_answer = f'{ANSWER_START}"{self.awaited.prefix}'
        #: casefolded names of rooms this node is taking up -> what came for them meanwhile (another
        #: node sees the lease before the room stands here, and forwards to it at once)
        self.arriving: dict[str, list[str | bytes]] = {}
        #: a tell from another node (sender, recipient, text) for a person here; ``False`` when
        #: nobody here has that name (set by whoever delivers tells: the social side)
        self.on_tell: Callable[[str, str, str], bool] = lambda name, to, text: False
        #: news from another node for the friends of someone (name, text)
        self.on_news: Callable[[str, str, tuple[str, ...]], None] = lambda name, text, skip: None
        #: an invitation from elsewhere: (from, to, room) -> whether ``to`` is here
        self.on_invite: Callable[[str, str, str], bool] = lambda name, to, room: False
        #: a table elsewhere for someone here: (to, room, game, players, identity) -> whether ``to`` is here
        self.on_seat: Callable[[str, str, str, tuple[str, ...], str | None], bool] = (
            lambda to, room, game, players, identity: False
        )
        #: a notice of the server's from elsewhere: (to, identity, text) -> whether ``to`` is here
        self.on_notice: Callable[[str, str | None, str], bool] = lambda to, identity, text: False
        #: a room elsewhere refused this node's connection (sid, room): it is in no room now
        self.on_turned_away: Callable[[str, str], None] = lambda sid, room: None
        #: a session put back in the room its ``leave_room`` reached no node of (``_stays``)
        self.on_stayed: Callable[[Session], None] = lambda session: None
        #: a staff action taken on another node, for this node's connections
        self.on_moderation: Callable[[env.Moderation], None] = lambda action: None
        #: a room of another node changed its line in the room list
        self.on_rooms_changed: Callable[[], None] = lambda: None
        #: someone said something in the lobby of another node (name, text)
        self.on_lobby_chat: Callable[[str, str], None] = lambda name, text: None
        #: a name came back through another node: its connection here, if any, is the old one
        self.on_replaced: Callable[[str], None] = lambda name: None
        #: what waits for the node's next round trip to Redis (:meth:`_gather`)
        self._outbox: list[_Queued] = []
        self._batch.gathers(self._gather)
        self._rooms_told: asyncio.TimerHandle | None = None
        #: this node's people in rooms elsewhere who wait for the snapshot asked for when this node
        #: listened again: sid -> when it was asked (the loop's clock); no patch reaches them
        #: until it comes
        self._resyncing: dict[str, float] = {}

    # --- sending -----------------------------------------------------------------------------------

    def forward(self, room: RemoteRoom, session: Session, message: Any, *, own: bool = False) -> None:
        """Send what a local session posts to a remote room to the room's owner. ``own``: this node
        posts it for the session (the client sent nothing), as it does every ``Returned``. (A
        message without an id may still be the client's: line clients send none.)"""
        sender = self._sender(room, session)
        envelope: env.ToRoom
        if isinstance(message, Enter):
            envelope = env.EnterRoom(
                **sender, join=message.join, id=message.id, admitted=message.admitted, asked=message.asked
            )
        elif isinstance(message, Leave):
            envelope = env.LeaveRoom(
                **sender,
                disconnected=message.disconnected,
                id=message.id,
                asked=message.asked,
                gone=message.gone,
                replaced=message.replaced,
                closed=message.closed,
            )
        elif isinstance(message, Returned):
            envelope = env.Returned(**sender)
        elif isinstance(message, ShowRequest):
            envelope = env.Show(**sender, what=message.what, topic=message.topic, id=message.id)
        else:  # a client message; the lobby posts nothing else to rooms
            envelope = env.Message(**sender, msg=message.model_dump_json())
        msg_id = getattr(message, "id", None)
        own = own or isinstance(message, Returned)
        if not own and not isinstance(message, m.Resync) and not getattr(message, "disconnected", False):
            self.awaited.sent(session.sid, msg_id)
        self.publish(room.owner, env.dump(envelope), session, msg_id, answers=not own)

    def rooms_changed(self) -> None:
        """A room of this node changed its line in the cluster's room list (written): the other
        nodes hear of it, at most once every ``LOBBY_EVERY`` seconds however many change."""
        if self._rooms_told is None:
            self._rooms_told = asyncio.get_running_loop().call_later(LOBBY_EVERY, self._tell_rooms)

    def _tell_rooms(self) -> None:
        self._rooms_told = None
        news = env.dump(env.RoomsChanged.model_validate({"from": self.node}))
        # (lost, it is only late: the other lobbies read the list again at the next change)
        self._batch.submit("PUBLISH", NEWS, news).add_done_callback(_unread)

    def reread(self, room: RemoteRoom, session: Session) -> None:
        """Tell the room's owner how ``session`` reads now; nothing is posted to the room."""
        envelope = env.Reread(**self._sender(room, session))
        self.publish(room.owner, env.dump(envelope), session, answers=False)

    def _sender(self, room: RemoteRoom, session: Session) -> dict[str, Any]:
        """Who sends to ``room``, as every envelope to a room says it."""
        return {
            "node": self.node,
            "sid": session.sid,
            "name": session.name,
            "kind": session.kind,
            "room": room.name,
            "identity": session.identity,
            "ascii": session.ascii_only,
            "lang": session.lang.code,
        }

    def publish(
        self,
        node: str,
        data: str,
        sender: Session | None = None,
        msg_id: m.ClientId = None,
        *,
        answers: bool = True,
        member: tuple[RemoteSession, int | None] | None = None,
    ) -> None:
        """Queue a message for another node; a sender hears ``unavailable`` if it cannot be
        delivered: an error answering its message, or a notice when it sent none (``answers``).
        A message ``member`` (the member and its epoch) lost makes that member resynchronise."""
        self._outbox.append((node, data, sender, msg_id, answers, member))
        self._batch.wake()

    def _gather(self) -> None:
        """Submit what is queued, just before the node's next round trip to Redis leaves: everything
        waiting for one node goes in one message (the envelopes one a line, in order), so the
        patches, events and answers of all the moves of a window for the members on another node
        cost one message, not one each."""
        queued, self._outbox = self._outbox, []
        by_node: dict[str, list[_Queued]] = {}
        for item in queued:
            member = item[5]
            if member is not None and member[1] not in (None, member[0].epoch):
                continue  # queued before a message to the same member was lost
            by_node.setdefault(item[0], []).append(item)
        for node, items in by_node.items():
            if not node:
                self._undelivered(items)
                continue
            for start in range(0, len(items), BATCH):
                part = items[start : start + BATCH]
                sent = self._batch.submit("PUBLISH", channel(node), "\n".join(item[1] for item in part))
                sent.add_done_callback(functools.partial(self._published, part))

    def _published(self, items: list[_Queued], sent: asyncio.Future[tuple[Any, int]]) -> None:
        """Redis answered the message of ``items``: how many nodes it reached."""
        try:
            delivered = int(sent.result()[0]) > 0
        except (RedisError, OSError, TimeoutError, asyncio.CancelledError):
            self._undelivered(items, surely=False)  # (Redis may have passed it on before it failed)
            return
        if not delivered:
            self._undelivered(items)

    def _undelivered(self, items: list[_Queued], *, surely: bool = True) -> None:
        """What could not reach its node: a member it was for resynchronises, a sender hears
        ``unavailable``; ``surely``: it reached nobody (no node listens there)."""
        for _node, data, sender, msg_id, answers, member in items:
            if member is not None:
                member[0].lost()
                if member[1] is None:  # an answer, which its node waits for
                    member[0].hold(data)
            if sender is None:
                continue
            if self.awaited.asked(msg_id):
                # this node's question to the room: asked again in a moment, while it is the latest
                asyncio.get_running_loop().call_later(ASK_AGAIN, self._ask_again, sender, msg_id)
            elif answers:
                self.awaited.unwait(sender.sid, msg_id)
                if surely:
                    self._stays(sender, data)
                sender.send(_unavailable(msg_id))
            elif not self._enter_again(sender, data):
                sender.send(m.Notice(text=UNREACHABLE))

    def _stays(self, sender: Session, data: str) -> None:
        """A ``leave_room`` that reached no node changed nothing, as its answer (``unavailable``)
        says, but the lobby took the sender out of the room as it sent it: they are put back (the
        watcher finds the room's owner), so that asking again leaves the room. (The room's node
        died: the room moves to another, which must hand their seat to a bot.)"""
        if sender.room is not None or sender.closed:  # (elsewhere since, or gone)
            return
        envelope = env.parse(data)
        if isinstance(envelope, env.LeaveRoom) and envelope.asked and not envelope.disconnected:
            sender.room = RemoteRoom(self, envelope.room, "")
            self.on_stayed(sender)

    def _enter_again(self, sender: Session, data: str) -> bool:
        """Whether what did not (or may not) reach the room was this node's own entry of ``sender``
        into it (back in a room that moved, or seated there): the room would never know them, and
        answer each of their messages ``unavailable``. They are put back to the room's owner to be
        found: the watcher looks it up again in a moment and enters them anew, which a room they
        are in already takes as it came. The client, who asked for nothing, hears nothing."""
        envelope = env.parse(data)
        if not isinstance(envelope, env.Returned | env.EnterRoom) or getattr(envelope, "asked", False):
            return False
        room = sender.room
        if isinstance(room, RemoteRoom) and room.name.casefold() == envelope.room.casefold() and room.lease:
            sender.room = RemoteRoom(self, envelope.room, "")
        return True

    def _ask_again(self, session: Session, question: str) -> None:
        """This node's question to ``session``'s room reached nobody: asked again, unless a later
        one was asked meanwhile, the room moved or the connection is gone."""
        if self.awaited.latest(session.sid, question) and isinstance(session.room, RemoteRoom):
            self.forward(session.room, session, m.GetLegalMoves(id=question), own=True)

    def orphaned(self, session: Session) -> None:
        """``session``'s room moved: what was forwarded to its old owner and not answered never
        will be (the owner died with it). Each such message is answered ``unavailable`` now, so
        the client sends it again."""
        for msg_id in self.awaited.drop(session.sid):
            session.send(_unavailable(msg_id))

    def detach(self, sid: str) -> None:
        """The connection ``sid`` of this node is gone: nothing waits for its answers any more."""
        self.local.pop(sid, None)
        self.awaited.drop(sid)
        self._resyncing.pop(sid, None)

    def _caught_up(self, session: Session, answer: str) -> None:
        """The answer to this node's question to ``session``'s room (``resubscribed``): the room
        answers in order, so what ``session`` sent before the question and is still unanswered
        never will be. Each such message is answered ``unavailable``; an older question's answer
        says nothing more."""
        start = len(ANSWER_START) + 1
        question = answer[start : answer.index('"', start)]
        for msg_id in self.awaited.caught_up(session.sid, question):
            session.send(_unavailable(msg_id))

    def resubscribed(self) -> None:
        """This node listens again: what any node sent it while Redis was away may be lost
        without a word to the sender (Redis took it, and died before passing it on). So its people
        in rooms elsewhere ask for a fresh snapshot, and the members from elsewhere in its own rooms
        get one, with the answers that did not reach them after it; the snapshots of whichever node
        listens last reach the other, which listens already.

        A message of its people forwarded and not answered may be lost, or its answer may be; or
        its room may have it still, and take it later. So this node asks the room a question of
        its own (``legal_moves``, with an id only it knows, whose answer the client is not shown):
        the room answers in order, so what is still unanswered when that answer comes never will
        be, and is answered ``unavailable`` then (``_caught_up``).

        Meanwhile a patch Redis passes on may follow one it lost: until the snapshot asked for
        comes, none reaches the person (``_to_member``)."""
        now = asyncio.get_running_loop().time()
        for session in list(self.local.values()):
            room = session.room
            if not isinstance(room, RemoteRoom) or not room.lease:  # "": being found
                continue
            self._resyncing[session.sid] = now
            self.forward(room, session, m.Resync(), own=True)
            if question := self.awaited.ask(session.sid):
                self.forward(room, session, m.GetLegalMoves(id=question), own=True)
        for member in list(self.remote.values()):
            member.lost()

    # --- receiving -------------------------------------------------------------------------------

    async def listen(self, subscribed: Callable[[], None]) -> None:
        """Receive what other nodes send this one, until cancelled or Redis goes away.

        ``subscribed`` is called each time Redis confirms this node's channel, after which this
        node catches up (:meth:`resubscribed`). That is not only once: when its connection drops
        (a Redis restart), redis-py connects again and subscribes anew by itself, without a word
        to the caller but that confirmation."""
        pubsub = self.redis.pubsub()
        mine = channel(self.node)
        try:
            async with asyncio.timeout(5):
                await pubsub.subscribe(mine, NEWS)
            while True:
                message = await pubsub.get_message(timeout=1.0)
                if message is None:
                    continue
                if message["type"] == "message":
                    self.receive(message["data"])
                elif message["type"] == "subscribe" and message["channel"] == mine:
                    log.info("subscribed", node=self.node)
                    self.resubscribed()
                    subscribed()
        finally:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # untyped in older redis-py

    def receive(self, data: str | bytes) -> None:
        """Handle what one message from another node holds: one envelope a line."""
        text = data.decode() if isinstance(data, bytes) else data
        for line in text.split("\n"):
            try:
                self._receive(line)
            except Exception:  # one envelope's failure is its own: the lines after it are handled
                log.exception("bad_envelope", data=line[:200])

    def _to_member(self, sid: str, json_text: str) -> None:
        """Hand a member connected here the message its room's node wrote for it."""
        session = self.local.get(sid)
        if session is not None:
            if json_text.startswith(ANSWER_START):
                if json_text.startswith(self._own_answer):
                    self._caught_up(session, json_text)
                    return
                self.awaited.answered(sid)
            elif sid in self._resyncing and not self._resynced(session, json_text):
                return
            session.send(Outgoing.from_json(json_text))

    def _resynced(self, session: Session, json_text: str) -> bool:
        """Whether a message for ``session``, which waits for a snapshot since this node listened
        again, may reach it: the snapshot, and anything but a patch (a patch may follow one that
        was lost). Should the snapshot be long in coming, it is asked for again."""
        if json_text.startswith(_SNAPSHOT):
            del self._resyncing[session.sid]
            return True
        if not json_text.startswith(_PATCH):
            return True
        now = asyncio.get_running_loop().time()
        if now - self._resyncing[session.sid] > RESYNC_AGAIN and isinstance(session.room, RemoteRoom):
            self._resyncing[session.sid] = now
            self.forward(session.room, session, m.Resync(), own=True)
        return False

    def _receive(self, data: str | bytes) -> None:
        """Handle one envelope; a malformed one is logged and dropped."""
        if isinstance(data, str) and (out := env.member_text(data)) is not None:
            self._to_member(*out)  # a message for a member here: most of what comes, read quickly
            return
        try:
            envelope = env.parse(data)
            if isinstance(envelope, env.ToMember):
                self._to_member(envelope.sid, envelope.json_text)
                return
            if isinstance(envelope, env.SeatAt):
                self.on_seat(
                    envelope.to, envelope.room, envelope.game, tuple(envelope.players), envelope.identity
                )
                return
            if isinstance(envelope, env.NoticeTo):
                self.on_notice(envelope.to, envelope.identity, envelope.words())
                return
            if isinstance(envelope, env.TellTo | env.InviteTo | env.News):
                self._to_person(envelope)
                return
            if isinstance(envelope, env.TurnedAway):
                self.on_turned_away(envelope.sid, envelope.room)
                return
            if isinstance(envelope, env.Moderation):
                if envelope.node != self.node:  # this node did it to its own people already
                    self.on_moderation(envelope)
                return
            if isinstance(envelope, env.RoomsChanged):
                if envelope.node != self.node:
                    self.on_rooms_changed()
                return
            if isinstance(envelope, env.LobbyChat):
                if envelope.node != self.node:  # this node's lobby read it already
                    self.on_lobby_chat(envelope.name, envelope.text)
                return
            if isinstance(envelope, env.Replaced):
                if envelope.node != self.node:
                    self.on_replaced(envelope.name)
                return
            message = self._inbox_item(envelope)
        except ValidationError as e:
            problems = e.errors(include_url=False, include_context=False, include_input=False)[:3]
            log.warning("bad_envelope", node=self.node, error=problems, size=len(data))
            return
        if (waiting := self.arriving.get(envelope.room.casefold())) is not None:
            waiting.append(data)  # handled, in order, once the room stands
            return
        room = self.rooms.get(envelope.room.casefold())
        key = (envelope.node, envelope.sid)
        if isinstance(envelope, env.Reread) and key not in self.remote:
            return  # not a member here (any more): it enters anew, saying how it reads
        if room is None or (key not in self.remote and isinstance(envelope, env.Message)):
            # Not ours (any more): the sender's watcher will find the owner. Or from a member this
            # room has not seen enter: the room came back here (after a restart, or from another
            # node) and the member's node has not entered it again yet; the room would take it for
            # a stranger (a move refused as a spectator's), so it is not taken either.
            if message is not None and isinstance(envelope, env.Message):  # every message is answered
                sender = RemoteSession(self, envelope.node, envelope.sid, envelope.name, envelope.kind)
                sender.lang = lang(envelope.lang)
                item = message(sender)
                if not isinstance(item, m.Resync):  # (its node's own resync: it enters anew)
                    msg_id = getattr(item, "id", None)  # (none from a line client)
                    sender.send(_unavailable(msg_id))
            return
        member = self.remote.get(key)
        if member is None:
            member = self.remote[key] = RemoteSession(
                self, envelope.node, envelope.sid, envelope.name, envelope.kind
            )
        # as the member is now: a login or /register changes who plays, /ascii and /lang how they read
        member.identity = envelope.identity
        member.ascii_only = envelope.ascii
        member.lang = lang(envelope.lang)
        member.room = room
        if isinstance(envelope, env.LeaveRoom):
            self.remote.pop(key, None)
        if message is not None:  # (a reread only brings the member up to date)
            room.post(member, message(member))

    def _to_person(self, envelope: env.TellTo | env.InviteTo | env.News) -> None:
        """A tell or an invitation for someone here, or news for the friends of someone elsewhere."""
        if isinstance(envelope, env.News):
            if envelope.node != self.node:  # this node told its own people already
                self.on_news(envelope.name, envelope.words(), tuple(envelope.skip))
            return
        if isinstance(envelope, env.InviteTo):
            if not self.on_invite(envelope.name, envelope.to, envelope.room):
                gone = m.Notice(text=_("{name} left before your invitation reached them.", name=envelope.to))
                self.publish(envelope.node, env.to_member(envelope.sid, Outgoing(gone).json))
            return
        if not self.on_tell(envelope.name, envelope.to, envelope.text):
            # gone between the sender's look-up and now: the sender had its echo, so it is told
            gone = m.Notice(text=_("{name} left before your tell reached them.", name=envelope.to))
            self.publish(envelope.node, env.to_member(envelope.sid, Outgoing(gone).json))

    def expect(self, key: str) -> None:
        """This node took the lease of room ``key``: what comes for it waits until ``arrived``."""
        self.arriving[key] = []

    def arrived(self, key: str) -> None:
        """Room ``key`` stands here (or could not be taken up): hand it what waited, in order."""
        for data in self.arriving.pop(key, ()):
            self._receive(data)

    @staticmethod
    def _inbox_item(envelope: env.ToRoom) -> Callable[[RemoteSession], Any] | None:
        """What the room's inbox gets for ``envelope``, given the member it comes from (the client
        message is validated here, so a bad one is dropped before any member is made); nothing for
        a reread."""
        if isinstance(envelope, env.Reread):
            return None
        if isinstance(envelope, env.EnterRoom):
            return lambda member: Enter(
                join=envelope.join, id=envelope.id, admitted=envelope.admitted, asked=envelope.asked
            )
        if isinstance(envelope, env.LeaveRoom):
            return lambda member: Leave(
                disconnected=envelope.disconnected,
                id=envelope.id,
                asked=envelope.asked,
                gone=envelope.gone,
                replaced=envelope.replaced,
                closed=envelope.closed,
            )
        if isinstance(envelope, env.Returned):
            return lambda member: Returned()
        if isinstance(envelope, env.Show):
            request = ShowRequest(what=envelope.what, topic=envelope.topic, id=envelope.id)
            return lambda member: request
        message = m.CLIENT_ADAPTER.validate_json(envelope.msg)
        return lambda member: message
