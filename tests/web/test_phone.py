"""The page on a phone and when things go wrong: chairs a thumb can hit, a lost connection that
dims the board and says so, and the browser notification when your turn comes."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from server.app import Server
from tests.web.conftest import PHONE, ServerThread
from tests.web.live_steps import seat_with_bot
from tests.web.pages import come_in, wait_until

#: the smallest side, in CSS pixels, of a target a thumb hits reliably
THUMB = 40

CHAIR_SIZES = """() => [...document.querySelectorAll('#board .chair .seat')].map((seat) => {
  const box = seat.getBoundingClientRect();
  return Math.min(box.width, box.height);
})"""

FIRST_TARGET_IN_FRAME = """() => {
  const chair = document.querySelector('#board .chair.target .seat')
    ?? document.querySelector('#board .bar.target .counter');
  const frame = document.querySelector('.board-wrap').getBoundingClientRect();
  const box = chair.getBoundingClientRect();
  return box.left >= frame.left && box.right <= frame.right
    && box.top >= frame.top && box.bottom <= frame.bottom;
}"""


def choose_a_playable_card(page: Page) -> None:
    page.locator("#app[data-legal=ready]").wait_for()
    page.locator("#hand .card.playable").first.click()
    page.locator("#board .target").first.wait_for(state="attached")


def test_chairs_on_a_phone_are_big_enough_for_a_thumb(open_page: Callable[..., Page]) -> None:
    """At 390×844 every chair is at least 40 CSS px while playing, the chosen guest's first place is
    in the frame, the page does not scroll sideways; "Whole café" shows it all, smaller."""
    page = open_page(PHONE)
    seat_with_bot(page, "thumb", "thumbs")
    page.locator("#app[data-turn=mine]").wait_for()
    sizes = page.evaluate(CHAIR_SIZES)
    assert len(sizes) > 50 and min(sizes) >= THUMB, min(sizes)
    choose_a_playable_card(page)
    assert page.evaluate(FIRST_TARGET_IN_FRAME)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#zoom-btn").click()
    whole = page.evaluate(CHAIR_SIZES)
    assert max(whole) < THUMB  # the whole café does not fit a phone at thumb size: the zoom is needed
    assert page.locator("#zoom-btn").inner_text() == "Zoom in"
    page.locator("#zoom-btn").click()
    assert min(page.evaluate(CHAIR_SIZES)) >= THUMB


def test_the_browser_going_offline_is_a_lost_connection_at_once(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """The browser says the network is gone: the page does not wait for its socket to find out (a
    socket on a dead network may look open for minutes), it says the connection is lost and dims
    the board; when the network is back it comes in again with its token, to the same seat, the
    message goes and the board is bright."""
    page = open_page()
    seat_with_bot(page, "unplugged", "unplugged-room")
    board = page.locator(".board-wrap")
    assert board.evaluate("(e) => getComputedStyle(e).opacity") == "1"
    assert page.locator("#banner").is_hidden()
    page.context.set_offline(True)  # and the page's attempts to reconnect fail while it is
    page.locator("#banner", has_text="connection is lost").wait_for()
    assert page.locator("#app").get_attribute("data-conn") in ("reconnecting", "connecting")
    assert float(board.evaluate("(e) => getComputedStyle(e).opacity")) < 1
    page.context.set_offline(False)  # the browser says it is online again: the page tries at once
    page.locator("#app[data-conn=connected][data-state=playing]").wait_for()
    page.locator("#banner").wait_for(state="hidden")
    assert board.evaluate("(e) => getComputedStyle(e).opacity") == "1"
    page.locator("#hand .card").first.wait_for()

    # the page says "connected" when its socket opens, before the server has read its hello: the
    # server's side is awaited, then the seat is the page's again
    def connected(s: Server) -> bool:
        return any(x.name == "unplugged" and not x.closed for x in s.lobby.all_sessions)

    wait_until(page, lambda: server.call(connected), deadline=10)
    assert server.call(lambda s: s.lobby.rooms["unplugged-room"].core.seats.index_of("unplugged")) == 0


#: records each Notification the page makes, and has the page hidden (a tab in the background)
WATCH_NOTIFICATIONS = """
window.notified = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options) {
    super(title, options);
    window.notified.push({ title, body: options?.body ?? "" });
  }
  // granted, as the person's answer would be: the headless shell answers "denied" to every page
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
Object.defineProperty(Document.prototype, "hidden", { get: () => true });
Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden" });
"""


def test_your_turn_makes_a_browser_notification_when_switched_on(open_page: Callable[..., Page]) -> None:
    """With notifications granted and switched on, your turn in a hidden tab makes one notification."""
    page = open_page()
    page.context.grant_permissions(["notifications"])
    page.context.add_init_script(WATCH_NOTIFICATIONS)
    page.reload()
    come_in(page, "notified")
    page.locator("#notify-on").check()
    assert page.locator("#notify-on").is_checked()
    assert page.evaluate("window.notified.length") == 0
    seat_with_bot(page, None, "notifying")
    page.locator("#app[data-turn=mine]").wait_for()
    page.wait_for_function("() => window.notified.length >= 1")
    note = page.evaluate("window.notified[0]")
    assert note == {"title": "Café International", "body": "Your turn."}


def test_the_german_lobby_with_a_long_room_line_fits_a_phone(open_page: Callable[..., Page]) -> None:
    """A room whose line is long (a 16-letter name and a bot seated, "im Spiel", "Zuschauen"):
    on a German phone the lobby stays within the screen, the names cut short rather than the
    page scrolling sideways."""
    host = open_page()
    seat_with_bot(host, "longestnamehere1", "longline")
    phone = open_page(PHONE, locale="de-DE")
    come_in(phone, "schmal")
    phone.locator(".rooms li", has_text="longline").wait_for()
    box = phone.locator(".panel.lobby").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # the names cut short are whole in the line's title
    who = phone.locator(".rooms li", has_text="longline").locator(".who")
    assert "longestnamehere1" in (who.get_attribute("title") or "")


HIT = """(id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  const target = document.getElementById(id);
  return hit !== null && (hit === target || target.contains(hit) || hit.contains(target));
}"""

#: the luminance of a button's text and of its ground as seen: its background laid over the header's
LEGIBLE = """(id) => {
  const style = getComputedStyle(document.getElementById(id));
  const header = getComputedStyle(document.querySelector(".top")).backgroundColor;
  const rgba = (text) => {
    const v = text.match(/[0-9.]+/g).map(Number);
    return [...v.slice(0, 3), v[3] ?? 1];
  };
  const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const [r, g, b, a] = rgba(style.backgroundColor);
  const under = rgba(header);
  const seen = [r, g, b].map((c, i) => a * c + (1 - a) * under[i]);
  return [lum(rgba(style.color)), lum(seen), style.backgroundColor];
}"""


def test_the_name_menu_on_a_phone_hides_nothing_it_opens_and_stays_legible(
    open_page: Callable[..., Page],
) -> None:
    """A tap on one's name on a phone opens Switch account and Log out and shows the row of
    Sound, Notify, the rules and the leaderboard: each of them can be tapped (none is under the
    menu), and the name on its button stays legible (light on dark) while it is open."""
    page = open_page(PHONE)
    come_in(page, "menuuma")
    page.locator("#me").click()
    page.locator("#switch-btn").wait_for()
    for target in ("sound-on", "notify-on", "rules-link", "people-btn", "switch-btn", "logout-btn"):
        assert page.evaluate(HIT, target), target
    text, ground, shown = page.evaluate(LEGIBLE, "me")
    assert text - ground > 100, (text, ground, shown)


HEADER_ROWS = """() => {
  // each shown item by its middle, rows told apart by a gap of more than 16 px between middles;
  // the right end of each row
  const items = [...document.querySelector('header.top').children]
    .map((item) => item.getBoundingClientRect())
    .filter((box) => box.width > 0)
    .map((box) => [box.top + box.height / 2, box.right])
    .sort((a, b) => a[0] - b[0]);
  const ends = [];
  let last = -Infinity;
  for (const [middle, right] of items) {
    if (middle - last > 16) ends.push(right);
    else ends[ends.length - 1] = Math.max(ends[ends.length - 1], right);
    last = middle;
  }
  return ends;
}"""


def test_a_narrow_desktops_header_wraps_its_items_to_the_right(open_page: Callable[..., Page]) -> None:
    """At 1024 px in German the header's items take two rows in a game; the second row ends where
    the first does, on the right, below the items it continues."""
    page = open_page({"width": 1024, "height": 800}, locale="de-DE")
    seat_with_bot(page, "heidi", "kopf")
    page.locator("#app[data-state=playing]").wait_for()
    ends = page.evaluate(HEADER_ROWS)
    assert len(ends) >= 2, ends
    assert max(ends) - min(ends) < 1, ends
