"""The compiled modules: when they run, and that a stale build never does (engine/compiled.py)."""

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

from engine import compiled
from engine.compiled import MODULES, ROOT, active, built, source, state


def _tree(tmp_path: Path, modules: tuple[str, ...], builds: dict[str, float]) -> Path:
    """Sources of ``modules`` under ``tmp_path``, and a build of those in ``builds`` that many
    seconds after its source."""
    for name in modules:
        path = source(name, tmp_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, (1_000_000, 1_000_000))
        if name in builds:
            so = path.with_name(path.stem + _suffix())
            so.write_bytes(b"")
            when = 1_000_000 + builds[name]
            os.utime(so, (when, when))
    return tmp_path


def _suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def test_the_state_says_whether_every_module_has_a_build_as_new_as_its_source(tmp_path: Path) -> None:
    mods = ("engine.rules", "protocol.diff")
    assert state(mods, _tree(tmp_path / "a", mods, {})) == "source"
    assert state(mods, _tree(tmp_path / "b", mods, {"engine.rules": 5, "protocol.diff": 0})) == "compiled"
    # a source edited after the build
    assert state(mods, _tree(tmp_path / "c", mods, {"engine.rules": 5, "protocol.diff": -1})) == "stale"
    # a module the build left out
    assert state(mods, _tree(tmp_path / "d", mods, {"engine.rules": 5})) == "stale"
    assert built("protocol.diff", tmp_path / "d") is None
    assert built("engine.rules", tmp_path / "d") == tmp_path / "d" / "engine" / f"rules{_suffix()}"


def test_every_listed_module_has_its_source_and_no_event_loop() -> None:
    assert all(source(name).is_file() for name in MODULES)
    places = ("engine.", "protocol.", "server.room.", "server.session")
    assert all(name.startswith(places) for name in MODULES)
    # of what awaits, only the room's actor and the sessions' outboxes are compiled (mypyc's
    # coroutines run on asyncio's loop as Python's do); the transports, which websockets and
    # asyncio's streams call back, stay Python
    loop = re.compile(r"^(import|from) asyncio", re.M)
    awaiting = [name for name in MODULES if loop.search(source(name).read_text())]
    assert awaiting == ["server.room.actor", "server.session"]


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


def _imported_from(root: Path, *, env: dict[str, str]) -> list[str]:
    code = (
        "import engine.rules, protocol.diff, engine.compiled as c; "
        "print(engine.rules.__file__); print(protocol.diff.__file__); print(c.active())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "CAFE_PURE": "", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.split()


@pytest.mark.skipif(state() != "compiled", reason="no fresh build of the compiled modules here")
def test_a_stale_build_is_not_run(tmp_path: Path) -> None:
    """A copy of the checkout with its build runs compiled; once a source is newer than its
    build, every listed module is imported from its source; CAFE_PURE=1 does the same."""
    root = tmp_path / "tree"
    root.mkdir()
    for package in ("engine", "protocol", "server"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    for lib in [*ROOT.glob("cafe_compiled__mypyc*"), ROOT / "setup.py"]:
        shutil.copy2(lib, root / lib.name)
    rules, diff, on = _imported_from(root, env={})
    assert rules.endswith(_suffix()) and diff.endswith(_suffix()) and on == "True"

    rules, diff, on = _imported_from(root, env={"CAFE_PURE": "1"})
    assert rules.endswith("rules.py") and diff.endswith("diff.py") and on == "False"

    later = time.time() + 10
    os.utime(source("protocol.diff", root), (later, later))
    rules, diff, on = _imported_from(root, env={})
    assert rules.endswith("rules.py") and diff.endswith("diff.py") and on == "False"
    assert compiled.state(root=root) == "stale"

    # installed (no setup.py beside the packages): the files are as pip wrote them, a source
    # maybe after its build, and the build runs
    (root / "setup.py").unlink()
    rules, diff, on = _imported_from(root, env={})
    assert rules.endswith(_suffix()) and diff.endswith(_suffix()) and on == "True"


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
    # The classes a move makes write their __init__ out (compiled, it is native code): each takes
    # the fields as the one dataclasses writes would, in order and with the same defaults, and
    # sets every one of them.
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
    assert {"Position", "Player", "PlayResult", "SeatMove", "LastMove", "Send", "Step"} <= set(written)
