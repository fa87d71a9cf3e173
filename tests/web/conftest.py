"""Browser tests: the server runs on its own thread and event loop, headless Chromium is driven by
Playwright's sync API from the test's thread.

Chromium is the system's headless shell (Debian's ``chromium-headless-shell``:
``/usr/bin/chromium-headless-shell``, or ``CAFE_CHROMIUM``), the same Blink as the ``chromium``
package without the desktop browser around it, and what Playwright runs for headless Chromium by
default: the browser tests take about half the CPU they take in the whole browser (whose browser
process composited every frame). Playwright never downloads a browser here. A missing browser or
Playwright fails these tests with a message saying what to install: they are never skipped.

Under ``make test``'s workers (pytest-xdist, ``--dist loadgroup``) they make two groups
(``BROWSER_GROUPS``), each on one worker, one test after the other, with a server and a Chromium
of its own; without workers they all share one. A group is an ``xdist_group``, which
``tests/conftest.py`` keeps in the node ids that pytest-xdist's scheduler reads.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from server.app import Server
from server.config import Config

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HERE = Path(__file__).parent
CHROMIUM = os.environ.get("CAFE_CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).parents[2] / "artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

T = TypeVar("T")


class ServerThread:
    """A whole server (``server.app.Server``) on a thread of its own, so that the browser, driven
    synchronously from the test, and the server never wait on each other."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.port = 0
        self.server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cafe-server", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:  # reported by start() or stop() on the test's thread
            self._failure = e
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        config = Config.model_validate(
            {
                "port": 0,
                "line_port": -1,
                "data": str(self.data),
                "log_level": "warning",
                "resume_window": 60,
                # an analysis shows the same in the page whatever it spent: 0.05 s a move, not 0.75
                "analysis_budget": 0.05,
            }
        )
        self.server = Server(config)
        await self.server.start()
        self.port = self.server.port
        self._ready.set()
        await self._stop.wait()
        await self.server.stop()

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(20) or self._failure is not None:
            raise RuntimeError(f"the server did not start: {self._failure!r}")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)
        if self._failure is not None:
            raise RuntimeError(f"the server failed: {self._failure!r}")

    def call(self, fn: Callable[[Server], T]) -> T:
        """Run ``fn(server)`` on the server's loop (where its state may be read) and return the result."""
        assert self._loop is not None and self.server is not None
        server = self.server

        async def run() -> T:
            return fn(server)

        coroutine: Coroutine[Any, Any, T] = run()
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


#: how many groups the browser tests make: each runs on one worker with a server and a Chromium of
#: its own, one test after the other (with one Chromium on each of four workers, a whole game in
#: the page took five times as long and a click waited past its 15 s; two share two cores well)
BROWSER_GROUPS = 2


@pytest.hookimpl(tryfirst=True)  # (before pytest-xdist's own reads the groups)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests make ``BROWSER_GROUPS`` groups for pytest-xdist, ``browser-1`` and on, a
    module's tests in one, the modules dealt in turn in the order of their names: a group keeps
    its worker's server and browser from its first test to its last."""
    modules = sorted({item.path for item in items if item.path.is_relative_to(HERE)})
    group = {path: f"browser-{i % BROWSER_GROUPS + 1}" for i, path in enumerate(modules)}
    for item in items:
        if item.path in group:
            item.add_marker(pytest.mark.xdist_group(group[item.path]))


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    """One server for the browser tests; each test uses rooms and names of its own."""
    thread = ServerThread(tmp_path_factory.mktemp("web") / "cafe.db")
    thread.start()
    yield thread
    thread.stop()


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Headless Chromium, launched once for the browser tests."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is needed for the browser tests and was not found at {CHROMIUM}: "
            "install it (apt-get install -y chromium-headless-shell) or set CAFE_CHROMIUM to its path.",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "Playwright is needed for the browser tests: .venv/bin/pip install playwright "
            "(no browser download is needed; the system's Chromium is used).",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser: Browser, server: ServerThread) -> Iterator[Callable[..., Page]]:
    """Open the web page in a fresh browser context (its own storage, like another person's
    browser): ``open_page(viewport=DESKTOP, locale="en-US")``. Everything opened is closed after the test."""
    contexts = []
    errors: list[str] = []

    def open_(viewport: dict[str, int] = DESKTOP, locale: str = "en-US") -> Page:
        # without animations a pointer finds each element at rest at once
        context = browser.new_context(viewport=viewport, reduced_motion="reduce", locale=locale)  # type: ignore[arg-type]
        contexts.append(context)
        context.add_init_script(WATCH_CSP)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        return page

    yield open_
    for context in contexts:
        for page in context.pages:
            errors.extend(csp_violations(page))
        context.close()
    assert not errors, f"the page raised JavaScript errors or broke its Content-Security-Policy: {errors}"


#: records every Content-Security-Policy violation of a page in ``window.cspViolations``
WATCH_CSP = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""


def csp_violations(page: Page) -> list[str]:
    """The Content-Security-Policy violations the page has seen so far."""
    found: list[str] = page.evaluate("window.cspViolations || []")
    return found
