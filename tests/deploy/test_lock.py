"""The lock files (requirements/, made by `make lock`): every dependency pinned to one version with
its hashes, within pyproject.toml's ranges, the same version in every lock; and the installs of
the Makefile and the image read them with --require-hashes."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCKED = ROOT / "requirements"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def pins(lock: str) -> dict[str, tuple[str, int]]:
    """A lock file's pins: canonical name -> (version, number of hashes)."""
    text = (LOCKED / lock).read_text()
    found: dict[str, tuple[str, int]] = {}
    # a requirement is a line that does not start with a space or '#', with its continuation lines
    for entry in re.split(r"\n(?=[^\s#])", text):
        lines = [line for line in entry.splitlines() if not line.lstrip().startswith("#")]
        if not lines:
            continue
        joined = " ".join(line.rstrip(" \\") for line in lines)
        spec, *hashes = joined.split("--hash=")
        requirement = Requirement(spec.strip())
        (pinned,) = requirement.specifier
        assert pinned.operator == "==", f"{lock}: {spec.strip()} is not pinned"
        assert all(h.strip().startswith("sha256:") for h in hashes), f"{lock}: {requirement.name}"
        found[canonicalize_name(requirement.name)] = (pinned.version, len(hashes))
    return found


def within(lock: str, wanted: list[str]) -> None:
    locked = pins(lock)
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{lock} lacks {requirement.name}"
        version, _ = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), f"{lock}: {name} {version}"


def test_every_pin_has_a_version_and_its_hashes() -> None:
    """Each lock pins each package with == and at least one sha256 hash."""
    for lock in ("server.txt", "build.txt", "dev.txt", "mutate.txt", "uv.txt"):
        locked = pins(lock)
        assert locked, lock
        assert all(count >= 1 for _, count in locked.values()), lock


def test_every_dependency_is_locked_within_pyproject_ranges() -> None:
    """The server's dependencies, the build's and the dev tools are each in their lock, at a
    version pyproject.toml allows."""
    runtime = PROJECT["project"]["dependencies"]
    build = PROJECT["build-system"]["requires"]
    extras = PROJECT["project"]["optional-dependencies"]
    within("server.txt", runtime)
    within("build.txt", build)
    within("dev.txt", runtime + build + extras["dev"])
    within("mutate.txt", runtime + extras["mutate"])


def test_make_test_installs_no_mutation_tester() -> None:
    """The mutation tester and its terminal toolkit are `make mutate`'s alone: with rich at hand,
    structlog imports it in every process the tests start."""
    dev = pins("dev.txt")
    assert "mutmut" not in dev and "rich" not in dev


def test_the_locks_agree_on_every_version() -> None:
    """A package in two locks has one version: the tests run what the image ships."""
    server, build, dev = pins("server.txt"), pins("build.txt"), pins("dev.txt")
    for name, (version, _) in {**server, **build}.items():
        assert dev[name][0] == version, name
    for name, (version, _) in pins("mutate.txt").items():
        assert name not in dev or dev[name][0] == version, name
    for name in server.keys() & build.keys():
        assert server[name][0] == build[name][0], name


def test_installs_read_the_locks_with_their_hashes() -> None:
    """The Makefile and the Dockerfile install the locked dependencies with --require-hashes and
    the project itself without dependencies or build isolation."""
    makefile = (ROOT / "Makefile").read_text()
    assert "$(INSTALL) --require-hashes -r $(LOCKED)/dev.txt" in makefile
    assert "$(INSTALL) --require-hashes -r $(LOCKED)/mutate.txt" in makefile
    assert "$(INSTALL) --require-hashes -r $(LOCKED)/server.txt -r $(LOCKED)/build.txt" in makefile
    assert "INSTALL_PROJECT = $(INSTALL) --no-deps --no-build-isolation" in makefile
    assert "pip install --quiet --require-hashes -r $(LOCKED)/uv.txt" in makefile
    for line in makefile.splitlines():  # no install that resolves the project's dependencies itself
        assert not re.search(r"\s-e \.", line) or "--no-deps" in line, line
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--require-hashes -r requirements/build.txt" in dockerfile
    assert "--require-hashes -r requirements/server.txt" in dockerfile
    assert "pip install --no-deps /wheels/" in dockerfile
    assert not re.search(r"pip install \.", dockerfile)


def test_the_installer_is_the_version_the_makefile_names() -> None:
    """uv.txt locks the uv that `make lock` names (UV_VERSION), alone: the installs run the
    installer the locks were made with."""
    named = re.search(r"^UV_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert named is not None
    assert pins("uv.txt") == {"uv": (named.group(1), pins("uv.txt")["uv"][1])}
