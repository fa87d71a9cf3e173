"""The page in German: the browser's language first, a switch that is remembered, and a whole game
played to its end with German words (the server's answers too), the notation unchanged."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, ServerThread
from tests.web.pages import GAME_DEADLINE, come_in, is_over, play_by_clicking, type_line, wait_for_line
from tests.web.social_steps import enter_room


@pytest.mark.timeout(300)  # a whole game in a browser page
def test_a_german_page_plays_a_whole_game(open_page: Callable[..., Page], server: ServerThread) -> None:
    """A browser that prefers German gets the page in German, says lang "de" in hello so the
    server answers in German, and plays a game against a bot to its end."""
    page = open_page(DESKTOP, locale="de-DE")
    page.locator("#name-dialog h2", has_text="Willkommen im Café").wait_for()
    assert page.locator("#login-btn").inner_text() == "Anmelden"
    assert page.locator("html").get_attribute("lang") == "de"
    come_in(page, "gerda")
    wait_for_line(page, "Willkommen, gerda.")
    type_line(page, "/jion deutsch")
    wait_for_line(page, "Unbekannter Befehl /jion — meintest du /join?")
    type_line(page, "/join deutsch")
    page.locator("#app[data-state=waiting]").wait_for()
    page.locator(".panel.waiting h2", has_text="Raum deutsch").wait_for()
    type_line(page, "/option seed 5")
    wait_for_line(page, "hat einen Startwert gewählt")
    type_line(page, "/addbot greedy")
    type_line(page, "/start")
    page.locator("#app[data-state=playing]").wait_for()
    wait_for_line(page, "Das Spiel beginnt:")
    deadline = time.monotonic() + GAME_DEADLINE
    moves = 0
    while not is_over(page):
        assert time.monotonic() < deadline, "the game did not end in time"
        page.wait_for_function(
            """() => { const app = document.getElementById('app');
                 return app.dataset.state === 'over'
                   || (app.dataset.turn === 'mine' && app.dataset.legal === 'ready'); }"""
        )
        if is_over(page):
            break
        assert page.locator("#turn").inner_text() == "du bist am Zug"
        play_by_clicking(page)
        moves += 1
    assert moves > 3
    page.locator(".panel.result h2", has_text="Spielende").wait_for()
    wait_for_line(page, "Spielende: ")
    assert page.locator(".panel.result th", has_text="Karten übrig").count() == 1
    # the notation stays as it is in every language
    assert page.locator("#log .line", has_text="setzt").first.inner_text()


def test_the_language_switch_changes_the_page_and_is_remembered(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Switching to English redraws the page's words (the connection's state too) and the server's
    answers in English; a reload keeps the choice, over the browser's German. Before anyone comes
    in, the tabs are German already."""
    page = open_page(DESKTOP, locale="de-DE")
    page.locator("#name-dialog h2", has_text="Willkommen im Café").wait_for()
    assert page.locator("#tab-friends").inner_text() == "Freunde"
    come_in(page, "switcher")
    assert page.locator("#rules-link").inner_text() == "Regeln"
    assert page.locator("#rules-link").get_attribute("href") == "/rules?lang=de"
    page.locator("#conn-text", has_text="verbunden").wait_for()
    page.locator("#lang-select").select_option("en")
    page.locator("#rules-link", has_text="Rules").wait_for()
    assert page.locator("#conn-text").inner_text() == "connected"
    page.locator(".panel.lobby h2", has_text="Welcome, switcher!").wait_for()
    wait_for_line(page, "You read English from now on.")
    type_line(page, "/jion x")
    wait_for_line(page, "Unknown command /jion")
    page.reload()
    page.locator("#rules-link", has_text="Rules").wait_for()
    assert page.locator("#lang-select").input_value() == "en"
    assert page.evaluate("localStorage.getItem('cafe.lang')") == "en"


def test_the_community_parts_of_the_page_speak_german(open_page: Callable[..., Page]) -> None:
    """A German page names its leaderboard, tells, friends and zoom in German; a seat takeover asked
    with /join N shows its prompt in German, a cancelled one and a passed one say so in German."""
    ann, bob, zoe = (open_page(DESKTOP, locale="de-DE") for _ in range(3))
    for page, name in ((ann, "dehost"), (bob, "degone"), (zoe, "dezoe")):
        come_in(page, name)
    assert ann.locator("#people-btn").inner_text() == "Rangliste"
    assert ann.locator("#tab-tells").inner_text().strip() == "Flüstern"
    assert ann.locator("#tab-friends").inner_text() == "Freunde"
    assert ann.locator("#tell-text").get_attribute("placeholder") == "Nachricht"
    for page in (ann, bob):
        enter_room(page, "stube")
    ann.locator(".seats li.taken").nth(1).wait_for()
    ann.locator("[data-focus=start]").click()
    ann.locator("#app[data-state=playing]").wait_for()
    bob.context.close()
    ann.locator("#players li[data-player=degone] .badge.away").wait_for()
    enter_room(zoe, "stube", seat=False)
    type_line(zoe, "/join 2")
    prompt = ann.locator("#vote")
    prompt.wait_for()
    asked = "dezoe möchte Platz 2 (degone) übernehmen: 0 ja, 0 nein."
    assert prompt.locator("#vote-text").inner_text() == asked
    assert ann.locator("#vote-yes").inner_text() == "Annehmen"
    type_line(zoe, "/leave")
    wait_for_line(ann, "Abstimmung abgebrochen: dezoe möchte Platz 2 (degone) übernehmen.")
    assert prompt.is_hidden()
    # (zoe, whose vote did not pass, asks again 30 s later at the soonest: uli asks now)
    uli = open_page(DESKTOP, locale="de-DE")
    come_in(uli, "deuli")
    enter_room(uli, "stube", seat=False)
    type_line(uli, "/join 2")
    prompt.wait_for()
    ann.locator("#vote-yes").click()
    wait_for_line(ann, "Abstimmung angenommen: deuli möchte Platz 2 (degone) übernehmen.")
    ann.locator("#players li[data-player=deuli]").wait_for()


def test_the_page_shows_moves_board_hints_and_replays_in_german(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """In German the moves in words, the board's titles and labels, the command hints and the
    replay viewer use the game's German words; the notation stays as it is."""
    page = open_page(DESKTOP, locale="de-DE")
    come_in(page, "hanna")
    words = page.evaluate(
        """async () => {
          const { historyLine } = await import("/live.js");
          const nations = { FR: "France", ES: "Spain", DE: "Germany" };
          return [
            historyLine({ player: "ann", move: "FRf@FR1s ESm@ES1e", points: 8 }, nations),
            historyLine({ player: "bo", move: "Jm=DE@bar", points: -2 }, nations),
            historyLine({ player: "cy", move: "swap DEf@FR1s", points: 3 }, nations),
            historyLine({ player: "di", move: "leave di" }, nations),
          ];
        }"""
    )
    assert words == [
        "ann: Dame aus Frankreich auf FR1 Süd, Herr aus Spanien auf ES1 Ost: +8",
        "bo: Joker (Herr) für Deutschland an die Bar: −2",
        "cy: Dame aus Deutschland gegen den Joker auf FR1 Süd: +3",
        "di verlässt das Spiel",
    ]
    assert page.locator("#board .table[data-table=FR1] > title").text_content() == "FR1: Frankreich"
    assert page.locator("#board .bar > title").text_content() == "Die Bar: 20 Plätze, der Reihe nach belegt"
    page.locator("#input").fill("/rooms")
    assert page.locator("#cmd-hint").inner_text() == "/rooms — zeigt die Räume"
    page.locator("#input").fill("/zzz")
    assert page.locator("#cmd-hint").inner_text() == "kein solcher Befehl — /help zeigt alle"
    page.locator("#input").fill("")
    type_line(page, "/join beschriftet")
    page.locator("#app[data-state=waiting]").wait_for()
    page.wait_for_function("() => document.querySelector('#board .chair')?.getAttribute('aria-label')")
    label = page.locator("#board .chair[data-chair]").first.get_attribute("aria-label") or ""
    assert label.startswith("Stuhl ") and label.endswith(": frei"), label
    page.goto(f"{server.url}games/kein-spiel")
    page.locator("#replay-status", has_text="Unter dieser Adresse gibt es kein beendetes Spiel.").wait_for()
    assert page.locator("#forward").get_attribute("aria-label") == "Einen Zug vor"
    headings = ["Punkte im Lauf des Spiels", "Punktestand", "Züge"]
    assert page.locator("#replay h2").all_inner_texts() == headings
    assert page.locator(".doc-top a").first.inner_text() == "☕ Zurück ins Café"
