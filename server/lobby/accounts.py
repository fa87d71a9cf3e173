"""Registered accounts: register, log in, change the password, unregister.

Passwords are hashed with argon2id (``argon2-cffi``) in a small pool of worker threads, so the
event loop never waits for a hash; at most :attr:`Accounts.max_pending` hashes wait at once across
the server, beyond which a login is refused with ``too_many_attempts``. Failed logins are counted
per name and per address over a window; past the limit, further attempts are refused with the
wait in the message. A password is never logged, echoed or counted anywhere: only its hash is
kept.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import structlog
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from protocol.errors import ProtocolError
from protocol.i18n import _, _n
from protocol.sanitize import sanitize_line
from server.log.contract import Account, AccountStore
from server.ratings import account_key

log = structlog.get_logger("cafe.accounts")

MIN_PASSWORD = 8
MAX_PASSWORD = 200


#: keys (names, addresses) whose failed logins are remembered at most, in each count
MAX_KEYS = 10_000

#: the passwords one address may have hashed or checked at once (its connections' logins,
#: registrations and changes; a household's or a school's people log in together): more are
#: refused (``too_many_attempts``, for a second) rather than queued, as the hashing threads are
#: everyone's
HASHES_AN_ADDRESS = 4


@dataclass
class Attempts:
    """Failed logins in a sliding window: at most ``limit`` per key within ``window`` seconds.

    Memory stays bounded however many keys fail (a flood from many addresses): a key keeps only
    its last ``limit`` failures (all that its wait depends on), keys whose failures all expired
    are dropped as others fail, and past ``max_keys`` keys the one that failed least recently is
    forgotten."""

    limit: int
    window: float
    max_keys: int = MAX_KEYS

    def __post_init__(self) -> None:
        # in the order of each key's last failure, the oldest first
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._failures)

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        failures = self._failures.get(key)
        if failures is None:
            return 0.0
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        if not failures:
            del self._failures[key]
            return 0.0
        if len(failures) < self.limit:
            return 0.0
        return failures[0] + self.window - now

    def failed(self, key: str, now: float) -> None:
        failures = self._failures.get(key)
        if failures is None:
            failures = self._failures[key] = deque(maxlen=self.limit)
        else:
            self._failures.move_to_end(key)
        failures.append(now)
        # each key is dropped once: the cost stays constant per failure, however many there were
        while len(self._failures) > 1:
            oldest = next(iter(self._failures.values()))
            if oldest[-1] > now - self.window and len(self._failures) <= self.max_keys:
                break
            self._failures.popitem(last=False)

    def forget(self, key: str) -> None:
        self._failures.pop(key, None)

    def give_back(self, key: str, when: float) -> None:
        """Uncount the failure of ``key`` counted at ``when`` (an attempt counted before it was
        judged, which did not fail)."""
        failures = self._failures.get(key)
        if failures is not None and when in failures:
            failures.remove(when)
            if not failures:  # (a key is kept only with failures: the oldest's last is read)
                del self._failures[key]


def looks_registered(name: str, other: str, msg_id: int | str | None) -> ProtocolError:
    """``name_registered`` for a name that looks like ``other``, a registered name."""
    return ProtocolError(
        "name_registered",
        _("{name} looks like {other}, a registered name; choose another name.", name=name, other=other),
        msg_id,
    )


def check_password(password: str, msg_id: int | str | None = None) -> None:
    """Refuse a password too weak to register, or one that could not be typed the same at a
    terminal, whose line loses its blanks at both ends, its tabs and its controls
    (``weak_password``)."""
    if len(password) < MIN_PASSWORD:
        raise ProtocolError(
            "weak_password", _("A password has at least {n} characters.", n=MIN_PASSWORD), msg_id
        )
    if len(password) > MAX_PASSWORD:
        raise ProtocolError(
            "weak_password", _("A password has at most {n} characters.", n=MAX_PASSWORD), msg_id
        )
    if sanitize_line(password) != password:
        raise ProtocolError(
            "weak_password",
            _("A password holds no space at either end, and no tab, control or invisible character."),
            msg_id,
        )


def bad_password(name: str, msg_id: int | str | None) -> ProtocolError:
    """The answer to a password that is not the account's (or no longer is)."""
    return ProtocolError("bad_password", _("That is not the password of {name}.", name=name), msg_id)


class Accounts:
    """Hashing and checking passwords off the event loop, with the attempt limits.

    ``memory_cost`` (KiB) and ``time_cost`` are argon2id's; the defaults are argon2-cffi's own.
    """

    def __init__(
        self,
        store: AccountStore,
        *,
        workers: int = 2,
        max_pending: int = 64,
        name_limit: int = 5,
        address_limit: int = 20,
        window: float = 300.0,
        memory_cost: int = 65536,
        time_cost: int = 3,
    ) -> None:
        self.store = store
        self.max_pending = max_pending
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost, type=Type.ID)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cafe-argon2")
        self._pending = 0
        #: the hashes each address has queued or running (one address's many connections hashing
        #: at once would make everyone else's login wait)
        self._pending_by: Counter[str] = Counter()
        self.by_name = Attempts(name_limit, window)
        self.by_address = Attempts(address_limit, window)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _in_pool(
        self, address: str | None, msg_id: int | str | None, job: object, *args: str
    ) -> object:
        """``job`` in the hashing threads, for ``address`` (``None``: the operator's) and the
        message ``msg_id``: refused when as many wait as the server takes, or
        ``HASHES_AN_ADDRESS`` of the address's."""
        if self._pending >= self.max_pending or (
            address is not None and self._pending_by[address] >= HASHES_AN_ADDRESS
        ):
            raise ProtocolError(
                "too_many_attempts",
                _("The server is checking many passwords just now; try again in 1 second."),
                msg_id,
            )
        self._pending += 1
        if address is not None:
            self._pending_by[address] += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, job, *args)  # type: ignore[arg-type]
        finally:
            self._pending -= 1
            if address is not None:
                self._pending_by[address] -= 1
                if not self._pending_by[address]:
                    del self._pending_by[address]

    async def hash(self, password: str, address: str | None = None, msg_id: int | str | None = None) -> str:
        return str(await self._in_pool(address, msg_id, self._hasher.hash, password))

    async def _matches(self, stored: str, password: str, address: str, msg_id: int | str | None) -> bool:
        def verify(stored: str, password: str) -> bool:
            try:
                return self._hasher.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return bool(await self._in_pool(address, msg_id, verify, stored, password))

    # --- the commands --------------------------------------------------------------------------

    async def is_registered(self, name: str) -> bool:
        return await self.store.account(name) is not None

    async def registered_alike(self, name: str) -> str | None:
        """The registered name that ``name`` looks like, or is in another case (its account's
        spelling), if any."""
        return await self.store.account_alike(name)

    async def login(self, name: str, password: str, address: str, msg_id: int | str | None = None) -> Account:
        """The account ``name`` if ``password`` is its password; else ``bad_password``, or
        ``too_many_attempts`` past the limits (checked before any hashing)."""
        now = time.monotonic()
        wait = max(self.by_name.wait(name.casefold(), now), self.by_address.wait(address, now))
        if wait > 0:
            raise ProtocolError(
                "too_many_attempts",
                _n(
                    "Too many failed logins; try again in {n} second.",
                    "Too many failed logins; try again in {n} seconds.",
                    int(wait) + 1,
                ),
                msg_id,
            )
        # counted as failed before the hash is judged, and given back if it is right: attempts
        # sent at once would otherwise all pass the check above while the first ones are hashed
        key = name.casefold()
        self.by_name.failed(key, now)
        self.by_address.failed(address, now)
        try:
            account = await self.store.account(name)
            right = account is not None and await self._matches(account.hash, password, address, msg_id)
        except BaseException:  # (not judged: the store away, say)
            self.by_name.give_back(key, now)
            self.by_address.give_back(address, now)
            raise
        if not right:
            log.info("login_failed", player=name, address=address)
            raise bad_password(name, msg_id)
        assert account is not None
        self.by_name.forget(key)
        self.by_address.give_back(address, now)
        await self.store.account_seen(account.name, time.time())
        return account

    async def register(
        self,
        name: str,
        password: str,
        identity: str | None,
        address: str,
        msg_id: int | str | None,
        hashed: Callable[[], Awaitable[None]] | None = None,
    ) -> str:
        """Register ``name`` with ``password``; the account's identity. ``hashed`` is asked once the
        password is hashed (which takes a while: the caller's world may have changed), and may
        refuse the registration still."""
        check_password(password, msg_id)
        if await self.store.account(name) is not None:
            raise ProtocolError("name_registered", _("{name} is already registered.", name=name), msg_id)
        other = await self.store.account_alike(name)
        if other is not None:
            raise looks_registered(name, other, msg_id)
        stored = await self.hash(password, address, msg_id)
        if hashed is not None:
            await hashed()
        if not await self.store.account_created(name, stored, identity):
            raise ProtocolError("name_registered", _("{name} is already registered.", name=name), msg_id)
        await self.store.account_seen(name, time.time())
        log.info("registered", player=name)
        return account_key(name)

    async def change_password(
        self,
        name: str,
        old: str,
        new: str,
        address: str,
        msg_id: int | str | None,
        hashed: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """``name``'s password is ``new`` if ``old`` is its password; ``hashed`` as at
        :meth:`register`."""
        await self.login(name, old, address, msg_id)
        check_password(new, msg_id)
        stored = await self.hash(new, address, msg_id)
        if hashed is not None:
            await hashed()
        await self.store.password_changed(name, stored)
        log.info("password_changed", player=name)

    async def unregister(
        self,
        name: str,
        password: str,
        address: str,
        msg_id: int | str | None,
        deleting: Callable[[], Awaitable[None]] | None = None,
        hashed: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Delete the account ``name`` if ``password`` is its password, after ``deleting``;
        ``hashed`` as at :meth:`register`."""
        await self.login(name, password, address, msg_id)
        if hashed is not None:
            await hashed()
        if deleting is not None:
            await deleting()
        await self.store.account_deleted(name)
        log.info("unregistered", player=name)
