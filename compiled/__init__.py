"""The modules compiled to C with mypyc, where their build is, and when a process runs it.

The rules, the views, their diff, the line clients' text, the room core that drives them and the
way out of a message (its text, each session's outbox) are where the server spends most of its
Python time a move. ``setup.py`` compiles them with mypyc (from the same type-checked source, no
other code) when the package is installed, and leaves them as Python where it cannot (no C
compiler): each is the same module either way, only faster compiled (about half the
instructions a move, ``bench/README.md``).

Where the build is:

- an installed package (``pip install .``, the image): beside the sources, where Python finds it
  first. An installed package's files do not change after its build.
- a checkout (``pip install -e .``, which ``make`` runs): in ``build/native/lib``, where Python never
  looks on its own. There the modules run as Python unless a process calls ``use()`` before it
  imports any of them; it then runs the build if it is fresh (as new as every source), else the
  sources, until ``make`` builds again.

``use()`` is called where the project's processes start: the ``server`` and ``bots`` packages
(``cafe-server``, ``cafe-bot``, the bot pool's worker processes), the tests' conftest and the
benchmarks. ``CAFE_PURE=1`` in the environment has it run the sources anyway (to profile them, or
to test a changed source with a build at hand). What starts elsewhere, ``cafe-engine`` in a
checkout or a script, runs the sources: slower, and never a stale build.

Why this way: the rules import only the standard library, so the engine cannot pick its own build,
and what a process finds by default must never be a stale one. Two other ways were weighed. A
``.pth`` file would install the choice at every interpreter start, but an editable install
(PEP 660) ships only setuptools' own ``.pth``; adding one means overriding setuptools' private
wheel-writing methods. And with the builds beside the sources, a guard installed by the entry
points leaves every other start (``python -m engine`` in a test, a script) on a stale build after
an edit.

This module imports only the standard library: ``setup.py`` reads it before anything is built.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

#: the modules compiled, in the order they are given to mypyc: pure modules of ``engine`` and
#: ``protocol`` (no pydantic model defined, no asyncio; ``protocol.outgoing`` builds messages),
#: the room core of ``server.room`` (no I/O; it builds messages too) and its actor (an asyncio
#: task: mypyc's coroutines run on the event loop as Python's do), and the sessions' outboxes,
#: which every message to a member goes through (the transports derive from ``Session`` as
#: Python, which its class allows); and the strong bot's playouts with the greedy judge they play
#: by, where its search spends its time (3.4 times the playouts in the same time compiled).
MODULES = (
    "engine.board",
    "engine.cards",
    "engine.errors",
    "engine.notation",
    "engine.position",
    "engine.rules",
    "protocol.diff",
    "protocol.view",
    "protocol.outgoing",
    "protocol.text._common",
    "protocol.text.board",
    "protocol.text.events",
    "protocol.text.lines",
    "server.room.effects",
    "server.room.state",
    "server.room.publish",
    "server.room.members",
    "server.room.seats",
    "server.room.clock",
    "server.room.sight",
    "server.room.start",
    "server.room.play",
    "server.room.votes",
    "server.room.door",
    "server.room.asks",
    "server.room.core",
    "server.room.actor",
    "server.session",
    "bots.strategy.evaluate",
    "bots.strategy.playout",
)

#: the name of the build (``setup.py``); mypyc calls its shared library, which every compiled
#: module calls into, ``LIBRARY``
GROUP = "cafe_compiled"
LIBRARY = f"{GROUP}__mypyc"

#: the folder that holds the packages (a checkout, or an installation's site-packages)
ROOT = Path(__file__).resolve().parent.parent
#: where a checkout's build is, under its root
BUILD = Path("build", "native", "lib")


def source(module: str, root: Path = ROOT) -> Path:
    """The source file of ``module``."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def built(module: str, folder: Path) -> Path | None:
    """The compiled file of ``module`` for this interpreter under ``folder``, if there is one."""
    path = folder.joinpath(*module.split("."))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = path.with_name(path.name + suffix)
        if candidate.exists():
            return candidate
    return None


def build_folder(root: Path = ROOT) -> Path:
    """Where the build of the packages under ``root`` is: beside the sources when installed (or
    built in place by hand), else the checkout's ``build/native/lib``."""
    return root if any(built(name, root) for name in MODULES) else root / BUILD


def state(modules: Sequence[str] = MODULES, root: Path = ROOT, folder: Path | None = None) -> str:
    """``"compiled"`` when every module has a build in ``folder`` (by default ``build_folder``) at
    least as new as its source, ``"stale"`` when one is missing or older, ``"source"`` when none
    was built."""
    where = build_folder(root) if folder is None else folder
    builds = [(source(name, root), built(name, where)) for name in modules]
    if all(b is None for _, b in builds):
        return "source"
    fresh = all(b is not None and b.stat().st_mtime >= s.stat().st_mtime for s, b in builds)
    return "compiled" if fresh else "stale"


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules it is given in the files it is given, ahead of the path's finders."""

    def __init__(self, files: Mapping[str, Path]) -> None:
        self.files = dict(files)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        return None if file is None else importlib.util.spec_from_file_location(fullname, file)


def use() -> None:
    """Have this process run the compiled modules where their build is fresh and ``CAFE_PURE=1``
    does not ask for the sources, else the sources. Called before any of them is imported;
    afterwards it changes nothing (a compiled module calls the others of its build directly, not
    through the imports, so all of them run compiled or none)."""
    if any(isinstance(finder, _Finder) for finder in sys.meta_path):
        return
    if any(name in sys.modules for name in MODULES):
        return
    pure = os.environ.get("CAFE_PURE") == "1"
    where = build_folder()
    fresh = state(folder=where) == "compiled"
    if where == ROOT:
        # found first by default: an installed package is as it was built (pip writes its files
        # in any order), but in a checkout a source edited after a build made in place is newer
        checkout = (ROOT / "setup.py").is_file()
        if pure or (checkout and not fresh):
            sys.meta_path.insert(0, _Finder({name: source(name) for name in MODULES}))
    elif fresh and not pure:
        files = {name: built(name, where) for name in (*MODULES, LIBRARY)}
        sys.meta_path.insert(0, _Finder({name: file for name, file in files.items() if file}))


def summary() -> str:
    """What runs, as ``make`` and the test run say it: the build's state, and whether
    ``CAFE_PURE=1`` runs a build as Python anyway."""
    now = state()
    return f"{now}, run as Python (CAFE_PURE=1)" if os.environ.get("CAFE_PURE") == "1" else now


def active() -> bool:
    """Whether the listed modules imported so far run compiled."""
    loaded = [sys.modules[name] for name in MODULES if name in sys.modules]
    return bool(loaded) and all(
        isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
        for module in loaded
    )
