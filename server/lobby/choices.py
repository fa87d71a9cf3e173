"""What a person chose, kept: their lists (whom they mute, who their friends are) and their
settings (the language they read, plain ASCII text at a terminal).

A registered account keeps all of it in the store (SQLite on one node, Redis in a cluster):
across logins, restarts and a killed process, until the account is deleted, which deletes it too.
A guest's lists are kept by the guest's identity for as long as its name holds (one of its resume
tokens is kept), so that a resume finds them on any node and after a restart; a guest's settings
are its connection's. Every change is written to the store before it is acknowledged.
"""

from __future__ import annotations

from protocol import messages as m
from protocol.names import alike
from server.lobby.language import account_language
from server.lobby.social import PersonalLists
from server.log.contract import AccountStore, ListTable
from server.session import Session


class StoredLists:
    """The lists of each identity, as the store keeps them (the connections of a player share one
    copy in memory: :class:`~server.lobby.social.Social` changes it once the store has kept a change)."""

    def __init__(self, table: ListTable) -> None:
        self._table = table

    async def load(self, identity: str) -> PersonalLists:
        stored = await self._table.lists(identity)
        muted: dict[str, str] = {}
        for key, name in stored["mute"].items():
            form = alike(key)
            muted[form] = name.casefold()
            if form != key:
                # kept by casefolded name before a name's look-alikes were muted with it: kept
                # again by the name's form, so that an unmute finds it (entry by entry: a change
                # made meanwhile on another connection or node stays)
                await self.changed(identity, "unmute", key, name)
                await self.changed(identity, "mute", form, name.casefold())
        return PersonalLists(muted=muted, friends=dict(stored["friend"]))

    async def changed(self, identity: str, action: str, key: str, name: str) -> None:
        await self._table.list_changed(identity, action, key, name)

    async def save(self, identity: str, lists: PersonalLists) -> None:
        kept = {"mute": dict(lists.muted), "friend": dict(lists.friends)}
        await self._table.lists_replaced(identity, kept)

    async def forget(self, identity: str) -> None:
        await self._table.lists_deleted(identity)


async def account_settings(store: AccountStore, session: Session, name: str, msg: m.Hello) -> None:
    """At a registered player's login or resume: the language the account keeps, unless this
    ``hello`` names one, and at a terminal plain ASCII if the account chose it (``/ascii on`` at
    the name prompt turns it on for this connection either way)."""
    account = await store.account(name)
    if account is None:
        return
    account_language(session, msg, account.lang)
    if account.ascii and session.transport == "line":
        session.ascii_only = True


async def ascii_chosen(store: AccountStore, session: Session, on: bool) -> None:
    """``/ascii on|off`` at a terminal after the name: a registered player's account keeps it."""
    if session.registered and session.name is not None:
        await store.account_ascii(session.name, on)
