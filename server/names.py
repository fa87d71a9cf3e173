"""Who holds which name in this process: the connected people, and the names held for people who
lost their connection, each by casefolded name and by look-alike form
(:func:`protocol.names.alike`).

>>> table: NameTable[int] = NameTable()
>>> table["mia"] = 1; table["rnia"] = 2
>>> table.others("RNIA", own=None), table.others("RNIA", own="rnia"), table.others("bob", own=None)
(2, 1, 0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Generic, Literal, TypeVar, overload

from protocol.names import alike

#: why a name cannot be claimed: someone has that very name, in any case (``taken``), or a name
#: that looks like it (``alike``: the same :func:`protocol.names.alike` form)
Held = Literal["taken", "alike"]

V = TypeVar("V")
D = TypeVar("D")


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
