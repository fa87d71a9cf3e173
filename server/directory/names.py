"""Who holds which name in this process: the connected people, and the names held for people who
lost their connection, each by casefolded name and by look-alike form
(:func:`protocol.names.alike`); and the refusal of a name someone else holds.

>>> table: NameTable[int] = NameTable()
>>> table["mia"] = 1; table["rnia"] = 2
>>> table.others("RNIA", own=None), table.others("RNIA", own="rnia"), table.others("bob", own=None)
(2, 1, 0)
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar, overload

from protocol import messages as m
from protocol.errors import ProtocolError
from protocol.i18n import _
from protocol.names import alike
from server.session import Session

#: why a name cannot be claimed: someone has that very name, in any case (``taken``), or a name
#: that looks like it (``alike``: the same :func:`protocol.names.alike` form)
Held = Literal["taken", "alike"]

V = TypeVar("V")
D = TypeVar("D")


def name_taken(name: str, held: Held, msg_id: m.ClientId) -> ProtocolError:
    """``name_taken``, saying whether someone has that very name or one that looks like it."""
    if held == "alike":
        text = _("{name} looks like the name of someone here; choose another name.", name=name)
    else:
        text = _("Someone is already called {name}.", name=name)
    return ProtocolError("name_taken", text, msg_id)


def strongest(found: Iterable[Held | None]) -> Held | None:
    """Of what several holders say of a name: ``taken`` if any has the very name, else ``alike``
    if any has a look-alike."""
    said = set(found)
    return "taken" if "taken" in said else "alike" if "alike" in said else None


def own_alike(name: str, own: str | None) -> str | None:
    """``own`` if it is a look-alike of ``name`` (or the same name), else ``None``: only then is
    one's own name among those a claim of ``name`` meets."""
    return own if own is not None and alike(own) == alike(name) else None


class NameTable(Generic[V]):
    """Values by casefolded name, with the count of their names' look-alike forms, so that whether
    the table holds a name like another is known at once. Every change goes through ``[]=``,
    ``del`` and ``pop``, which keep the count."""

    def __init__(self) -> None:
        self._values: dict[str, V] = {}
        self._forms: Counter[str] = Counter()

    @property
    def forms(self) -> Mapping[str, int]:
        """How many names of each form the table holds."""
        return self._forms

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __getitem__(self, key: str) -> V:
        return self._values[key]

    def __setitem__(self, key: str, value: V) -> None:
        if key not in self._values:
            self._forms[alike(key)] += 1
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        del self._values[key]
        form = alike(key)
        self._forms[form] -= 1
        if not self._forms[form]:
            del self._forms[form]

    @overload
    def get(self, key: str, /) -> V | None: ...
    @overload
    def get(self, key: str, default: D, /) -> V | D: ...
    def get(self, key: str, default: object = None, /) -> object:
        return self._values.get(key, default)

    @overload
    def pop(self, key: str, /) -> V: ...
    @overload
    def pop(self, key: str, default: D, /) -> V | D: ...
    def pop(self, key: str, *default: object) -> object:
        if key not in self._values:
            if default:
                return default[0]
            raise KeyError(key)
        value = self._values[key]
        del self[key]
        return value

    def keys(self) -> list[str]:
        return list(self._values)

    def values(self) -> list[V]:
        return list(self._values.values())

    def items(self) -> list[tuple[str, V]]:
        return list(self._values.items())

    def others(self, name: str, own: str | None) -> int:
        """How many names of ``name``'s form the table holds, ``own`` (if it holds it) aside."""
        form = alike(name)
        count = self._forms.get(form, 0)
        if own is not None and own.casefold() in self._values and alike(own.casefold()) == form:
            count -= 1
        return count

    def held(self, name: str, own: str | None) -> Held | None:
        """Whether a name of the table is ``name`` or looks like it, ``own`` aside."""
        key = name.casefold()
        if key in self._values and (own is None or key != own.casefold()):
            return "taken"
        return "alike" if self.others(name, own) else None


@dataclass(frozen=True, slots=True)
class Hold:
    """A name held for someone whose connection closed: until when (Unix time), and the token
    that brings them back (while it holds, nobody else takes the name or a look-alike)."""

    name: str
    until: float
    token: str


class Names:
    """The names this process holds: its connections' (by casefolded name), and for the resume
    window those of people whose connection closed with its token still good, so that nobody but
    the token's holder takes the name or a look-alike meanwhile."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.sessions: NameTable[Session] = NameTable()
        #: a name held after its connection closed, by casefolded name
        self._away: NameTable[Hold] = NameTable()
        self._ending: deque[tuple[float, str]] = deque()  # (until, key), in the order they end
        self._clock = clock

    def session(self, name: str) -> Session | None:
        """The connection holding ``name``, if any."""
        return self.sessions.get(name.casefold())

    def bind(self, session: Session) -> None:
        """``session.name`` now names ``session`` (a hold for it ends: its holder is back)."""
        assert session.name is not None
        key = session.name.casefold()
        self._away.pop(key, None)
        self.sessions[key] = session

    def unbind(self, session: Session, name: str) -> None:
        """``name`` no longer names ``session``."""
        key = name.casefold()
        if self.sessions.get(key) is session:
            del self.sessions[key]

    def away(self, name: str, until: float, token: str) -> None:
        """``name``'s connection closed and its ``token`` holds until ``until``: the name is held."""
        key = name.casefold()
        self._away[key] = Hold(name, until, token)
        self._ending.append((until, key))

    def is_away(self, name: str) -> bool:
        """Whether ``name`` is held for someone whose connection closed."""
        self._end_holds()
        return name.casefold() in self._away

    def holds(self) -> list[Hold]:
        """The names held for people whose connection closed."""
        self._end_holds()
        return self._away.values()

    def holds_alike(self, name: str) -> list[Hold]:
        """The holds of ``name`` and of the names that look like it."""
        self._end_holds()
        form = alike(name)
        if not self._away.forms.get(form):
            return []
        return [hold for hold in self._away.values() if alike(hold.name) == form]

    def end_hold(self, hold: Hold) -> None:
        """``hold`` ends before its time: its token no longer holds (its holder came back
        elsewhere, with it or by logging in, or gave it up)."""
        if self._away.get(hold.name.casefold()) is hold:
            del self._away[hold.name.casefold()]

    def held(self, name: str, own: str | None = None) -> Held | None:
        """Whether someone here holds ``name`` or a look-alike: connected, or held for the
        window. ``own`` (a look-alike of ``name`` proved to be the claimant's) is not someone."""
        self._end_holds()
        return strongest((self.sessions.held(name, own), self._away.held(name, own)))

    def _end_holds(self) -> None:
        now = self._clock()
        while self._ending and self._ending[0][0] <= now:
            until, key = self._ending.popleft()
            hold = self._away.get(key)
            if hold is not None and hold.until == until:
                del self._away[key]
