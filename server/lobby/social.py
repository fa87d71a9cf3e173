"""People among people: tells and replies, chat in the lobby, where someone is, and each person's
lists (whom they mute, who their friends are).

The lists belong to the player behind a connection, its ``identity`` (the same across resumes), and
live behind :class:`ListStore` (:class:`server.lobby.choices.StoredLists`): in the store, a registered
account's for good and a guest's as long as its name holds, each change kept before it is
acknowledged. Mutes are applied where a
message reaches its reader (``Session.muted``), so that chat from any room, the lobby and tells are
all filtered in one place, and the muted person is never told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Final, Protocol

import structlog

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import Msg, _
from protocol.limits import LIST_MAX
from protocol.names import alike, is_name
from server.directory import Directory
from server.directory.privacy import here, seen_from
from server.log.contract import StoreUnavailable
from server.session import Session

log = structlog.get_logger("cafe.social")

#: the actions that add a name to a list, and how each is refused when its list is full
_FULL: Final[dict[str, Msg]] = {
    "mute": _("Your mute list holds {n} names at most: /unmute one first.", n=LIST_MAX),
    "friend": _("Your friends list holds {n} names at most: /unfriend one first.", n=LIST_MAX),
}


@dataclass(slots=True)
class PersonalLists:
    """One person's lists: the muted by their names' look-alike forms (muting ``kim`` mutes
    ``K1M`` too), each with the name in lower case; friends by casefolded name, each with the name
    as it was typed."""

    muted: dict[str, str] = field(default_factory=dict)
    friends: dict[str, str] = field(default_factory=dict)


class Courier(Protocol):
    """What carries tells, invitations and friends' news to people connected elsewhere (other
    cluster nodes)."""

    async def tell(self, sender: Session, name: str, text: str) -> str | None:
        """Hand a tell to ``name`` elsewhere: their name as they spell it, or ``None`` when they
        are not connected elsewhere; raises ``StoreUnavailable`` when it cannot be handed on."""

    async def invite(self, sender: Session, name: str, room: str) -> str | None:
        """Hand an invitation to ``room`` to ``name`` elsewhere, as ``tell`` (their node puts
        them on the room's guest list: :meth:`Social.invited`)."""

    def news(self, name: str, text: str, skip: tuple[str, ...] = ()) -> None:
        """Tell the friends of ``name`` elsewhere ``text``, but those named in ``skip``."""

    def lobby_chat(self, name: str, text: str) -> None:
        """What ``name`` said in the lobby here, for everyone in the lobby elsewhere."""


class ListStore(Protocol):
    """Where each identity's lists are kept."""

    async def load(self, identity: str) -> PersonalLists:
        """The lists of ``identity`` as kept (empty for someone new); raises ``StoreUnavailable``
        when they cannot be read."""

    async def changed(self, identity: str, action: str, key: str, name: str) -> None:
        """Keep ``action`` (``mute``, ``unmute``, ``friend``, ``unfriend``) of ``name`` (casefolded:
        ``key``) before it is applied to the lists ``load`` gave; raises ``StoreUnavailable``
        when it cannot be kept."""

    async def save(self, identity: str, lists: PersonalLists) -> None:
        """``lists`` are ``identity``'s from now on (a guest's, who registered)."""

    async def forget(self, identity: str) -> None:
        """Nobody is ``identity`` any more (an account deleted, a guest who registered)."""


@dataclass(slots=True)
class _Person:
    """What the social side keeps of one named connection."""

    lists: PersonalLists
    #: the last person who told this one something, for /reply
    last_teller: str | None = None


async def _as_they_are(people: list[m.Person]) -> list[m.Person]:
    return people


class Social:
    """Tells, lobby chat, ``/whereis``, ``/friends`` and the lists, for the lobby."""

    def __init__(
        self,
        directory: Directory,
        store: ListStore,
        sessions: Callable[[], Iterable[Session]],
    ) -> None:
        self.directory = directory
        self.store = store
        self._sessions = sessions
        self._people: dict[Session, _Person] = {}
        #: the connections with a friend on their list: the only ones a friend's news may concern
        #: (so that a connection or a game start costs nothing for the many with no friends)
        self._with_friends: set[Session] = set()
        #: people connected elsewhere (a cluster's other nodes), when there is an elsewhere
        self.courier: Courier | None = None
        #: a ``who`` list with each registered person's rating, as ``/who`` shows it (the lobby
        #: looks the ratings up in its store)
        self.with_ratings: Callable[[list[m.Person]], Awaitable[list[m.Person]]] = _as_they_are
        #: the named connections of each player, so that a connection's end does not look at
        #: every other one (ten thousand going at once would cost a hundred million comparisons);
        #: a tuple, not a set: a player holds one or two, and a set takes 216 bytes a connection
        self._holders: dict[str, tuple[Session, ...]] = {}
        self._held_as: dict[Session, str] = {}
        #: invitations from elsewhere on their way to the guest lists
        self._inviting: set[asyncio.Task[None]] = set()

    # --- connections -----------------------------------------------------------------------------

    async def lists_of(self, identity: str) -> PersonalLists:
        """The lists of ``identity``: those its connections here hold, else the store's. Read
        before a returning player is welcomed, so that a store out of reach refuses the login
        while nothing has changed yet."""
        held = self._held(identity)
        return held if held is not None else await self.store.load(identity)

    def _held(self, identity: str) -> PersonalLists | None:
        """The lists that a connection of ``identity`` here holds, if one does."""
        holders = self._holders.get(identity)
        return self._people[holders[0]].lists if holders else None

    async def welcome(
        self, session: Session, lists: PersonalLists | None = None, *, announce: bool = True
    ) -> None:
        """A named connection with its lists (``lists`` as :meth:`lists_of` read them, or read
        now), and its friends told, with ``announce`` (not for a connection that replaces one
        still open: they were told of that one). All connections of a player share one copy."""
        assert session.name is not None and session.identity is not None
        if lists is None:
            lists = await self.lists_of(session.identity)
        # looked at after any wait for the store: another connection of the player may hold them now
        held = self._held(session.identity)
        if held is not None:
            lists = held
        self._people[session] = _Person(lists)
        self._count_under(session)
        if lists.friends:
            self._with_friends.add(session)
        session.muted = lists.muted
        if announce:
            self._tell_friends_of(session.name, _("Your friend {name} is online.", name=session.name))

    def gone(self, session: Session) -> None:
        """The connection ended (its lists stay in the store)."""
        self._with_friends.discard(session)
        self._count_under(session)
        identity = self._held_as.pop(session, None)
        if identity is not None:
            self._unhold(identity, session)
        self._people.pop(session, None)

    async def identity_changed(self, session: Session, old: str | None, *, keep: bool) -> None:
        """The player behind ``session`` is ``session.identity`` now, no longer ``old``: they
        registered (``keep``: their lists become the account's) or deleted their account (its
        lists go with it, and the next to register the name starts afresh)."""
        assert session.identity is not None
        self._count_under(session)
        person = self._people.get(session)
        if person is None:
            return
        if keep:
            await self.store.save(session.identity, person.lists)
        else:
            person.lists = PersonalLists()  # (a new identity: nothing is kept for it)
            session.muted = person.lists.muted
            self._with_friends.discard(session)
        if old is not None and old != session.identity:
            await self.store.forget(old)

    def _count_under(self, session: Session) -> None:
        """``session.identity`` may have changed (an account's login, a registration): the
        connection is counted under the new one."""
        if session not in self._people:
            return
        before, now = self._held_as.get(session), session.identity
        if before == now:
            return
        if before is not None:
            self._unhold(before, session)
        if now is None:
            self._held_as.pop(session, None)
        else:
            self._held_as[session] = now
            self._holders[now] = (*self._holders.get(now, ()), session)

    def _unhold(self, identity: str, session: Session) -> None:
        """``session`` no longer holds ``identity``."""
        holders = tuple(s for s in self._holders[identity] if s is not session)
        if holders:
            self._holders[identity] = holders
        else:
            del self._holders[identity]

    def game_started(self, room: str | None, players: list[str]) -> None:
        """Tell the friends of each player that their friend started a game (in which room, unless
        it is a private one: ``None``); not those who play in it themselves."""
        playing = tuple(players)
        for name in players:
            self._tell_friends_of(
                name,
                _("Your friend {name} started a game in room {room}: /watch {room}.", name=name, room=room)
                if room is not None
                else _("Your friend {name} started a game in a private room.", name=name),
                skip=playing,
            )

    def _tell_friends_of(self, name: str, text: str, *, skip: tuple[str, ...] = ()) -> None:
        if self.courier is not None:
            self.courier.news(name, text, skip)
        self.news(name, text, skip)

    def news(self, name: str, text: str, skip: tuple[str, ...] = ()) -> None:
        """Tell the friends of ``name`` connected here ``text``, but those named in ``skip``."""
        if not self._with_friends:  # most of the time: no message made for nobody
            return
        key = name.casefold()
        left_out = {n.casefold() for n in skip}
        notice = m.Notice(text=text)
        for other in list(self._with_friends):
            person = self._people.get(other)
            if person is None or key not in person.lists.friends or other.name == name:
                continue
            if other.name is None or other.name.casefold() not in left_out:
                other.send(notice)

    # --- talking ---------------------------------------------------------------------------------

    def lobby_chat(self, session: Session, msg: m.Say) -> None:
        """What someone in the lobby says reaches everyone in the lobby, on every node."""
        name = self._name(session)
        self.lobby_heard(name, msg.text)
        if self.courier is not None:
            self.courier.lobby_chat(name, msg.text)
        session.send(m.Ack(id=msg.id))

    def lobby_heard(self, name: str, text: str) -> None:
        """``name`` said ``text`` in the lobby (here, or on another node): everyone in the lobby
        here reads it (but those who mute ``name``: ``Session.send``)."""
        chat = m.Chat(room=None, name=name, text=text)
        for other in self._sessions():
            if other.room is None and other.name is not None:
                other.send(chat)

    async def tell(self, session: Session, msg: m.Tell | m.TellReply) -> None:
        """``/tell NAME TEXT`` and ``/reply TEXT``: to one person, wherever they are."""
        sender = self._name(session)
        if isinstance(msg, m.TellReply):
            name = self._people[session].last_teller if session in self._people else None
            if name is None:
                raise ProtocolError(
                    "no_reply", _("Nobody has told you anything yet: /tell NAME TEXT."), msg.id
                )
        else:
            name = msg.name
        if name.casefold() == sender.casefold():
            raise ProtocolError("bad_target", _("That is you; /tell someone else."), msg.id)
        target = self.directory.session(name)
        if target is None or target.name is None:
            to = None if self.courier is None else await self.courier.tell(session, name, msg.text)
            if to is None:
                await self._not_here(name, msg.id, here(session))
            assert to is not None
            session.send(m.TellMessage(id=msg.id, name=sender, to=to, text=msg.text))
            log.debug("tell", player=sender, to=to, relayed=True)
            return
        tell = self._deliver(target, sender, msg.text)
        session.send(tell.model_copy(update={"id": msg.id}))
        log.debug("tell", player=sender, to=target.name)

    def told(self, sender: str, to: str, text: str) -> bool:
        """A tell from ``sender`` connected elsewhere, for ``to``; ``False`` if nobody here is ``to``."""
        target = self.directory.session(to)
        if target is None or target.name is None:
            return False
        self._deliver(target, sender, text)
        return True

    def _deliver(self, target: Session, sender: str, text: str) -> m.TellMessage:
        """The tell reaches ``target`` (unless they mute ``sender``: then it is not even theirs to
        ``/reply`` to)."""
        assert target.name is not None
        tell = m.TellMessage(name=sender, to=target.name, text=text)
        target.send(tell)
        person = self._people.get(target)
        if person is not None and alike(sender) not in person.lists.muted:
            person.last_teller = sender
        return tell

    async def _not_here(self, name: str, msg_id: m.ClientId, asker: str | None = None) -> None:
        """Refuse a tell to ``name``, saying whether anyone has that name (and where their seat
        waits, unless in a private room ``asker``, where the asker is, is not)."""
        if any(p.name.casefold() == name.casefold() for p in await self.directory.people()):
            # connected to another node: tells do not travel between nodes
            raise ProtocolError(
                "unavailable",
                _("{name} is on another server node; tells cannot reach them.", name=name),
                msg_id,
            )
        room = await self.directory.seat_room(name) if is_name(name) else None
        if (
            room is not None
            and (asker or "").casefold() != room.name.casefold()
            and room.name.casefold() in await self.directory.private_rooms()
        ):
            raise ProtocolError(
                "not_connected",
                _("{name} is not connected; their seat in a private room waits for them.", name=name),
                msg_id,
            )
        if room is not None:
            raise ProtocolError(
                "not_connected",
                _(
                    "{name} is not connected; their seat in room {room} waits for them.",
                    name=name,
                    room=room.name,
                ),
                msg_id,
            )
        raise ProtocolError(
            "not_connected", _("Nobody is called {name}: no such name.", name=name[:24]), msg_id
        )

    async def whereis(self, session: Session, msg: m.WhereIs) -> None:
        """``/whereis NAME``: a ``who`` list of that one person."""
        key = msg.name.casefold()
        found = [p for p in await self.directory.people() if p.name.casefold() == key]
        if not found:
            await self._not_here(msg.name, msg.id, here(session))
        people = await self.with_ratings(seen_from(found, here(session)))
        session.send(m.WhoList(id=msg.id, people=people))

    async def invite(self, session: Session, msg: m.Invite) -> None:
        """``/invite NAME``: NAME is asked to the sender's room, wherever they are connected."""
        sender = self._name(session)
        room = session.room
        if room is None:
            raise ProtocolError(
                "not_in_room", _("Invite people to a room you are in: /room NAME first."), msg.id
            )
        if msg.name.casefold() == sender.casefold():
            raise ProtocolError("bad_target", _("You are here already."), msg.id)
        target = self.directory.session(msg.name)
        if target is not None and target.name is not None:
            await self._listed(room.name, target)  # a private room lets its guests in
            target.send(m.Invited(room=room.name, name=sender))  # (not to those who mute the sender)
        elif self.courier is None or await self.courier.invite(session, msg.name, room.name) is None:
            raise ProtocolError("not_connected", _("{name} is not connected.", name=msg.name[:24]), msg.id)
        session.send(m.Ack(id=msg.id))

    def invited(self, sender: str, to: str, room: str) -> bool:
        """An invitation from ``sender`` connected elsewhere; ``False`` if nobody here is ``to``.
        They are put on the guest list here, where who they are now is known (another node's
        list of people may still name the identity they had a moment ago, before a registration
        or an account deleted), and hear of it once they are on it."""
        target = self.directory.session(to)
        if target is None or target.name is None:
            return False
        task = asyncio.get_running_loop().create_task(self._invitation(sender, target, room))
        self._inviting.add(task)
        task.add_done_callback(self._inviting.discard)
        return True

    async def _invitation(self, sender: str, target: Session, room: str) -> None:
        try:
            await self._listed(room, target)
        except StoreUnavailable as e:  # (Redis away: an invitation they could not use is not shown)
            log.warning("invitation_unlisted", room=room, player=target.name, error=str(e))
            return
        target.send(m.Invited(room=room, name=sender))

    async def _listed(self, room: str, target: Session) -> None:
        """``target`` is on ``room``'s guest list as the player they are: should they become
        another (register, delete their account) while it is written, the invitation follows."""
        identity = target.identity
        if identity is None:
            return
        await self.directory.invite(room, identity)
        while target.identity is not None and target.identity != identity:
            old, identity = identity, target.identity
            await self.directory.identity_changed(old, identity)

    # --- lists -----------------------------------------------------------------------------------

    async def edit(self, session: Session, msg: m.ListEdit) -> None:
        """``/mute``, ``/unmute``, ``/friend``, ``/unfriend``."""
        me = self._name(session)
        if not is_name(msg.name):
            raise ProtocolError("bad_name", _("No one can have that name."), msg.id)
        if alike(msg.name) == alike(me):  # (a name that looks like one's own is one's own)
            raise ProtocolError("bad_target", _("You cannot {action} yourself.", action=msg.action), msg.id)
        person = self._people[session]
        lists = person.lists
        muting = msg.action in ("mute", "unmute")
        # a mute by the name's form, with the name in lower case; a friend by the casefolded name,
        # with the name as typed
        key, name = (alike(msg.name), msg.name.casefold()) if muting else (msg.name.casefold(), msg.name)
        full = _FULL.get(msg.action)
        listed = lists.muted if muting else lists.friends
        if full is not None and key not in listed and len(listed) >= LIST_MAX:
            raise ProtocolError("list_full", full, msg.id)
        assert session.identity is not None
        await self.store.changed(session.identity, msg.action, key, name)  # kept, then told
        if msg.action == "mute":
            lists.muted[key] = name
            text = _("You will not see what {name} says.", name=msg.name)
        elif msg.action == "unmute":
            lists.muted.pop(key, None)
            text = _("You see what {name} says again.", name=msg.name)
        elif msg.action == "friend":
            lists.friends[key] = msg.name
            text = _("{name} is one of your friends.", name=msg.name)
        else:
            text = (
                _("{name} is no longer on your friends list.", name=msg.name)
                if lists.friends.pop(key, None) is not None
                else _("{name} is not on your friends list.", name=msg.name)
            )
        if lists.friends:
            self._with_friends.add(session)
        else:
            self._with_friends.discard(session)
        session.send(m.Notice(text=text))
        session.send(m.Ack(id=msg.id))

    async def friends(self, session: Session, msg: m.GetFriends) -> None:
        """``/friends``: each friend, whether connected, and where; and whom the player mutes."""
        online = {p.name.casefold(): p for p in seen_from(await self.directory.people(), here(session))}
        listed = []
        for key, name in sorted(self._people[session].lists.friends.items()):
            found = online.get(key)
            listed.append(
                m.Friend(
                    name=found.name if found else name,
                    online=found is not None,
                    room=found.room if found else None,
                    private=found is not None and found.private,
                )
            )
        muted = sorted(self._people[session].lists.muted.values())
        session.send(m.Friends(id=msg.id, friends=listed, muted=muted))

    @staticmethod
    def _name(session: Session) -> str:
        assert session.name is not None
        return session.name


__all__ = ["Courier", "ListStore", "PersonalLists", "Social"]
