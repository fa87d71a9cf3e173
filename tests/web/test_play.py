"""People playing in real browser pages: a whole game by pointing, a move by keyboard alone, the
bar, a joker's nation and a joker exchange by pointing, a reload and a dropped connection that
resume the game, spectators, and screenshots at phone and desktop sizes (written to artifacts/)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from engine import GameRecord, Options, get_board, replay
from server.app import Server
from tests.web.conftest import ARTIFACTS, DESKTOP, PHONE, ServerThread
from tests.web.pages import (
    GAME_DEADLINE,
    come_in,
    hand,
    is_over,
    move_number,
    my_turn,
    play_by_clicking,
    type_line,
    wait_for_line,
    wait_for_turn,
    wait_until,
)


def _game(server: ServerThread, room: str) -> Any:
    """The room's game as the server holds it (read on the server's loop)."""
    return server.call(lambda s: s.lobby.rooms[room.casefold()].game)


def _seat_and_start(page: Page, room: str, *, bots: int = 1, start: bool = True) -> None:
    type_line(page, f"/join {room}")
    page.locator("#app[data-state=waiting]").wait_for()
    type_line(page, "/option seed 7")
    wait_for_line(page, "chose a seed")
    for _ in range(bots):
        type_line(page, "/addbot greedy")
    if start:
        type_line(page, "/start")
        page.locator("#app[data-state=playing]").wait_for()


def _ranking(page: Page) -> list[tuple[str, int]]:
    rows = page.locator(".panel.result tbody tr")
    return [
        (row.get_attribute("data-player") or "", int(row.locator(".final").inner_text()))
        for row in rows.all()
    ]


def _seated_guests(page: Page) -> dict[str, str]:
    """Chair -> the guest drawn there."""
    drawn: dict[str, str] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#board .chair.occupied')]
              .map((c) => [c.dataset.chair, c.dataset.guest]))"""
    )
    return drawn


def _screenshot_with_choice(page: Page, path: str, *, full_page: bool = False) -> None:
    """A screenshot while a guest is chosen and the chairs it may take are lit."""
    cards = page.locator("#hand .card.playable")
    for i in range(cards.count()):
        cards.nth(i).click()
        if page.locator("#board .chair.target").count():
            break
        cards.nth(i).click()
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / path), full_page=full_page)
    page.keyboard.press("Escape")


@pytest.mark.timeout(300)  # a whole game in three browser pages
def test_two_people_and_a_bot_play_a_whole_game_by_clicking(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Two pages (desktop and phone) and a greedy bot play a seeded game to its end by pointing;
    every page, a spectator's too, ends with the server's ranking, and the spectator sees no hand."""
    ann = open_page(DESKTOP)
    come_in(ann, "ann")
    bob = open_page(PHONE)
    come_in(bob, "bob")
    _seat_and_start(ann, "full-game", start=False)
    type_line(bob, "/join full-game")
    ann.locator("#players .player", has_text="bob").wait_for()
    cy = open_page(DESKTOP)
    come_in(cy, "cy")
    type_line(cy, "/watch full-game")
    ann.locator("#players .player").nth(2).wait_for()
    type_line(ann, "/start")

    played = {"ann": 0, "bob": 0}
    shot = False
    deadline = time.monotonic() + GAME_DEADLINE
    pages = {"ann": ann, "bob": bob}
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        wait_for_turn(ann, list(pages))
        if is_over(ann):
            break
        name = ann.locator("#app").get_attribute("data-to-move") or ""
        page = pages[name]
        page.locator("#app[data-turn=mine][data-legal=ready]").wait_for()
        if name == "ann" and not shot and move_number(ann) >= 14:
            _screenshot_with_choice(ann, "web-desktop.png")
            _screenshot_with_choice(cy, "web-spectator.png")
            shot = True
        played[name] += 1
        play_by_clicking(page)
        # ann's page, which the loop watches, must show the move before the next round
        ann.wait_for_function(
            "(n) => Number(document.getElementById('app').dataset.moveNumber) >= n", arg=move_number(page)
        )

    game = _game(server, "full-game")
    assert game.outcome is not None
    expected = [(name, game.outcome.final_scores[name]) for name in game.outcome.ranking]
    for page in (ann, bob, cy):
        page.locator(".panel.result").wait_for()
        assert _ranking(page) == expected
        wait_for_line(page, "Game over")
        # a practice game (its seed chosen) says so to its end, when the seed is revealed
        assert page.locator(".panel.result .badge.kind").get_attribute("data-kind") == "practice"
    ann.reload()  # (the view says so itself: no game_started comes after a reload)
    ann.locator(".panel.result .badge.kind[data-kind=practice]").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "web-game-over-desktop.png"))
    by_player = [game.record.players[r.player] for r in replay(game.record).results]
    assert played == {"ann": by_player.count("ann"), "bob": by_player.count("bob")}
    bot = next(name for name in game.record.players if name not in played)
    assert played["ann"] > 5 and played["bob"] > 5 and bot in by_player
    # the drawn café is the server's final position, on every page
    chairs = _server_chairs(server, "full-game")
    for page in (ann, bob, cy):
        page.locator(".panel.result button", has_text="Show the café").click()
        assert _seated_guests(page) == chairs
    assert cy.locator("#hand .card").count() == 0
    assert "watching" in (cy.locator("#hand-area").get_attribute("class") or "")
    ann.screenshot(path=str(ARTIFACTS / "web-final-cafe-desktop.png"))
    bob.screenshot(path=str(ARTIFACTS / "web-final-cafe-phone.png"), full_page=True)


def _server_chairs(server: ServerThread, room: str) -> dict[str, str]:
    """Chair -> guest text of the room's position, as the server holds it."""

    def read(s: Server) -> dict[str, str]:
        game = s.lobby.rooms[room.casefold()].game
        assert game is not None
        board = get_board("classic")
        return {board.chairs[i].name: g.text for i, g in enumerate(game.position.chairs) if g is not None}

    return server.call(read)


def test_a_move_can_be_made_with_the_keyboard_alone(open_page: Callable[..., Page]) -> None:
    """Tab reaches a playable card, Enter chooses it and moves the focus to a lit chair (with a
    visible focus ring), Enter seats the guest, and Enter on Play plays the move."""
    page = open_page(DESKTOP)
    come_in(page, "dan")
    _seat_and_start(page, "keys")
    wait_until(page, lambda: my_turn(page))
    page.locator("#app[data-legal=ready]").wait_for()
    before = move_number(page)
    page.evaluate("document.activeElement.blur()")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#hand .card.playable')"):
            break
    else:
        raise AssertionError("Tab never reached a playable card")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    kinds = []
    for _ in range(8):
        kind = page.evaluate(
            """() => { const a = document.activeElement;
                 return a.matches('.card') ? 'card' : a.matches('.chair.target, .bar-hit.target') ? 'target'
                      : a.matches('#nation-choice button') ? 'nation' : a.id || a.tagName; }"""
        )
        kinds.append(kind)
        assert page.evaluate("document.activeElement.matches(':focus-visible')"), kinds
        if kind == "target":
            ring = page.evaluate("getComputedStyle(document.activeElement.querySelector('.focus')).stroke")
            assert ring not in ("none", "")
        page.keyboard.press("Enter")
        if kind == "confirm":
            break
        # the page moves the focus in the next animation frame, as a person would see it move
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert kinds[:2] == ["card", "target"] and kinds[-1] == "confirm"
    wait_until(page, lambda: move_number(page) > before)
    wait_for_line(page, "dan ")


def test_a_reload_resumes_the_game_with_the_stored_token(open_page: Callable[..., Page]) -> None:
    """After a reload the page says hello with its stored token: the same seat, hand and turn
    come back without asking for a name, and the next move is accepted."""
    page = open_page(DESKTOP)
    come_in(page, "eve")
    _seat_and_start(page, "reload")
    wait_until(page, lambda: my_turn(page))
    play_by_clicking(page)
    wait_until(page, lambda: my_turn(page))
    cards, number = hand(page), move_number(page)
    page.reload()
    wait_for_line(page, "Welcome back, eve")
    page.locator("#app[data-state=playing][data-turn=mine]").wait_for()
    assert not page.locator("#name-dialog").is_visible()
    assert hand(page) == cards
    assert move_number(page) == number
    play_by_clicking(page)
    assert move_number(page) > number


def test_a_dropped_connection_reconnects_by_itself(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """When the server drops the connection, the page shows it, reconnects with its token and
    carries on with the same game; there a hint is set up on the board and played."""
    page = open_page(DESKTOP)
    come_in(page, "fay")
    _seat_and_start(page, "drop")
    wait_until(page, lambda: my_turn(page))
    cards = hand(page)

    def drop(s: Server) -> None:
        import asyncio

        session = s.lobby.directory.session("fay")
        asyncio.get_running_loop().create_task(session.close(1011, "dropped by the test"))

    page.evaluate(
        """() => { const app = document.getElementById('app');
             window.connStates = [];
             new MutationObserver(() => window.connStates.push(app.dataset.conn))
               .observe(app, { attributes: true, attributeFilter: ['data-conn'] }); }"""
    )
    server.call(drop)
    wait_for_line(page, "Welcome back, fay")
    page.locator("#app[data-conn=connected][data-turn=mine]").wait_for()
    assert "reconnecting" in page.evaluate("window.connStates")
    assert hand(page) == cards
    # the hint sets up its move on the board: Play plays it
    page.locator("#app[data-legal=ready]").wait_for()
    page.locator("#hint-btn").click()
    hint = page.locator("#log .line", has_text="Hint: ")
    hint.wait_for()
    move = hint.inner_text().removeprefix("Hint: ").split(" (")[0]
    assert page.locator("#confirm").get_attribute("data-move") == move
    before = move_number(page)
    page.locator("#confirm").click()
    wait_until(page, lambda: move_number(page) > before)
    assert _game(server, "drop").record.moves[before] == move


def test_the_phone_size_shows_board_hand_and_chat_without_sideways_scrolling(
    open_page: Callable[..., Page],
) -> None:
    """At 390x844 the café, the hand and the chat stack in one column that fits the width."""
    page = open_page(PHONE)
    come_in(page, "gil")
    _seat_and_start(page, "phone")
    wait_until(page, lambda: my_turn(page))
    page.locator("#app[data-legal=ready]").wait_for()
    _screenshot_with_choice(page, "web-phone.png", full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    boxes = {
        name: page.locator(selector).bounding_box()
        for name, selector in (("board", "#board"), ("hand", "#hand-area"), ("chat", ".chat-pane"))
    }
    assert all(box is not None for box in boxes.values())
    assert boxes["board"]["y"] < boxes["hand"]["y"] < boxes["chat"]["y"]  # type: ignore[index]
    assert boxes["board"]["width"] > 350  # type: ignore[index]


def _joker_seed() -> tuple[int, str, str]:
    """A seed where ann (of ann and bob) starts holding a joker and a natural card of its gender:
    the seed, the joker and the card."""
    for seed in range(1000):
        position = GameRecord(("ann", "bob"), seed, Options()).start()
        hand = [c.text for c in position.players[0].hand]
        jokers = [c for c in hand if c.startswith("J")]
        if position.to_move != 0 or not jokers:
            continue
        natural = [c for c in hand if not c.startswith("J") and c[-1] == jokers[0][-1]]
        if natural:
            return seed, jokers[0], natural[0]
    raise AssertionError("no seed in range gives ann a joker and a matching card")


def test_the_bar_a_jokers_nation_and_a_joker_exchange_are_chosen_by_pointing(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Pointing at the bar offers a card to the bar; a joker on a chair between two nations asks
    which nation; a joker seated at one table is later exchanged by pointing at it with a card."""
    seed, joker, card = _joker_seed()
    nation = card[:2]
    board = get_board("classic")
    own_chair = next(c.name for c in board.chairs if c.tables == (board.table_index(f"{nation}1"),))
    ann, bob = open_page(DESKTOP), open_page(DESKTOP)
    come_in(ann, "ann2")
    come_in(bob, "bob2")
    type_line(ann, "/join pointing")
    ann.locator("#app[data-state=waiting]").wait_for()
    type_line(ann, f"/option seed {seed}")
    wait_for_line(ann, "chose a seed")
    type_line(bob, "/join pointing")
    ann.locator("#players .player", has_text="bob2").wait_for()
    type_line(ann, "/start")
    ann.locator("#app[data-turn=mine][data-legal=ready]").wait_for()

    # a card to the bar: offered, then taken back
    ann.locator(f"#hand .card[data-card={card}]").first.click()
    ann.locator("#board .bar.target").click()
    assert ann.locator("#confirm").get_attribute("data-move") == f"{card}@bar"
    ann.locator("#cancel").click()
    assert ann.locator("#confirm").is_disabled()

    # the joker on a chair between two nations: which nation?
    ann.locator(f"#hand .card[data-card={joker}]").click()
    shared = ann.locator("#board .chair.shared.target").first
    name = shared.get_attribute("data-chair") or ""
    shared.click()
    offered = {b.get_attribute("data-nation") for b in ann.locator("#nation-choice button").all()}
    assert offered == set(board.chair(name).nations)
    ann.keyboard.press("Escape")
    assert ann.locator("#nation-choice").is_hidden()

    # the joker on a chair of one table takes that table's nation
    ann.locator(f"#hand .card[data-card={joker}]").click()
    ann.locator(f"#board .chair.target[data-chair={own_chair}]").click()
    assert ann.locator("#confirm").get_attribute("data-move") == f"{joker}@{own_chair}"
    ann.locator("#confirm").click()
    ann.locator(f"#board .chair[data-chair={own_chair}][data-guest='{joker}={nation}']").wait_for()

    # bob sends a card to the bar
    bob.locator("#app[data-turn=mine][data-legal=ready]").wait_for()
    cards = bob.locator("#hand .card.playable")
    for i in range(cards.count()):
        cards.nth(i).click()
        if bob.locator("#board .bar.target").count():
            break
    bob.locator("#board .bar.target").click()
    bob.locator("#confirm").click()
    ann.locator("#board .slot.taken").wait_for()

    # ann exchanges the joker for the card of its nation
    ann.locator("#app[data-turn=mine][data-legal=ready]").wait_for()
    ann.locator(f"#hand .card[data-card={card}]").first.click()
    swap = ann.locator(f"#board .chair.target.swap[data-chair={own_chair}]")
    swap.click()
    assert ann.locator("#confirm").get_attribute("data-move") == f"swap {card}@{own_chair}"
    ann.locator("#confirm").click()
    ann.locator(f"#board .chair[data-chair={own_chair}][data-guest={card}]").wait_for()
    assert joker in hand(ann)
    assert _server_chairs(server, "pointing")[own_chair] == card
