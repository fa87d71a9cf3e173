"""The commands on people: ``role``, ``ban``, ``unban``, ``password``, ``modlog``, ``reports``.
Each returns the exit status and says what it did; an :class:`AdminError` when it cannot."""

from __future__ import annotations

import secrets
import time

from protocol.names import NAME_MAX, is_name
from server.admin.store import AdminError, Opened
from server.config import Config
from server.lobby.accounts import Accounts
from server.lobby.sanctions import duration_seconds, end_that_holds
from server.log.contract import OPERATOR, GameLog, Role


def ban_seconds(text: str) -> float | None:
    """The seconds a ban of ``text`` lasts, as the server's ``/ban`` reads it (``None``: for good).

    >>> ban_seconds("30m"), ban_seconds("7d"), ban_seconds("perm")
    (1800, 604800, None)
    """
    try:
        return duration_seconds(text)
    except ValueError:
        words = "1 to 9999 minutes, hours or days (30m, 2h, 7d), or perm"
        raise AdminError(f"{text!r} is not a duration: {words}") from None


def when(moment: float | None) -> str:
    """A moment as operators read it, in UTC.

    >>> when(0), when(None)
    ('1970-01-01 00:00 UTC', 'for good')
    """
    if moment is None:
        return "for good"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment))


def say(line: str = "") -> None:
    print(line, flush=True)


def _name(name: str) -> str:
    if not is_name(name):
        raise AdminError(
            f"{name!r} is not a name: 1 to {NAME_MAX} letters A to Z (no accents), digits, '_' or '-',"
            " starting with a letter"
        )
    return name


async def _account(store: GameLog, name: str) -> str:
    """The account ``name`` as it is registered: the one whose name looks like it (``K1M`` for
    ``kim``, in any case), as the server's staff commands read a name."""
    account = await store.account_alike(_name(name))
    if account is None:
        raise AdminError(f"{name} is not a registered account")
    return account


async def _person(store: GameLog, name: str) -> str:
    """Whom a ban or an unban of ``name`` is of: the account whose name looks like it, else the
    name as typed (a guest's; the server's staff commands read a name so too)."""
    return await store.account_alike(_name(name)) or name


async def revoke_tokens(store: GameLog, name: str) -> None:
    """Revoke every resume token of ``name``: a token issued for the name revokes the others (the
    contract's promise), and this one, which nobody holds, is revoked at once."""
    token = "admin-" + secrets.token_urlsafe(24)
    await store.token_issued(token, name, OPERATOR)
    await store.token_revoked(token)


async def set_role(store: GameLog, name: str, role: str, reason: str) -> int:
    account = await _account(store, name)
    given: Role | None = None if role == "none" else role  # type: ignore[assignment]
    before = await store.role(account)
    if not await store.role_set(account, given, by=OPERATOR, reason=reason):
        raise AdminError(f"{name} is not a registered account")
    was = before or "no role"
    say(f"{account} is now {given}, was {was}" if given else f"{account} holds no role now, was {was}")
    return 0


async def ban(opened: Opened, name: str, duration: str, reason: str) -> int:
    _name(name)
    if not reason.strip():
        raise AdminError("a ban needs a reason (--reason TEXT): the banned person reads it")
    seconds = ban_seconds(duration)
    until = None if seconds is None else time.time() + seconds
    store = opened.store
    name = await _person(store, name)
    sanction = await store.sanction_added("ban", name, OPERATOR, until, reason, duration=duration)
    await revoke_tokens(store, name)
    # an earlier, longer ban holds on (a ban does not shorten another): the end that holds
    until = end_that_holds(await store.sanctions(name), "ban", until)
    say(f"{name} is banned {'until ' + when(until) if until else 'for good'} (ban #{sanction.id}): {reason}")
    closed = await opened.tell_nodes(name, until, reason)
    say("They cannot log in or come back with a resume token; " + (
        "their connections on every node are closed." if closed
        else "a connection open now ends when they leave."
    ))  # fmt: skip
    return 0


async def unban(store: GameLog, name: str, reason: str) -> int:
    """Lift ``name``'s bans and kicks, as the server's ``/unban`` does."""
    name = await _person(store, name)
    bans = await store.sanction_lifted("ban", name, OPERATOR, reason)
    kicks = await store.sanction_lifted("kick", name, OPERATOR, reason)
    if not bans and not kicks:
        raise AdminError(f"{name} is neither banned nor kicked")
    lifted = [
        f"{count} {what}{'s' if count > 1 else ''}"
        for count, what in ((bans, "ban"), (kicks, "kick"))
        if count
    ]
    say(f"{name} may come back ({' and '.join(lifted)} lifted)")
    return 0


async def new_password(store: GameLog, config: Config, name: str) -> int:
    account = await _account(store, name)
    password = secrets.token_urlsafe(12)  # 16 characters, 96 bits
    hasher = Accounts(store, workers=1, memory_cost=config.hash_memory)
    try:
        hashed = await hasher.hash(password)
    finally:
        hasher.close()
    await store.modlog_appended(OPERATOR, "password", account)
    await store.password_changed(account, hashed)
    await revoke_tokens(store, account)
    say(f"New password of {account}: {password}")
    say("It is shown only this once. Their resume tokens are revoked: they log in with it.")
    say(
        "A connection of theirs open now goes on until it ends: /kick NAME in the server closes it"
        " (cafe-admin role NAME none takes a role away at once)."
    )
    return 0


async def show_modlog(store: GameLog, name: str | None, limit: int) -> int:
    entries = await store.modlog(_name(name) if name else None, limit)
    if not entries:
        say("The moderation log has no entries" + (f" of {name}." if name else "."))
        return 0
    for e in entries:
        extra = "  ".join(part for part in (e.duration, e.reason) if part)
        say(f"#{e.id}  {when(e.when)}  {e.by}  {e.action}  {e.target}" + (f"  {extra}" if extra else ""))
    return 0


async def show_reports(store: GameLog, everything: bool, limit: int) -> int:
    found = await store.reports(everything, limit)
    if not found:
        say("No reports." if everything else "No open reports.")
        return 0
    for r in found:
        state = f"resolved by {r.resolved_by} {when(r.resolved)}" if r.resolved is not None else "open"
        say(f"#{r.id}  {when(r.made)}  {r.reporter} reports {r.name}: {r.reason}  [{state}]")
        if r.note:
            say(f"    note: {r.note}")
        for line in r.excerpt:
            say(f"    | {line}")
    return 0
