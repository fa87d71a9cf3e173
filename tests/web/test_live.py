"""The page around the board, as a new player tries it: rules, leaving, results, history that
survives a reload, a lobby that lives, the chat, the focus, the clock, the signal, the second tab,
options as controls, replays, and an accessibility audit of each screen."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from tests.web.conftest import ARTIFACTS, DESKTOP, PHONE, ServerThread
from tests.web.live_steps import audit, play_a_move_and_wait_for_the_bot, seat_with_bot
from tests.web.pages import come_in, type_line, wait_for_line, wait_until


def test_the_rules_are_linked_from_the_page_and_read_as_a_page(open_page: Callable[..., Page]) -> None:
    """The header links /rules, which shows the rules with their sections, and passes the audit."""
    page = open_page()
    come_in(page, "rula")
    assert page.locator(".top a.rules-link").get_attribute("href") == "/rules?lang=en"
    page.goto(page.url.split("#")[0].rstrip("/") + "/rules?lang=en")
    assert page.locator("h1").inner_text() == "How to play Café International"
    assert page.locator("h2", has_text="Writing moves").count() == 1
    found = audit(page)
    assert found == [], found


def test_leaving_a_running_game_asks_first_and_says_what_happens_to_the_seat(
    open_page: Callable[..., Page],
) -> None:
    """Leave room during a game opens a question naming the bot that will play; Stay keeps the seat."""
    page = open_page()
    seat_with_bot(page, "leo", "leaving")
    page.locator("#lobby-btn").click()
    dialog = page.locator("#leave-dialog")
    dialog.wait_for()
    assert "a bot plays your seat" in page.locator("#leave-text").inner_text()
    page.locator("#leave-dialog button.primary").click()  # Stay
    assert not dialog.is_visible()
    assert page.locator("#app").get_attribute("data-state") == "playing"
    page.locator("#lobby-btn").click()
    page.locator("#leave-confirm").click()
    page.locator(".panel.lobby").wait_for()


def test_the_address_shows_the_room_to_share_and_opens_it_to_watch(open_page: Callable[..., Page]) -> None:
    """In a room the page's address ends with ``#ROOM``, the address README gives to share (a
    table quick pairing or a tournament made too); opened in another browser it watches that room;
    back in the lobby the address names no room."""
    page, friend = open_page(), open_page()
    seat_with_bot(page, "hashann", "shared-table")
    page.wait_for_function("() => location.hash === '#shared-table'")
    friend.goto(page.url)
    friend.reload()  # (a new page at that address: the tab was open at the server's address)
    come_in(friend, "hashbob")
    friend.locator('#room-name[data-room="shared-table"]').wait_for()
    friend.locator("#app[data-state=playing]").wait_for()
    page.locator("#lobby-btn").click()
    page.locator("#leave-confirm").click()
    page.locator(".panel.lobby").wait_for()
    page.wait_for_function("() => location.hash === ''")


def test_after_showing_the_cafe_the_results_and_play_again_come_back(open_page: Callable[..., Page]) -> None:
    """At game over "Show the café" hides the ranking; "Show the results" brings it and Play again back."""
    ann, bob = open_page(), open_page()
    come_in(ann, "resa")
    come_in(bob, "resb")
    ann.locator("#room-input").fill("results")
    ann.locator(".panel.lobby button.primary").click()
    ann.locator(".panel.waiting").wait_for()
    ann.locator("#opt-absent").select_option("drop")
    bob.locator("#room-input").fill("results")
    bob.locator(".panel.lobby button.primary").click()
    ann.locator(".seats li.taken").nth(1).wait_for()
    ann.locator("[data-focus=start]").click()
    bob.locator("#app[data-state=playing]").wait_for()
    type_line(bob, "/stand")  # with absent drop bob leaves the game: one player is left, it is over
    ann.locator(".panel.result").wait_for()
    found = audit(ann)
    assert found == [], found
    ann.locator("[data-focus=show-cafe]").click()
    assert not ann.locator(".panel.result").is_visible()
    ann.locator("#results-btn").click()
    ann.locator(".panel.result").wait_for()
    assert ann.locator("[data-focus=again]").is_visible()


def test_a_reload_keeps_the_chat_and_the_moves_in_words(open_page: Callable[..., Page]) -> None:
    """After a reload the chat lines and the game's moves are back; moves read in words and notation."""
    page = open_page()
    seat_with_bot(page, "relo", "live-reload")
    type_line(page, "hello after reload")
    wait_for_line(page, "hello after reload")
    play_a_move_and_wait_for_the_bot(page)
    before = page.locator("#history li").all_inner_texts()
    assert len(before) >= 2
    page.reload()
    page.locator("#app[data-conn=connected][data-state=playing]").wait_for()
    page.locator("#history li").nth(len(before) - 1).wait_for()
    assert page.locator("#history li").all_inner_texts()[: len(before)] == before
    assert page.locator("#log .line", has_text="hello after reload").count() == 1
    line = before[0]
    words = r"^[\w-]+: .* (man|woman) (at [A-Z]{2}[12] (north|east|south|west)|to the bar).*: [+−0-9]"
    assert re.match(words, line), line
    assert page.locator("#history li").first.get_attribute("data-move")


def test_the_moves_since_your_last_turn_are_lit(open_page: Callable[..., Page]) -> None:
    """Every move since your own last one is marked in the list, and its chairs are lit on the board."""
    page = open_page()
    seat_with_bot(page, "lit", "lit")
    play_a_move_and_wait_for_the_bot(page)
    page.locator("#app[data-turn=mine]").wait_for()
    recent = page.locator("#history li.recent")
    assert recent.count() >= 1
    assert all(not t.startswith("lit:") for t in recent.all_inner_texts())
    lit = page.locator("#board .chair.last").count() + page.locator("#board .slot.last").count()
    assert lit >= 1
    found = audit(page)
    assert found == [], found


def test_a_move_adds_its_own_item_to_the_list_of_moves(open_page: Callable[..., Page]) -> None:
    """A move adds its item at the foot of the list, in view; the items already there stay as they
    were (the same elements), only their marks of the recent moves change."""
    page = open_page(PHONE)  # a short list, so that it scrolls
    seat_with_bot(page, "grows", "grows")
    play_a_move_and_wait_for_the_bot(page)
    page.locator("#app[data-turn=mine]").wait_for()
    before = page.evaluate(
        """() => [...document.querySelectorAll('#history li')].map((li) => {
             li.dataset.seen = '1';
             return li.dataset.move;
           })"""
    )
    play_a_move_and_wait_for_the_bot(page)
    page.locator("#app[data-turn=mine]").wait_for()
    items = page.evaluate(
        """() => [...document.querySelectorAll('#history li')].map((li) => ({
             move: li.dataset.move, seen: li.dataset.seen === '1', recent: li.classList.contains('recent'),
           }))"""
    )
    assert [item["move"] for item in items[: len(before)]] == before
    assert all(item["seen"] for item in items[: len(before)]), items
    assert len(items) >= len(before) + 2 and not any(item["seen"] for item in items[len(before) :]), items
    assert not any(item["recent"] for item in items[: len(before)]) and items[-1]["recent"], items
    at_foot = """() => { const list = document.querySelector('#history ol');
                         return list.scrollTop + list.clientHeight >= list.scrollHeight - 2; }"""
    wait_until(page, lambda: page.evaluate(at_foot))


def test_the_lobby_shows_rooms_opening_and_closing_and_who_is_online(
    open_page: Callable[..., Page],
) -> None:
    """A room opened in another browser appears in the lobby without a reload, and goes when it empties."""
    lobby, other = open_page(), open_page()
    come_in(lobby, "lobbyist")
    come_in(other, "opener")
    other.locator("#room-input").fill("brandnew")
    other.locator(".panel.lobby button.primary").click()
    lobby.locator(".rooms li", has_text="brandnew").wait_for()
    lobby.locator(".online", has_text="opener").wait_for()
    assert audit(lobby) == []
    other.locator("#lobby-btn").click()
    wait_until(lobby, lambda: lobby.locator(".rooms li", has_text="brandnew").count() == 0)


def test_your_own_chat_line_shows_once(open_page: Callable[..., Page]) -> None:
    """A chat line you type appears once, with your name."""
    page = open_page()
    seat_with_bot(page, "echo", "echo", start=False)
    type_line(page, "just once please")
    wait_for_line(page, "just once please")
    page.wait_for_timeout(300)
    assert page.locator("#log .line", has_text="just once please").count() == 1


def test_the_focus_follows_the_person_not_the_top_of_the_page(open_page: Callable[..., Page]) -> None:
    """After the name the room field has the focus; in a room the next step; after Add bot, Add bot."""
    page = open_page()
    come_in(page, "focus")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'room-input'")
    page.locator("#room-input").fill("focusroom")
    page.locator("#room-input").press("Enter")
    page.locator(".panel.waiting").wait_for()
    page.wait_for_function("() => document.activeElement?.dataset.focus === 'add-bot'")
    page.locator("[data-focus=add-bot]").focus()
    page.keyboard.press("Enter")
    page.locator(".seats li.taken").nth(1).wait_for()
    assert page.evaluate("document.activeElement.dataset.focus") == "add-bot"


def test_a_move_the_clock_played_is_not_called_absent(open_page: Callable[..., Page]) -> None:
    """The line for a move the clock played says the clock ran out; an absent player's says absent."""
    page = open_page()
    lines = page.evaluate(
        """async () => {
          const { playedLine } = await import("/chat.js");
          const base = { player: "ann", move: "FRf@bar", points: 1, events: [] };
          return [playedLine({ ...base, auto: true, clock: true }),
                  playedLine({ ...base, auto: true, clock: false })];
        }"""
    )
    assert lines[0].endswith("(the clock ran out)") and "absent" not in lines[0]
    assert lines[1].endswith("(played for an absent player)")


def test_hand_and_bar_tiles_keep_code_sign_badge_and_value_apart(open_page: Callable[..., Page]) -> None:
    """In a hand card the nation code ends before the sign starts; a joker's J stays inside its
    card; a guest on the bar leaves the place's value uncovered."""
    page = open_page(PHONE)
    boxes = page.evaluate(
        """async () => {
          const { guestTile } = await import("/flags.js");
          const ns = "http://www.w3.org/2000/svg";
          const svg = document.createElementNS(ns, "svg");
          svg.setAttribute("viewBox", "-29 -35 58 70");
          svg.style.width = "58px";
          document.body.append(svg);
          const out = {};
          for (const card of ["GBm", "CFf", "Jf"]) {
            svg.innerHTML = guestTile(card, 56, 68);
            const box = (el) => {
              const b = el.getBBox();
              return { x: b.x, y: b.y, width: b.width, height: b.height };
            };
            const code = box(svg.querySelector(".code"));
            const glyph = box(svg.querySelector(".glyph"));
            const badge = svg.querySelector(".j-badge") ? box(svg.querySelector(".j-badge")) : null;
            out[card] = { codeRight: code.x + code.width, glyphLeft: glyph.x, badge };
          }
          const { CafeBoard } = await import("/board.js");
          const board = await (await fetch("/board.json")).json();
          const cafe = document.createElementNS(ns, "svg");
          document.body.append(cafe);
          const view = new CafeBoard(cafe, board, { onChair() {}, onBar() {} });
          const last = { chairs: new Set(), bar: new Set() };
          view.update({ chairs: {}, bar: ["GBm"], targets: new Map(), picks: [], last });
          const slot = cafe.querySelector(".slot");
          const tile = slot.querySelector(".tile").getBBox();
          const value = slot.querySelector(".value").getBBox();
          const tileTransform = -5.5;
          const code = slot.querySelector(".code").getAttribute("font-size");
          out.bar = { tileBottom: tile.y + tile.height + tileTransform, valueTop: value.y, code };
          return out;
        }"""
    )
    for card in ("GBm", "CFf", "Jf"):
        assert boxes[card]["codeRight"] < boxes[card]["glyphLeft"], (card, boxes[card])
    badge = boxes["Jf"]["badge"]
    assert badge["x"] >= -28 and badge["x"] + badge["width"] <= 28 and badge["y"] >= -34
    assert boxes["bar"]["tileBottom"] <= boxes["bar"]["valueTop"]
    assert float(boxes["bar"]["code"]) >= 7


def test_a_chairs_tooltip_is_never_taken_for_its_visible_text(open_page: Callable[..., Page]) -> None:
    """An occupied chair shows its guest's code and sign, and its name starts with that code; its
    ``<title>`` (the tooltip, the name again) is never laid out. Laid out, a checker such as axe's
    label-in-name rule may read it as visible text beside the code, and the name then no longer
    holds the visible text: whether it did depended on the page's layout."""
    page = open_page(DESKTOP)
    page.locator("#board .chair").first.wait_for(state="attached")
    seen = page.evaluate(
        """async () => {
          const { CafeBoard } = await import("/board.js");
          const board = await (await fetch("/board.json")).json();
          const svg = document.getElementById("board");
          const view = new CafeBoard(svg, board, { onChair() {}, onBar() {} });
          const chairs = { FR1s: "FRm", FR1e: "Jf=FR", IN1s: "INf" };
          const last = { chairs: new Set(), bar: new Set() };
          view.update({ chairs, bar: [], targets: new Map(), picks: [], last });
          return [...svg.querySelectorAll(".chair.occupied")].map((chair) => ({
            label: chair.getAttribute("aria-label"),
            shown: [...chair.querySelectorAll(".guest text")].map((t) => t.textContent).join(" "),
            title: getComputedStyle(chair.querySelector("title")).display,
          }));
        }"""
    )
    assert len(seen) == 3, seen
    for chair in seen:
        assert chair["title"] == "none", chair
        assert chair["label"].startswith(chair["shown"].split()[0] + ": "), chair
    found = audit(page)
    assert found == [], found


def test_a_clock_counts_down_in_the_header(open_page: Callable[..., Page]) -> None:
    """With a clock chosen in the options, the header counts down the turn from the view's deadline."""
    page = open_page()
    seat_with_bot(page, "tick", "ticking", start=False)
    page.locator("#opt-clock").select_option("60")
    page.locator("#opt-clock option[value='60'][selected]").wait_for(state="attached")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-turn=mine]").wait_for()
    clock = page.locator("#clock")
    clock.wait_for()
    first = int(clock.get_attribute("data-left") or "0")
    assert 50 <= first <= 60 and re.match(r"^[01]:\d\d$", clock.inner_text())
    page.wait_for_function("(n) => Number(document.getElementById('clock').dataset.left) < n", arg=first)


def test_a_short_clock_is_said_with_the_turn_for_a_screen_reader(open_page: Callable[..., Page]) -> None:
    """A clock of ten seconds or less has no warning from the server: the header's turn, which a
    screen reader reads out as it changes, says how long the turn has; a longer one says only whose
    turn it is."""
    page = open_page()
    seat_with_bot(page, "shortclock", "short-clock", start=False)
    type_line(page, "/option clock 10")
    page.locator("#opt-clock option[value='10'][selected]").wait_for(state="attached")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-turn=mine]").wait_for()
    turn = page.locator("#turn")
    assert turn.get_attribute("aria-live") == "polite"
    assert turn.inner_text() == "your turn: 10 seconds to move"


def test_options_are_controls_for_the_seated(open_page: Callable[..., Page], server: ServerThread) -> None:
    """Stammtisch, clock, absent and seed are controls; changing one sets the room's option."""
    page = open_page()
    seat_with_bot(page, "opts", "options", start=False)
    page.locator("#opt-stammtisch").check()
    page.locator("#opt-absent").select_option("drop")
    page.locator("#opt-seed").fill("42")
    page.locator("#opt-seed").press("Enter")
    page.locator("#opt-seed").blur()

    def options() -> dict[str, object]:
        return dict(server.call(lambda s: s.lobby.rooms["options"].core.options.to_dict()))

    wait_until(page, lambda: options().get("seed") == 42)
    assert options()["stammtisch"] is True and options()["absent"] == "drop"
    assert page.locator("#opt-stammtisch").is_checked()
    found = audit(page)
    assert found == [], found


def test_the_your_turn_signal_is_off_until_switched_on(open_page: Callable[..., Page]) -> None:
    """Without the Sound box nothing sounds; with it, your turn gives the signal (counted on the page)."""
    page = open_page()
    come_in(page, "ding")
    assert not page.locator("#sound-on").is_checked() and not page.locator("#notify-on").is_checked()
    page.locator("#sound-on").check()
    seat_with_bot(page, None, "signal")
    page.locator("#app[data-turn=mine]").wait_for()
    page.wait_for_function("() => Number(document.body.dataset.signals || 0) >= 1")
    page.reload()
    page.locator("#me", has_text="ding").wait_for()  # the page has come in again, its settings read
    assert page.locator("#sound-on").is_checked()


@pytest.mark.parametrize(("locale", "another"), [("en-US", "another tab"), ("de-DE", "anderen Tab")])
def test_a_second_tab_says_it_took_over_and_the_first_can_take_it_back(
    open_page: Callable[..., Page], locale: str, another: str
) -> None:
    """The page opened again in the same browser closes the first, which says so and can take it
    back, in either language (a German page read the server's German close reason as any other
    and went offline without a word)."""
    name = f"twotabs-{locale[:2]}"  # (the server is the module's: each its own name)
    first = open_page(locale=locale)
    come_in(first, name)
    second = first.context.new_page()
    second.goto(first.url)
    second.locator("#me", has_text=name).wait_for()
    first.locator("#banner", has_text=another).wait_for()
    assert first.locator("#app").get_attribute("data-conn") == "replaced"
    first.locator("#take-back").click()
    first.locator("#app[data-conn=connected]").wait_for()
    second.locator("#banner", has_text=another).wait_for()


def test_a_finished_game_replays_step_by_step(open_page: Callable[..., Page], server: ServerThread) -> None:
    """/games/ID in the browser steps through the public positions, forward and back, and passes the audit."""
    page = open_page()
    seat_with_bot(page, "rep", "replayed", start=False)
    page.locator("#opt-absent").select_option("drop")
    page.locator("[data-focus=start]").click()
    play_a_move_and_wait_for_the_bot(page)
    type_line(page, "/stand")
    page.locator(".panel.result").wait_for()
    game_id = server.call(lambda s: s.lobby.rooms["replayed"].core.game.game_id)  # type: ignore[union-attr]
    page.goto(f"{server.url}games/{game_id}")
    page.locator("#replay[data-step='0']").wait_for()
    assert page.locator("#board .chair.occupied").count() == 0
    page.locator("#forward").click()
    page.locator("#replay[data-step='1']").wait_for()
    assert page.locator("#board .chair.occupied").count() + page.locator("#board .slot.taken").count() >= 1
    page.locator("#last").click()
    last = int(page.locator("#replay").get_attribute("data-step") or "0")
    assert last >= 3  # rep's move, the bot's, and rep leaving
    page.keyboard.press("ArrowLeft")
    page.locator(f"#replay[data-step='{last - 1}']").wait_for()
    assert page.locator("#moves li[aria-current=step]").count() == 1
    found = audit(page)
    assert found == [], found


def test_phone_and_desktop_screenshots_show_the_new_parts(open_page: Callable[..., Page]) -> None:
    """At 390×844 and 1280×800 the moves, the clock and the lit moves show, with no sideways scrolling;
    the screenshots go to artifacts/ (the README's copies in docs/ were taken by this test)."""
    ARTIFACTS.mkdir(exist_ok=True)
    shots = ((PHONE, "shotp", "screenshot-phone.png"), (DESKTOP, "shotd", "screenshot-desktop.png"))
    for size, name, file in shots:
        page = open_page(size)
        seat_with_bot(page, name, f"shots-{name}", start=False)
        page.locator("#opt-clock").select_option("120")
        page.locator("#opt-clock option[value='120'][selected]").wait_for(state="attached")
        page.locator("[data-focus=start]").click()
        play_a_move_and_wait_for_the_bot(page)
        page.locator("#app[data-turn=mine]").wait_for()
        page.locator("#clock").wait_for()
        assert page.locator("#history li.recent").count() >= 1
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        found = audit(page)
        assert found == [], found
        page.screenshot(path=str(ARTIFACTS / file), full_page=size == PHONE)
