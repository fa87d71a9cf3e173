"""The language a connection reads: chosen in ``hello`` (``lang``), changed with ``/lang``, and kept
with a registered name's account so that its player reads it on every later login."""

from __future__ import annotations

from typing import Protocol

import structlog

from protocol import messages as m
from protocol.i18n import LANGUAGES, Msg, _, lang
from server.log.contract import AccountStore
from server.session import Session


class Lobby(Protocol):
    """What ``/lang`` uses of the lobby (which imports this module: it knows it only by this)."""

    @property
    def store(self) -> AccountStore: ...


log = structlog.get_logger("cafe.language")

#: what ``/lang`` answers, in the language just chosen
_CHOSEN: dict[str, Msg] = {
    "en": _("You read English from now on."),
    "de": _("You read German from now on."),
}
assert _CHOSEN.keys() == set(LANGUAGES)


def hello_language(session: Session, msg: m.Hello) -> None:
    """The language ``hello`` asks for, before anything is answered (its errors included)."""
    if msg.lang is not None:
        session.lang = lang(msg.lang)


def account_language(session: Session, msg: m.Hello, chosen: str | None) -> None:
    """A registered player's language, ``chosen`` before, unless this ``hello`` names one."""
    if msg.lang is None and chosen in LANGUAGES:
        session.lang = lang(chosen)


async def set_language(lobby: Lobby, session: Session, msg: m.SetLang) -> None:
    """``/lang de|en``: the connection reads that language from now on; an account keeps it."""
    if session.registered and session.name is not None:
        await lobby.store.account_language(session.name, msg.lang)
    session.lang = lang(msg.lang)
    if session.room is not None:
        session.room.reread(session)
    log.info("language", player=session.name, lang=msg.lang)
    session.send(m.Notice(text=_CHOSEN[msg.lang]))
    session.send(m.Ack(id=msg.id))
