"""The lobby's account and rating commands: ``register``, ``password``, ``unregister``, logging in
with ``hello``, and ``/rating``, ``/top``, ``/finger``, ``/history NAME``.

The lobby calls these from its dispatch; the decisions are :mod:`server.lobby.accounts`' and
:mod:`server.ratings`', the text is :mod:`server.lobby.profiles`'.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final, NamedTuple, Protocol

from protocol import messages as m
from protocol.commands import AskSecret, ShowRequest
from protocol.errors import UNAVAILABLE, ProtocolError
from protocol.i18n import Msg, _
from protocol.names import ReservedNames
from server.directory import Directory
from server.directory.names import name_taken
from server.directory.privacy import Reader
from server.lobby import profiles
from server.lobby.accounts import Accounts, looks_registered
from server.lobby.language import set_language
from server.lobby.sanctions import Enforcer
from server.lobby.social import Social
from server.log.contract import GameLog
from server.metrics import Metrics
from server.ratelimit import AddressBuckets
from server.ratings import account_key
from server.session import Session
from server.tasks import OneAtATime

#: the identity of a token issued to nobody: it revokes the name's last one (an account deleted
#: as a login through another node took its name: that login's)
GONE = "gone"


class Lobby(Protocol):
    """What these commands use of the lobby (which imports them: they know it only by this)."""

    @property
    def accounts(self) -> Accounts: ...
    @property
    def store(self) -> GameLog: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def social(self) -> Social: ...
    @property
    def directory(self) -> Directory: ...
    @property
    def reserved(self) -> ReservedNames: ...
    @property
    def tournaments(self) -> Entered | None: ...
    @property
    def seeks(self) -> Ended: ...
    @property
    def analyses(self) -> Followed: ...
    @property
    def reading(self) -> AddressBuckets: ...
    @property
    def name_changes(self) -> OneAtATime: ...


class Entered(Protocol):
    """The tournaments, as far as these commands ask about them."""

    async def entered(self, name: str, identity: str | None) -> str | None: ...
    async def creator_changed(self, old: str, new: str) -> None: ...


class Followed(Protocol):
    """The analyses asked for, as far as they follow the person who asked."""

    def identity_changed(self, old: str, new: str) -> None: ...


class Ended(Protocol):
    """The queue of quick pairing, as far as these commands end a seek."""

    def ended(self, session: Session, name: str | None = None, *, told: bool = False) -> None: ...

    async def ended_now(self, session: Session, *, told: bool = False) -> None: ...


def is_registered(session: Session) -> bool:
    return session.registered


def check_reserved(lobby: Lobby, name: str, msg_id: m.ClientId) -> None:
    """``name_reserved`` for a name kept for the server and its bots (or one that looks like it)."""
    if name in lobby.reserved:
        text = _("{name} is kept for the server and its bots; choose another name.", name=name)
        raise ProtocolError("name_reserved", text, msg_id)


async def check_alike(lobby: Lobby, name: str, msg_id: m.ClientId) -> None:
    """A guest's new name: not a reserved one, nor one that looks like a registered name."""
    check_reserved(lobby, name, msg_id)
    other = await lobby.accounts.registered_alike(name)
    if other is not None:
        raise looks_registered(name, other, msg_id)


class Login(NamedTuple):
    """An account's login: its identity, and its name as the account spells it (``Anna``, whoever
    typed ``anna``)."""

    identity: str
    name: str
    #: the stored hash the password matched
    hash: str


def not_registered(name: str, msg_id: m.ClientId) -> ProtocolError:
    """The answer to a login with a password for a name no account holds."""
    return ProtocolError(
        "not_registered", _("{name} is not registered; say hello without a password.", name=name), msg_id
    )


async def login_identity(lobby: Lobby, session: Session, msg: m.Hello) -> Login | None:
    """The login of a ``hello`` without a token: the account's for a registered name with its
    password, ``None`` for a guest. A guest cannot take a registered name, one that looks like
    it, or a reserved one."""
    registered = await lobby.accounts.is_registered(msg.name)
    if not registered:
        await check_alike(lobby, msg.name, msg.id)
        if msg.password is not None:
            raise not_registered(msg.name, msg.id)
        return None
    if msg.password is None:
        raise ProtocolError(
            "name_registered",
            _("{name} is a registered name: give its password, or choose another name.", name=msg.name),
            msg.id,
        )
    try:
        account = await lobby.accounts.login(msg.name, msg.password, session.address, msg.id)
    except ProtocolError as e:
        lobby.metrics.logins.labels(result=e.code).inc()
        raise
    lobby.metrics.logins.labels(result="ok").inc()
    # (the account's settings are read as it is welcomed: server.lobby.choices)
    return Login(account_key(account.name), account.name, account.hash)


async def check_nick(lobby: Lobby, session: Session, msg: m.Nick) -> None:
    """An account keeps its name, and a guest cannot take a registered one, one that looks like
    it, or a reserved one."""
    assert session.name is not None
    if is_registered(session) and msg.name.casefold() != session.name.casefold():
        raise ProtocolError(
            "name_registered", _("{name} is your account's name; it stays.", name=session.name), msg.id
        )
    if not is_registered(session) and await lobby.accounts.is_registered(msg.name):
        raise ProtocolError("name_registered", _("{name} is a registered name.", name=msg.name), msg.id)
    if not is_registered(session):
        await check_alike(lobby, msg.name, msg.id)


async def check_secret_asked(lobby: Lobby, session: Session, what: str, msg_id: m.ClientId = None) -> None:
    """Refuse at once what ``/register``, ``/password`` or ``/unregister`` (``what``) would ask
    passwords for in vain: a second registration, a guest's password or unregistering, and a
    registration or unregistering while the player is in a game or a tournament; a registration
    while silenced (an account would shed the silence its guest's address holds)."""
    if what == "register":
        Enforcer.hushed(session, msg_id)
    if what == "register" and is_registered(session):
        raise ProtocolError("name_registered", _("{name} is already registered.", name=session.name), msg_id)
    if what == "password" and not is_registered(session):
        raise ProtocolError(
            "not_registered", _("Only a registered name has a password: /register first."), msg_id
        )
    if what == "unregister" and not is_registered(session):
        raise ProtocolError("not_registered", _("You are playing as a guest: nothing to unregister."), msg_id)
    if what in ("register", "unregister"):
        await check_not_playing(lobby, session, what, msg_id)


#: what ``check_not_playing`` refuses, by the command: while in a game's seat, while in a tournament
_PLAYING: Final[dict[str, tuple[Msg, Msg]]] = {
    "nick": (
        _("You have a seat in the game in room {room}: change your name once it is over."),
        _("You are in tournament {name}: change your name once it is over, or leave it first."),
    ),
    "register": (
        _("You have a seat in the game in room {room}: register once it is over."),
        _("You are in tournament {name}: register once it is over, or leave it first."),
    ),
    "unregister": (
        _("You have a seat in the game in room {room}: delete your account once it is over."),
        _("You are in tournament {name}: delete your account once it is over, or leave it first."),
    ),
}


async def check_not_playing(lobby: Lobby, session: Session, what: str, msg_id: m.ClientId) -> None:
    """``already_playing`` while the player holds a seat in a running game or is in an upcoming or
    running tournament: a game and a tournament know their players by name (a new name would
    lose them), and whether a game is rated by who its players were as it began (a registration
    then would rate a game the server helped in as a guest's, or unrate one it refused help in)."""
    assert session.name is not None
    in_game, in_tournament = _PLAYING[what]
    seat = await lobby.directory.seat_room(session.name)
    if seat is not None:
        raise ProtocolError("already_playing", Msg(in_game.msgid, {"room": seat.name}), msg_id)
    entered = (
        None if lobby.tournaments is None else await lobby.tournaments.entered(session.name, session.identity)
    )
    if entered is not None:
        raise ProtocolError("already_playing", Msg(in_tournament.msgid, {"name": entered}), msg_id)


def _still(
    lobby: Lobby, session: Session, name: str, what: str, msg_id: m.ClientId
) -> Callable[[], Awaitable[None]]:
    """What ``what`` (``register``, ``password``, ``unregister``) asks again once the password is
    hashed, before anything is written: the connection still holds ``name`` (a resume through
    another connection meanwhile closed this one: ``unavailable``, nothing changes), and for a
    registration or a deletion, its player still plays in no game or tournament (a game that
    started meanwhile is rated by who its players were as it began)."""

    async def still() -> None:
        if session.closed or session.name != name:
            raise ProtocolError("unavailable", UNAVAILABLE, msg_id)
        if what in _PLAYING:
            await check_not_playing(lobby, session, what, msg_id)

    return still


async def _register(lobby: Lobby, session: Session, msg: m.Register) -> None:
    assert session.name is not None
    await check_secret_asked(lobby, session, "register", msg.id)
    check_reserved(lobby, session.name, msg.id)
    held = await lobby.directory.claim_name(session.name, own=session.name)  # (a look-alike of another's)
    if held is not None:
        raise name_taken(session.name, held, msg.id)
    hashed = _still(lobby, session, session.name, "register", msg.id)
    identity = await lobby.accounts.register(
        session.name, msg.password, session.identity, session.address, msg.id, hashed
    )
    lobby.metrics.registrations.inc()
    await _new_identity(lobby, session, identity, keep=True)
    name = session.name
    notice = _("{name} is registered: the name is yours, and each login asks for its password.", name=name)
    session.send(m.Notice(text=notice))
    session.send(m.Welcome(id=msg.id, name=name, token=session.token or "", registered=True))


async def _password(lobby: Lobby, session: Session, msg: m.ChangePassword) -> None:
    """A new password, and a new resume token with it: a token someone else took (the reason to
    change a password) brings them in no more."""
    assert session.name is not None and session.identity is not None
    await check_secret_asked(lobby, session, "password", msg.id)
    hashed = _still(lobby, session, session.name, "password", msg.id)
    await lobby.accounts.change_password(session.name, msg.old, msg.new, session.address, msg.id, hashed)
    token = await _new_token(lobby, session)
    session.send(m.Notice(text=_("Your password is changed.")))
    session.send(m.Welcome(id=None, name=session.name, token=token, registered=True))
    session.send(m.Ack(id=msg.id))


async def _unregister(lobby: Lobby, session: Session, msg: m.Unregister) -> None:
    assert session.name is not None
    await check_secret_asked(lobby, session, "unregister", msg.id)
    name = session.name

    async def role_ends() -> None:
        """The role goes with the account: a role change, in the moderation log before it."""
        await lobby.store.modlog_appended(name, "role:none", name, "account deleted")
        lobby.metrics.moderation_actions.labels(action="role:none").inc()

    staff = await lobby.store.role(name) is not None
    await lobby.accounts.unregister(
        name,
        msg.password,
        session.address,
        msg.id,
        role_ends if staff else None,
        _still(lobby, session, name, "unregister", msg.id),
    )
    if session.name != name:
        # replaced as the account went, by a login through another node: that connection holds
        # a name whose account is gone, and goes too (this one closes as replaced). Its token is
        # revoked first by one nobody is given, so that the word is not taken for a late one
        await lobby.store.token_issued(secrets.token_hex(16), name, GONE)
        await lobby.directory.replaced(name)
        return
    await _new_identity(lobby, session, secrets.token_hex(8), keep=False)
    session.send(m.Notice(text=_("The account {name} is deleted; you play on as a guest.", name=name)))
    session.send(m.Welcome(id=msg.id, name=name, token=session.token or "", registered=False))


async def _new_token(lobby: Lobby, session: Session) -> str:
    """A new resume token for the connection, for the player it is now (the name's earlier one is
    revoked): the token."""
    if session.name is None or session.identity is None:  # (replaced through another node meanwhile)
        raise ProtocolError("unavailable", UNAVAILABLE, None)
    token = session.token = secrets.token_hex(16)
    await lobby.store.token_issued(token, session.name, session.identity)
    # the name is this connection's: one elsewhere that took it as this changed is the old one
    await lobby.directory.replaced(session.name)
    return token


async def _new_identity(lobby: Lobby, session: Session, identity: str, *, keep: bool) -> None:
    """The connection's player is now ``identity``: a new token carries it (the old is revoked),
    and their lists go with them (``keep``) or are gone with the old identity."""
    assert session.name is not None
    old, session.identity = session.identity, identity
    if old is not None:  # (at once: an analysis ready meanwhile is told to the person as they are)
        lobby.analyses.identity_changed(old, identity)
    await _new_token(lobby, session)
    await lobby.social.identity_changed(session, old, keep=keep)
    if old is not None:  # (invitations, tournaments made and analyses asked for belong to the
        # person, whatever their lists)
        await lobby.directory.identity_changed(old, identity)
        if lobby.tournaments is not None:
            await lobby.tournaments.creator_changed(old, identity)
    # (a seek is its player's, as they were: rated or not, rated as whom; dropped before the
    # next message, which may be a new seek)
    await lobby.seeks.ended_now(session, told=True)
    lobby.directory.moved(session)  # (its line says whose it is: a guest's or an account's)


def _ask_secret(lobby: Lobby, session: Session, msg: AskSecret) -> None:
    """A bare ``/register``, ``/password`` or ``/unregister`` from a client that is no terminal
    (nothing here asks for a password with the echo off): how to give the passwords at once."""
    match msg.what:
        case "register":
            how = _("Type /register PASSWORD PASSWORD: the new password, twice.")
        case "password":
            how = _("Type /password OLD NEW NEW: your password, then the new one twice.")
        case _:
            how = _("Type /unregister PASSWORD: your password.")
    raise ProtocolError("bad_arguments", how, msg.id)


async def show(lobby: Lobby, session: Session, msg: ShowRequest) -> None:
    """Answer ``/history [NAME]``, ``/rating [NAME]``, ``/top [N]`` and ``/finger NAME``. A list of
    games (``/history``, ``/finger``) reads the store for milliseconds (a player with thousands
    of games): it counts as ``RECORDS_COST`` messages against the connection's rate."""
    if msg.what in ("history", "finger"):
        session.bucket.spend(RECORDS_COST - 1)
        # and against its address's reading, which its other connections and the API share
        if not lobby.reading.of(session.address).take_costly(RECORDS_COST):
            text = _("Your address reads the records often just now; try again in a second.")
            raise ProtocolError("rate_limited", text, msg.id)
    if msg.what == "history":
        identity = session.identity if msg.topic is None else account_key(msg.topic)
        if msg.topic is not None and await lobby.store.account(msg.topic) is None:
            raise ProtocolError("no_such_player", _("{topic} is not registered.", topic=msg.topic), msg.id)
        # the games of the player behind this connection, not of whoever held its name before;
        # another's, but those of private rooms this one did not play in
        reader = _reader(session)
        games = await profiles.games_seen(lobby.store, identity, 10, reader) if identity is not None else []
        session.send(m.Text(id=msg.id, kind="history", text=profiles.history_text(games)))
        return
    if msg.what == "rating":
        text = await profiles.rating_text(lobby.store, msg.topic or session.name or "", msg.id)
    elif msg.what == "top":
        text = await profiles.top_text(lobby.store, int(msg.topic or 10))
    else:
        assert msg.topic is not None
        text = await profiles.finger_text(lobby.store, lobby.directory, msg.topic, msg.id, _reader(session))
    session.send(m.Text(id=msg.id, kind=msg.what, text=text))


def _reader(session: Session) -> Reader | None:
    """Who reads a profile or a list of games over this connection."""
    if session.name is None or session.identity is None:
        return None
    return Reader(session.name, session.identity)


SHOWN = ("history", "rating", "top", "finger")
#: the messages of the connection's rate a ``/history`` or a ``/finger`` counts as
RECORDS_COST = 5


def _one_change_of_the_name(
    handler: Callable[[Lobby, Session, Any], Awaitable[None]],
) -> Callable[[Lobby, Session, Any], Awaitable[None]]:
    """``handler`` while nothing else changes who holds the connection's name on this node (a
    login, a resume: ``Lobby.name_changes``), which then finds the account as it left it."""

    async def one_at_a_time(lobby: Lobby, session: Session, msg: Any) -> None:
        name = session.name
        assert name is not None
        async with lobby.name_changes.hold(name.casefold()):
            if session.closed or session.name != name:  # (replaced while it waited: it is closing)
                raise ProtocolError("unavailable", UNAVAILABLE, msg.id)
            await handler(lobby, session, msg)

    return one_at_a_time


HANDLERS: dict[type, Any] = {
    m.Register: _one_change_of_the_name(_register),
    m.ChangePassword: _one_change_of_the_name(_password),
    m.Unregister: _one_change_of_the_name(_unregister),
    AskSecret: _ask_secret,
    m.SetLang: set_language,
}
