"""JSON Patch (RFC 6902) between two JSON documents, fast for views, and a small applier.

``diff`` walks both documents by their shape instead of searching for the smallest patch, which
keeps it a few microseconds on a room view:

- objects are compared key by key: ``remove`` for a key gone, ``add`` for a new one, recursion
  for a key in both;
- arrays of the same length are compared index by index; an array that grew or shrank by a run of
  items at one place (the common prefix and suffix unchanged) gets ``add`` or ``remove`` for those
  items; any other array is replaced whole;
- an object or array of two or more members, every one of which was replaced, is replaced whole
  (one operation instead of one per member, and shorter);
- anything else that changed, including a change of type (``1`` to ``true`` or ``1.0``), is
  replaced.

Paths are JSON Pointers (RFC 6901) with ``~`` written ``~0`` and ``/`` written ``~1``.

>>> diff({"a": [1, 2], "b/c": 0}, {"a": [1, 2, 3], "b/c": 1})
[{'op': 'add', 'path': '/a/2', 'value': 3}, {'op': 'replace', 'path': '/b~1c', 'value': 1}]
>>> apply_patch({"a": [1, 2]}, [{"op": "add", "path": "/a/-", "value": 3}])
{'a': [1, 2, 3]}

Both functions treat documents as values: they never change their arguments, and their results
share unchanged parts with them (an operation's ``value`` is the part of ``next`` itself, and
``apply_patch`` copies only the containers on the paths it changes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["PatchError", "apply_patch", "diff", "escape", "unescape"]


class PatchError(ValueError):
    """A patch that does not apply: an unknown operation, a malformed path, or a path that does
    not lead to a value where the operation needs one."""


def escape(token: str) -> str:
    """A key as a JSON Pointer reference token: ``~`` becomes ``~0``, ``/`` becomes ``~1``."""
    if "~" in token:
        token = token.replace("~", "~0")
    if "/" in token:
        token = token.replace("/", "~1")
    return token


def unescape(token: str) -> str:
    """The key a JSON Pointer reference token names (``~1`` before ``~0``, as RFC 6901 says)."""
    if "~" not in token:
        return token
    return token.replace("~1", "/").replace("~0", "~")


# --- diff ----------------------------------------------------------------------------------------


def diff(prev: Any, next: Any, at: tuple[str | int, ...] = ()) -> list[dict[str, Any]]:
    """The RFC 6902 operations that turn ``prev`` into ``next`` (an empty list when equal).

    Equality is JSON's: ``1``, ``1.0`` and ``true`` are three different values. ``at``: the keys
    and indexes that lead to ``prev`` and ``next`` in a larger document, where the operations
    then apply (``diff([1], [2], ("a",))`` replaces ``/a/0``).
    """
    ops: list[dict[str, Any]] = []
    if prev is next:
        return ops
    place = _ROOT
    for token in at:
        place = place.at(token)
    t = type(prev)
    if t is not type(next):
        ops.append({"op": "replace", "path": place.pointer, "value": next})
    elif t is dict:
        _diff_dict(prev, next, place, ops)
    elif t is list:
        _diff_list(prev, next, place, ops)
    elif prev != next:
        ops.append({"op": "replace", "path": place.pointer, "value": next})
    return ops


class _Place:
    """A place in documents, as the diff met it: its path, written once, and the places under it
    met so far. A view's places are few, and the same ones change at every move of every room."""

    __slots__ = ("pointer", "under")

    def __init__(self, pointer: str) -> None:
        self.pointer = pointer
        self.under: dict[str | int, _Place] = {}

    def at(self, token: str | int) -> _Place:
        """The place under this one that ``token`` names (a key of an object, an index of an array)."""
        place = self.under.get(token)
        if place is None:
            name = escape(token) if type(token) is str else token
            place = self.under[token] = _Place(f"{self.pointer}/{name}")
            _met()
        return place


#: the document itself: every place met is under it
_ROOT: Final = _Place("")

#: how many places are kept under ``_ROOT`` at most: then they are forgotten (keys of objects come
#: from people: a room's options)
_PLACES_MAX: Final = 10_000
_places = 0


def _met() -> None:
    """Count a new place; forget them all when they are too many."""
    global _places
    _places += 1
    if _places > _PLACES_MAX:  # pragma: no mutate - a bound, not a result
        _ROOT.under.clear()
        _places = 0  # pragma: no mutate - a bound, not a result


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON (Python's ``==`` holds ``1 == 1.0 == True``)."""
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is dict:
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if t is list:
        pairs = zip(a, b, strict=True)  # pragma: no mutate - the lengths are compared first
        return len(a) == len(b) and all(_same(x, y) for x, y in pairs)
    return bool(a == b)


def _diff_dict(a: dict[str, Any], b: dict[str, Any], place: _Place, ops: list[dict[str, Any]]) -> None:
    start = len(ops)
    added = len(b)
    replaced = 0
    for key, x in a.items():
        try:
            y = b[key]
        except KeyError:
            ops.append({"op": "remove", "path": place.at(key).pointer})
            continue
        added -= 1
        if x is y:
            continue
        # Strings and numbers dominate a view: they are settled here, without a call.
        t = type(x)
        if t is not type(y):
            ops.append({"op": "replace", "path": place.at(key).pointer, "value": y})
            replaced += 1
        elif t is dict:
            _diff_dict(x, y, place.at(key), ops)
        elif t is list:
            _diff_list(x, y, place.at(key), ops)
        elif x != y:
            ops.append({"op": "replace", "path": place.at(key).pointer, "value": y})
            replaced += 1
    if added:
        for key, y in b.items():
            if key not in a:
                ops.append({"op": "add", "path": place.at(key).pointer, "value": y})
    elif replaced > 1 and replaced == len(b) == len(ops) - start:
        _replace_whole(b, place, ops, start)


def _replace_whole(b: Any, place: _Place, ops: list[dict[str, Any]], start: int) -> None:
    """Every member was replaced, one operation each: one replace of the whole is shorter."""
    del ops[start:]
    ops.append({"op": "replace", "path": place.pointer, "value": b})


def _diff_list(a: list[Any], b: list[Any], place: _Place, ops: list[dict[str, Any]]) -> None:
    n, m = len(a), len(b)
    if n == m:
        start = len(ops)
        replaced = 0
        for i, x in enumerate(a):
            y = b[i]
            if x is y:
                continue
            t = type(x)
            if t is not type(y):
                ops.append({"op": "replace", "path": place.at(i).pointer, "value": y})
                replaced += 1
            elif t is dict:
                _diff_dict(x, y, place.at(i), ops)
            elif t is list:
                _diff_list(x, y, place.at(i), ops)
            elif x != y:
                ops.append({"op": "replace", "path": place.at(i).pointer, "value": y})
                replaced += 1
        if replaced > 1 and replaced == n == len(ops) - start:
            _replace_whole(b, place, ops, start)
        return
    # items appended (a room's moves)
    if (
        m > n  # pragma: no mutate - n == m returned above: > and >= are alike here
        and _same_start(a, b, n)
    ):
        ops.extend({"op": "add", "path": place.at(i).pointer, "value": b[i]} for i in range(n, m))
        return
    shorter = min(n, m)
    head = 0
    while head < shorter:
        x, y = a[head], b[head]
        if x is not y and not _same(x, y):
            break
        head += 1
    tail = 0
    while tail < shorter - head:
        x, y = a[n - 1 - tail], b[m - 1 - tail]
        if x is not y and not _same(x, y):
            break
        tail += 1
    if head + tail == n:  # only inserted items, at index ``head``
        ops.extend({"op": "add", "path": place.at(i).pointer, "value": b[i]} for i in range(head, m - tail))
    elif head + tail == m:  # only removed items; from the last, so that each index is still valid
        ops.extend({"op": "remove", "path": place.at(i).pointer} for i in range(n - tail - 1, head - 1, -1))
    else:
        ops.append({"op": "replace", "path": place.pointer, "value": b})


def _same_start(a: list[Any], b: list[Any], n: int) -> bool:
    """Whether the first ``n`` items of ``a`` and ``b`` are the very same objects (compiled, the
    generator in ``all()`` is a native loop, where ``map(operator.is_, a, b)`` calls for each item)."""
    return all(a[i] is b[i] for i in range(n))


# --- apply ---------------------------------------------------------------------------------------


def _parse_pointer(path: str) -> list[str]:
    if path == "":
        return []
    if path[0] != "/":
        raise PatchError(f"path {path!r} does not start with '/'")
    return [unescape(t) for t in path[1:].split("/")]


def _index(token: str, size: int, path: str, *, append: bool = False) -> int:
    """The array index ``token`` names; ``append`` allows ``-`` and ``size`` (the end)."""
    if append and token == "-":
        return size
    if not token.isascii() or not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"{path!r}: {token!r} is not an array index")
    i = int(token)
    if i > size or (i == size and not append):
        raise PatchError(f"{path!r}: index {i} is out of range (the array holds {size})")
    return i


class _Applier:
    """Copies on write: each container on a changed path is copied once per patch, then edited."""

    __slots__ = ("fresh",)

    def __init__(self) -> None:
        # id -> container made by this applier; holding them keeps their ids from being reused.
        self.fresh: dict[int, Any] = {}

    def own(self, value: Any) -> Any:
        # the copies made already are kept and found again: without them each operation copies
        # again, to the same result (only the applier's own copies are made during a patch, so
        # no other container can take a kept copy's id)
        if id(value) in self.fresh:  # pragma: no mutate
            return value
        copy = dict(value) if type(value) is dict else list(value)
        self.fresh[id(copy)] = copy  # pragma: no mutate
        return copy

    def apply(self, doc: Any, op: Mapping[str, Any]) -> Any:
        if not isinstance(op, Mapping):
            raise PatchError(f"an operation is an object, not {op!r}")
        kind = op.get("op")
        if kind not in ("add", "remove", "replace"):
            raise PatchError(f"unsupported operation {kind!r} (add, remove and replace are known)")
        path = op.get("path")
        if not isinstance(path, str):
            raise PatchError(f"a path is a string, not {path!r}")
        tokens = _parse_pointer(path)
        if kind != "remove" and "value" not in op:
            raise PatchError(f"{kind} at {path!r} has no value")
        value = op.get("value")
        if not tokens:
            if kind == "remove":
                raise PatchError("the whole document cannot be removed")
            return value
        root = self.own(doc) if type(doc) in (dict, list) else doc
        parent = root
        for token in tokens[:-1]:
            if type(parent) is dict:
                if token not in parent:
                    raise PatchError(f"{path!r}: no member {token!r}")
                child = parent[token] = self.own_child(parent[token], path)
            elif type(parent) is list:
                i = _index(token, len(parent), path)
                child = parent[i] = self.own_child(parent[i], path)
            else:
                raise PatchError(f"{path!r}: {token!r} is inside a scalar")
            parent = child
        last = tokens[-1]
        if type(parent) is dict:
            if kind != "add" and last not in parent:
                raise PatchError(f"{path!r}: no member {last!r} to {kind}")
            if kind == "remove":
                del parent[last]
            else:
                parent[last] = value
        elif type(parent) is list:
            i = _index(last, len(parent), path, append=kind == "add")
            if kind == "add":
                parent.insert(i, value)
            elif kind == "remove":
                del parent[i]
            else:
                parent[i] = value
        else:
            raise PatchError(f"{path!r}: {last!r} is inside a scalar")
        return root

    def own_child(self, value: Any, path: str) -> Any:
        if type(value) not in (dict, list):
            raise PatchError(f"{path!r} goes through a scalar")
        return self.own(value)


def apply_patch(doc: Any, ops: Iterable[Mapping[str, Any]]) -> Any:
    """``doc`` with the ``add``, ``remove`` and ``replace`` operations applied in order, as a new
    document; ``doc`` and ``ops`` are left as they were. Raises ``PatchError`` for an operation
    that does not apply (the document is then unchanged, as the operations never edit it).
    """
    applier = _Applier()
    for op in ops:
        doc = applier.apply(doc, op)
    return doc
