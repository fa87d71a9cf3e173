"""Limits on what one address and one unnamed connection may hold, shared by the transports, and
the one way a security event is reported: a structured log event and the ``cafe_security_events``
counter."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from server.metrics import SECURITY_EVENTS, Metrics
from server.peers import TrustedProxies, address_key
from server.ratelimit import AddressBuckets

log = structlog.get_logger("cafe.security")


#: one kind of security event from one address is logged ten times in a row, then once a second
#: (``/metrics`` counts every one): a flood of refusals does not fill the operator's disk
LOG_RATE, LOG_BURST = 1.0, 10
#: the kinds and addresses whose pace is kept at most (those heard from least lately go first)
LOG_KEYS = 10_000


class _LogPace:
    """How often each kind of security event from each address is logged, and how many of each
    were left out since the last one logged."""

    def __init__(self) -> None:
        self.buckets = AddressBuckets(LOG_RATE, LOG_BURST, LOG_KEYS)
        self.left_out: dict[str, int] = {}

    def logged(self, key: str) -> int | None:
        """``None``: leave this one out; else how many were left out before it."""
        if not self.buckets.of(key).take():
            if key in self.left_out or len(self.left_out) < LOG_KEYS:
                self.left_out[key] = self.left_out.get(key, 0) + 1
            return None
        return self.left_out.pop(key, 0)


_PACES: weakref.WeakKeyDictionary[Metrics, _LogPace] = weakref.WeakKeyDictionary()


def security_event(metrics: Metrics, event: str, **fields: Any) -> None:
    """Log ``event`` (one of ``SECURITY_EVENTS``) with its fields, at the pace ``LOG_RATE`` allows
    for its kind and address (the first logged after a pause says how many it left out:
    ``left_out``), and count it in ``/metrics``."""
    assert event in SECURITY_EVENTS, event
    metrics.security_events.labels(event=event).inc()
    pace = _PACES.get(metrics)
    if pace is None:
        pace = _PACES[metrics] = _LogPace()
    # by address: a peer is HOST:PORT, and every connection of one address has a port of its own
    peer = fields.get("peer")
    where = address_key(peer) if isinstance(peer, str) and peer else fields.get("address")
    left_out = pace.logged(f"{event} {where}")
    if left_out is None:
        return
    if left_out:
        fields["left_out"] = left_out
    log.warning(event, **fields)


class PerAddress:
    """Connections open per client address, against a cap. ``acquire`` when one opens,
    ``release`` when it closes (exactly once for each successful acquire)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._open: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        """Count one more connection from ``address``; ``False`` (and nothing counted) at the cap."""
        count = self._open.get(address, 0)
        if count >= self.cap:
            return False
        self._open[address] = count + 1
        return True

    def release(self, address: str) -> None:
        count = self._open[address] - 1
        if count:
            self._open[address] = count
        else:
            del self._open[address]  # an address with nothing open is not kept

    def __len__(self) -> int:
        """Addresses with a connection open."""
        return len(self._open)

    def count(self, address: str) -> int:
        """Connections open from ``address`` now."""
        return self._open.get(address, 0)


def hello_deadline(
    seconds: float, named: Callable[[], bool], close: Callable[[], Coroutine[Any, Any, None]]
) -> asyncio.TimerHandle:
    """After ``seconds``, run ``close()`` unless ``named()`` says hello was said; cancel the
    handle when the connection ends first."""
    loop = asyncio.get_running_loop()
    # the task is held until done: the loop keeps only a weak reference (only the garbage
    # collector's timing could tell a mutant of these three lines apart)
    tasks: set[asyncio.Task[None]] = set()  # pragma: no mutate

    def expire() -> None:
        if not named():
            task = loop.create_task(close())
            tasks.add(task)  # pragma: no mutate
            task.add_done_callback(tasks.discard)  # pragma: no mutate

    return loop.call_later(seconds, expire)


class Limits:
    """The per-server limits the transports consult: one ``PerAddress`` for WebSocket and line
    connections together, the hello deadline, and the proxies whose word on a client's address is
    taken."""

    def __init__(self, max_per_ip: int, hello_timeout: float, trusted_proxies: str | None = None) -> None:
        self.per_address = PerAddress(max_per_ip)
        self.hello_timeout = hello_timeout
        self.proxies = TrustedProxies(trusted_proxies)
