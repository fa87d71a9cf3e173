"""The tests that must not run beside their kind (one ``xdist_group``) keep to one worker under
``make test``'s ``--dist loadgroup``: ``tests/conftest.py`` keeps the group in the node id that
pytest-xdist's scheduler reads."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_each_group_runs_on_one_worker_and_says_so_in_its_ids() -> None:
    """Two workers, two modules of browser tests that need no browser beside two tests of no
    group: the modules make the groups ``browser-1`` and ``browser-2`` (``web/conftest.py`` deals
    them in turn), every test of a group ends its id with its name and runs on that group's one
    worker; the others carry no group."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup", "-v"]
    lowest = ["test_pyproject_gives_websockets_one_lower_bound", "test_a_missing_bound_exits_1_saying_why"]
    web = ["tests/web/test_page_german.py", "tests/web/test_static_data.py"]
    argv += [*web, *(f"tests/test_lowest.py::{name}" for name in lowest)]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    ran = re.findall(r"^\[(gw\d)\] .*?PASSED (.+?)\s*$", run.stdout, re.MULTILINE)
    grouped = [(worker, test) for worker, test in ran if test.startswith("tests/web/")]
    others = [test for _, test in ran if not test.startswith("tests/web/")]
    assert len(others) == 2, run.stdout
    for module, group in zip(web, ["browser-1", "browser-2"], strict=True):
        tests = [(worker, test) for worker, test in grouped if test.startswith(module + "::")]
        assert tests and all(test.endswith("@" + group) for _, test in tests), tests
        assert len({worker for worker, _ in tests}) == 1, tests
    assert not any("@" in test for test in others), others
