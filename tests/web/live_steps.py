"""Steps the browser tests of the living page share: a room with a bot, a game ended quickly, and
an accessibility audit with axe-core (vendored in ``vendor/``, injected into the page audited)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.web.pages import come_in, move_number, play_by_clicking, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")

AUDIT = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}"""


def audit(page: Page) -> list[dict[str, Any]]:
    """The serious and critical accessibility violations axe-core finds on the page as it is."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE)
    found: list[dict[str, Any]] = page.evaluate(AUDIT)
    return found


def seat_with_bot(page: Page, name: str | None, room: str, *, start: bool = True) -> None:
    """Come in as ``name`` (unless None: already in), take a seat in ``room``, add a greedy bot
    and (by default) start."""
    if name is not None:
        come_in(page, name)
    page.locator("#room-input").fill(room)
    page.locator(".panel.lobby button.primary").click()
    page.locator(".panel.waiting").wait_for()
    page.locator(f'#room-name[data-room="{room}"]').wait_for()
    page.locator("[data-focus=add-bot]").click()
    page.locator(".seats li.taken").nth(1).wait_for()
    if start:
        page.locator("[data-focus=start]").click()
        page.locator("#app[data-state=playing]").wait_for()


def play_a_move_and_wait_for_the_bot(page: Page) -> None:
    """Wait for your turn, play by clicking, then wait until the bot has answered."""
    page.locator("#app[data-turn=mine]").wait_for()
    played = move_number(page) + 1
    play_by_clicking(page)
    # the bot may answer before the page is asked: wait for the turn to come back, or the end
    wait_until(
        page,
        lambda: (
            move_number(page) > played
            and page.locator("#app[data-turn=mine], #app[data-state=over]").count() > 0
        ),
    )
