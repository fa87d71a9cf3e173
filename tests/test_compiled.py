"""The compiled modules: where their build is, when a process runs it, and that a stale build never
runs (compiled/__init__.py)."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

import compiled
from compiled import BUILD, LIBRARY, MODULES, ROOT, active, build_folder, built, source, state


def _suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def _tree(root: Path, modules: tuple[str, ...], builds: dict[str, float], folder: Path) -> Path:
    """Sources of ``modules`` under ``root``, and a build under ``folder`` of those in ``builds``,
    that many seconds after its source."""
    for name in modules:
        path = source(name, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, (1_000_000, 1_000_000))
        if name in builds:
            so = folder.joinpath(*name.split(".")).with_suffix(_suffix())
            so.parent.mkdir(parents=True, exist_ok=True)
            so.write_bytes(b"")
            when = 1_000_000 + builds[name]
            os.utime(so, (when, when))
    return root


@pytest.mark.parametrize("where", ["checkout", "installed"])
def test_the_state_says_whether_every_module_has_a_build_as_new_as_its_source(
    tmp_path: Path, where: str
) -> None:
    """In a checkout the build is in build/native/lib, installed it is beside the sources."""
    mods = ("engine.rules", "protocol.diff")

    def tree(name: str, builds: dict[str, float]) -> Path:
        root = tmp_path / where / name
        return _tree(root, mods, builds, root / BUILD if where == "checkout" else root)

    assert state(mods, tree("a", {})) == "source"
    assert state(mods, tree("b", {"engine.rules": 5, "protocol.diff": 0})) == "compiled"
    # a source edited after the build
    assert state(mods, tree("c", {"engine.rules": 5, "protocol.diff": -1})) == "stale"
    # a module the build left out
    d = tree("d", {"engine.rules": 5})
    assert state(mods, d) == "stale"
    folder = d / BUILD if where == "checkout" else d
    assert built("protocol.diff", folder) is None
    assert built("engine.rules", folder) == folder / "engine" / f"rules{_suffix()}"


def test_every_listed_module_has_its_source_and_no_event_loop() -> None:
    assert all(source(name).is_file() for name in MODULES)
    places = ("engine.", "protocol.", "server.room.", "server.session", "bots.strategy.")
    assert all(name.startswith(places) for name in MODULES)
    # of what awaits, only the room's actor and the sessions' outboxes are compiled (mypyc's
    # coroutines run on asyncio's loop as Python's do); the transports, which websockets and
    # asyncio's streams call back, stay Python
    loop = re.compile(r"^(import|from) asyncio", re.M)
    awaiting = [name for name in MODULES if loop.search(source(name).read_text())]
    assert awaiting == ["server.room.actor", "server.session"]


def test_the_engine_and_the_protocol_import_nothing_of_the_build() -> None:
    """The rules import only the standard library: whether a build runs is the process's choice."""
    for package in ("engine", "protocol"):
        for path in (ROOT / package).rglob("*.py"):
            names = [
                alias.name if isinstance(node, ast.Import) else node.module or ""
                for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in node.names
            ]
            assert not [n for n in names if n.split(".")[0] == "compiled"], path


def test_the_suite_runs_the_modules_as_they_were_built() -> None:
    """Compiled where a fresh build is there (what the server runs), else as Python."""
    expected = state() == "compiled" and os.environ.get("CAFE_PURE") != "1"
    assert active() is expected


@pytest.mark.skipif(
    shutil.which("cc") is None or not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file(),
    reason="no C compiler or no Python headers here: the modules run as Python",
)
def test_where_a_c_compiler_is_at_hand_the_install_compiled_them() -> None:
    """`make` installs with the compiler when there is one: a build of every module is there (as
    new as its source, or older where a source was changed since; never none)."""
    assert state() != "source", "installing left every module uncompiled: see setup.py's warning (pip -v)"


def test_setup_translates_the_modules_only_for_a_build(tmp_path: Path) -> None:
    """pip runs setup.py for the project's metadata before it builds: that run, like any that
    builds nothing, leaves mypyc's translation (seconds of mypy) to the build."""
    shutil.copytree(ROOT / "compiled", tmp_path / "compiled", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tmp_path / name)
    done = subprocess.run(
        [sys.executable, "setup.py", "--name", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert not (tmp_path / BUILD).parent.exists(), "a run for the metadata translated the modules"
    assert done.stdout.split() == ["cafe-international", "0.1.0"]


def _imported(
    root: Path, *, use: bool = True, first: str = "", env: dict[str, str] | None = None
) -> list[str]:
    """Where a fresh process under ``root`` imports two compiled modules from, and whether they run
    compiled: with ``use()`` called, or not, after importing ``first``."""
    code = "; ".join(
        [
            f"import {first}" if first else "pass",
            "import compiled",
            "compiled.use()" if use else "pass",
            "import engine.rules, protocol.diff",
            "print(engine.rules.__file__); print(protocol.diff.__file__); print(compiled.active())",
        ]
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "CAFE_PURE": "", **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.split()


@pytest.mark.skipif(
    build_folder() != ROOT / BUILD or state() != "compiled", reason="no fresh build in build/native/lib here"
)
def test_a_build_runs_only_where_a_process_asks_and_only_while_it_is_fresh(tmp_path: Path) -> None:
    """A copy of the checkout with its build: a process that calls use() runs it; one that does not,
    or calls it too late, or asks with CAFE_PURE=1, runs the sources; so does every process once a
    source is newer than the build."""
    root = tmp_path / "tree"
    root.mkdir()
    for package in ("compiled", "engine", "protocol", "server", "bots"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / BUILD, root / BUILD)
    shutil.copy2(ROOT / "setup.py", root / "setup.py")

    rules, diff, on = _imported(root)
    assert rules == str(root / BUILD / "engine" / f"rules{_suffix()}") and diff.endswith(_suffix())
    assert on == "True"
    for sources in (
        _imported(root, use=False),
        _imported(root, first="engine.cards"),  # one module of the build imported before: none
        _imported(root, env={"CAFE_PURE": "1"}),
    ):
        assert sources == [str(source("engine.rules", root)), str(source("protocol.diff", root)), "False"]

    later = time.time() + 10
    os.utime(source("protocol.diff", root), (later, later))
    assert compiled.state(root=root) == "stale"
    assert _imported(root) == [str(source("engine.rules", root)), str(source("protocol.diff", root)), "False"]


@pytest.mark.skipif(state() != "compiled", reason="no fresh build of the compiled modules here")
def test_an_installed_build_runs_beside_its_sources(tmp_path: Path) -> None:
    """Installed (the build beside the sources, no setup.py): every process runs it, however its
    files' times fell; CAFE_PURE=1 with use() runs the sources."""
    root = tmp_path / "site"
    root.mkdir()
    for package in ("compiled", "engine", "protocol", "server", "bots"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    where = build_folder()
    for name in (*MODULES, LIBRARY):
        so = built(name, where)
        assert so is not None
        shutil.copy2(so, root.joinpath(*name.split(".")).with_suffix(_suffix()))
    later = time.time() + 10
    os.utime(source("protocol.diff", root), (later, later))  # pip writes its files in any order

    for rules, diff, on in (_imported(root), _imported(root, use=False)):
        assert rules == str(root / "engine" / f"rules{_suffix()}") and diff.endswith(_suffix())
        assert on == "True"
    sources = _imported(root, env={"CAFE_PURE": "1"})
    assert sources == [str(source("engine.rules", root)), str(source("protocol.diff", root)), "False"]


def _fields_set(init: ast.FunctionDef) -> list[str]:
    """The attributes a constructor sets: ``object.__setattr__(self, "name", ...)`` or ``self.name =``."""
    names = []
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "object.__setattr__":
            names.append(ast.literal_eval(node.args[1]))
        elif isinstance(node, ast.Assign):
            names += [
                t.attr
                for t in node.targets
                if isinstance(t, ast.Attribute) and ast.unparse(t.value) == "self"
            ]
    return names


def _written_inits(module: str) -> dict[str, ast.FunctionDef]:
    """The classes of ``module`` (by name) whose source writes ``__init__`` out."""
    found = {}
    for node in ast.parse(source(module).read_text()).body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    found[node.name] = item
    return found


def test_every_written_out_dataclass_constructor_takes_and_sets_the_fields() -> None:
    # The dataclasses a move makes write their __init__ out (compiled, it is native code): each
    # takes the fields as the one dataclasses writes would, in order and with the same defaults,
    # and sets every one of them.
    written = []
    for name in MODULES:
        module = importlib.import_module(name)
        for cls_name, init in _written_inits(name).items():
            cls = getattr(module, cls_name)
            if not dataclasses.is_dataclass(cls):
                continue
            written.append(cls_name)
            fields = dataclasses.fields(cls)
            params = init.args.args[1:]
            assert [p.arg for p in params] == [f.name for f in fields], cls_name
            defaults = [eval(ast.unparse(d), vars(module)) for d in init.args.defaults]
            defaults = [dataclasses.MISSING] * (len(params) - len(defaults)) + defaults
            for f, default in zip(fields, defaults, strict=True):
                if f.default_factory is not dataclasses.MISSING:
                    assert default is None, (cls_name, f.name)  # made anew in the constructor
                else:
                    assert default == f.default, (cls_name, f.name)
            assert sorted(_fields_set(init)) == sorted(f.name for f in fields), cls_name
    assert {"Position", "Player"} <= set(written)
