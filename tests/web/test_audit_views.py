"""Every view of the page passes axe-core (serious and critical findings), colour contrast included:
where axe cannot decide a text's background (a shape drawn under it, a layer over it), the text's
colour is measured against the colours painted under its middle, to WCAG AA (4.5:1, or 3:1 for
large text). Welcome, lobby, a waiting room, a game, its end, the replay, a profile and the
leaderboard, at 1280×800 and 390×844."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, PHONE, ServerThread
from tests.web.live_steps import AXE, audit, play_a_move_and_wait_for_the_bot, seat_with_bot
from tests.web.pages import come_in, type_line

#: the texts axe could not decide, measured here: colour against what is painted beneath
UNDECIDED = """async () => {
  const result = await axe.run(document, { runOnly: ["color-contrast"], resultTypes: ["incomplete"] });
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a];
  };
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const paint = (el) => {
    const s = getComputedStyle(el);
    if (el instanceof SVGElement) {
      if (["text", "g", "svg", "title"].includes(el.tagName)) return null;
      const fill = parse(s.fill);
      return fill ? [...fill.slice(0, 3), fill[3] * Number(s.fillOpacity) * Number(s.opacity)] : null;
    }
    const bg = parse(s.backgroundColor);
    return bg && bg[3] > 0 ? [...bg.slice(0, 3), bg[3] * Number(s.opacity)] : null;
  };
  const found = [];
  for (const rule of result.incomplete) for (const node of rule.nodes) {
    const el = document.querySelector(node.target[0]);
    if (!el) continue;
    el.scrollIntoView({ block: "center", inline: "center" });  // what is beneath is read where it shows
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const s = getComputedStyle(el);
    const color = parse(el instanceof SVGElement ? s.fill : s.color);
    if (!color) continue;
    const stack = document.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    // what is painted beneath: in an SVG, the shapes before the text in the document (its paint
    // order) and then what lies under the SVG; elsewhere, what lies under the element
    let beneath;
    const svg = el.ownerSVGElement;
    if (svg) {
      const before = (u) => el.compareDocumentPosition(u) & Node.DOCUMENT_POSITION_PRECEDING;
      const shapes = stack.filter((u) => svg.contains(u) && !u.contains(el) && before(u));
      beneath = [...shapes, ...stack.slice(stack.indexOf(svg) + 1)];
    } else {
      beneath = stack.includes(el) ? stack.slice(stack.indexOf(el) + 1) : [];
      for (let a = el.parentElement; a && !beneath.length; a = a.parentElement) if (paint(a)) beneath = [a];
    }
    const layers = [];
    for (const under of beneath) {
      const p = paint(under);
      if (p) { layers.push(p); if (p[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    for (const layer of layers.reverse()) bg = over(layer, bg);
    const fg = over(color, bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) found.push(`${node.target[0]}: ${ratio.toFixed(2)} < ${need}`);
  }
  return found;
}"""


def checked(page: Page) -> list[Any]:
    """The findings of axe and the contrast of the texts axe could not decide, on the page as it is."""
    found: list[Any] = audit(page)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE)
    found += page.evaluate(UNDECIDED)
    return found


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("size", "who"), [(DESKTOP, "auditdesk"), (PHONE, "auditphone")])
def test_every_view_passes_the_audit_and_the_contrast_check(
    open_page: Callable[..., Page], server: ServerThread, size: dict[str, int], who: str
) -> None:
    """Welcome, lobby, waiting room, game, end of game, profile, leaderboard and replay: no
    finding of axe, and every text it could not decide reaches WCAG AA contrast."""
    page = open_page(size)
    page.locator("#name-dialog").wait_for()
    views: dict[str, list[Any]] = {"welcome": checked(page)}
    come_in(page, who)
    views["lobby"] = checked(page)
    seat_with_bot(page, None, f"audit-{who}", start=False)
    page.locator("#opt-absent").select_option("drop")
    views["waiting"] = checked(page)
    page.locator("[data-focus=start]").click()
    play_a_move_and_wait_for_the_bot(page)
    type_line(page, "/help")
    page.locator("#log pre.help").wait_for()
    views["game"] = checked(page)
    type_line(page, "/stand")
    page.locator(".panel.result").wait_for()
    views["end"] = checked(page)
    page.locator("[data-focus=show-cafe]").click()
    page.locator("#me").click()
    page.locator("#people-btn").click()
    page.locator("#people-dialog .leaderboard, #people-dialog p").first.wait_for()
    views["leaderboard"] = checked(page)
    page.locator("#people-dialog button[value=close]").click()
    page.locator(f"#players [data-profile={who}]").first.click()
    page.locator("#people-dialog #people-title", has_text=who).wait_for()
    page.locator("#people-dialog a[data-share=profile]").wait_for()
    views["profile"] = checked(page)
    game_id = server.call(lambda s: s.lobby.rooms[f"audit-{who}"].core.game.game_id)  # type: ignore[union-attr]
    page.goto(f"{server.url}games/{game_id}")
    page.locator("#replay[data-step='0']").wait_for()
    page.locator("#forward").click()
    views["replay"] = checked(page)
    assert {view: found for view, found in views.items() if found} == {}
