"""The package's compiled modules: everything else is in pyproject.toml.

The modules ``compiled`` lists are compiled with mypyc when the package is installed:
``pip install .`` puts them beside their sources; ``pip install -e .`` (a checkout, as ``make``
installs it) in ``build/native/lib``, where only ``compiled.use()`` finds them, and only while
they are as new as their sources (``compiled/__init__.py`` says why). Where the build fails (no C
compiler or Python headers), the install goes on without them and the same modules run as Python.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def _compiled() -> Any:
    """The ``compiled`` package, read without importing the others (nothing is built yet)."""
    spec = importlib.util.spec_from_file_location("_cafe_compiled", HERE / "compiled" / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COMPILED = _compiled()


def _warn(what: str, error: BaseException) -> None:
    print(f"setup.py: {what} ({type(error).__name__}: {error}); the modules run as Python", file=sys.stderr)


class _Optional(build_ext):
    """Build what compiles, and nothing after the first that does not: the modules' shared library
    comes first, and a module without it would not import. In an editable install, build into the
    checkout's build folder, every module anew (a build is fresh when it is newer than every
    source), and remove the copies an older build left beside the sources. The C files of one
    extension compile at once, one a core (setuptools would compile them one after the other)."""

    failed = False

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.editable_mode:  # setuptools' flag for `pip install -e` (PEP 660)
            self.inplace = False
            self.build_lib = str(HERE / COMPILED.BUILD)
            self.force = True

    def run(self) -> None:
        if self.editable_mode:
            for ext in self.extensions:
                (HERE / self.get_ext_filename(self.get_ext_fullname(ext.name))).unlink(missing_ok=True)
        try:
            super().run()
        except Exception as e:  # a missing compiler fails here
            _warn("the compiled modules were not built", e)

    def build_extensions(self) -> None:
        self.compiler.compile = _parallel(self.compiler.compile)  # (once: the compiler is shared)
        super().build_extensions()

    def build_extension(self, ext: Any) -> None:
        if self.failed:
            return
        try:
            super().build_extension(ext)
        except Exception as e:
            self.failed = True
            _warn(f"{ext.name} was not built, nor those after it", e)


def _parallel(compile_: Callable[..., list[str]]) -> Callable[..., list[str]]:
    """``compile_`` (a compiler's ``compile``) run on each source apart, as many at once as this
    process may use cores: each is a C compiler process of its own."""

    def compile_each(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        jobs = min(len(os.sched_getaffinity(0)), len(sources)) if hasattr(os, "sched_getaffinity") else 1
        if jobs <= 1:
            return compile_(sources, *args, **kwargs)
        with ThreadPoolExecutor(jobs) as pool:
            objects = pool.map(lambda source: compile_([source], *args, **kwargs), sources)
            return [name for each in objects for name in each]

    return compile_each


#: the commands that build the modules: pip runs setup.py once for the metadata alone, first
_BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"}

#: mypyc's translation, run in a process of its own: it writes the extensions it made (pickled) on
#: its standard output, what mypy says going to its standard error, then leaves without freeing
#: mypy's objects, which took as long as the translation (4 s)
_TRANSLATE = """
import os, pickle, sys
out = os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)
from mypyc.build import mypycify
extensions = mypycify(sys.argv[2:], opt_level="3", target_dir="build/native", group_name=sys.argv[1],
                      multi_file=True)
out.write(pickle.dumps(extensions))
out.close()
sys.stdout.flush()
os._exit(0)
"""


def _extensions() -> list[Any]:
    if _BUILDS.isdisjoint(sys.argv[1:]):
        return []
    # the settings of pyproject.toml's [tool.mypy] are for checking; here mypy only reads types,
    # in a build environment without the dependencies (pydantic's types are Any here); a C file a
    # module, compiled at once (_parallel): one file of them all took gcc -O3 a minute on one
    # core, and the instructions a move are the same (callgrind)
    options = ["--config-file", os.devnull, "--ignore-missing-imports", "--cache-dir", "build/native/mypy"]
    sources = [str(COMPILED.source(name, HERE).relative_to(HERE)) for name in COMPILED.MODULES]
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TRANSLATE, COMPILED.GROUP, *options, *sources],
            cwd=HERE,
            stdout=subprocess.PIPE,
            check=True,
        )
        return list(pickle.loads(done.stdout))
    except (OSError, subprocess.CalledProcessError, pickle.UnpicklingError, EOFError) as e:
        # mypy not installed, or its compiler refused a module (what it said is above)
        _warn("mypyc did not translate the modules", e)
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": _Optional})
