"""Coming in with an account on the web page: register, log in, refusals shown in the form, the
token kept and the password never; and looking people up: profiles behind every name, the
leaderboard, and finished games as links to the replay viewer."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Route

from tests.web.conftest import DESKTOP, PHONE, ServerThread
from tests.web.live_steps import audit
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room, fill_account, log_in, register, stored

PASSWORD = "espresso-doppio"


def test_registering_keeps_the_token_and_never_the_password(open_page: Callable[..., Page]) -> None:
    """Register from the form: the name is registered, the page keeps a resume token and no password."""
    page = open_page()
    register(page, "regina", PASSWORD)
    assert page.locator("#register-open").is_hidden()
    kept = stored(page)
    assert "cafe.token=" in kept and "cafe.name=regina" in kept
    assert PASSWORD not in kept
    assert page.locator("#password-input").input_value() == ""
    page.reload()
    page.locator("#me", has_text="regina").wait_for()
    assert not page.locator("#name-dialog").is_visible()
    assert page.locator("#register-open").is_hidden()


def test_a_password_typed_in_the_chat_is_kept_nowhere(open_page: Callable[..., Page]) -> None:
    """``/register PW PW`` and ``/password OLD NEW NEW`` typed as commands: the server takes them,
    the chat shows them as ``/register ***`` and ``/password ***``, the typed lines' history and
    the kept log hold no password, and after logging out the browser keeps neither what was typed
    nor what was read."""
    page = open_page()
    come_in(page, "typist")
    type_line(page, "hello there")
    type_line(page, f"/register {PASSWORD} {PASSWORD}")
    wait_for_line(page, "registered")
    new = "ristretto-lungo"
    type_line(page, f"/password {PASSWORD} {new} {new}")
    wait_for_line(page, "password is changed")
    lines = page.locator("#log").inner_text()
    assert "/register ***" in lines and "/password ***" in lines
    kept = stored(page)
    assert PASSWORD not in lines + kept and new not in lines + kept, kept
    assert "hello there" in kept  # (what holds no password is kept as before)
    page.locator("#input").press("ArrowUp")
    assert page.locator("#input").input_value() == "hello there"
    page.locator("#me").click()
    page.locator("#logout-btn").click()
    page.locator("#name-dialog").wait_for()
    kept = stored(page)
    assert "cafe.history" not in kept and "hello there" not in kept and "typist" not in kept, kept
    assert "logged out" in kept  # (the log starts again from there)
    shown = page.locator("#log").inner_text()
    assert "hello there" not in shown and "logged out" in shown, shown


def test_a_registered_name_asks_for_its_password_and_refuses_a_wrong_one(
    open_page: Callable[..., Page],
) -> None:
    """A guest cannot take a registered name, a wrong password is refused in the form, the right
    one logs in."""
    owner = open_page()
    register(owner, "lockd", PASSWORD)
    owner.close()
    page = open_page()
    fill_account(page, "lockd", "")
    page.locator("#guest-btn").click()
    page.locator("#name-error", has_text="registered").wait_for()
    assert page.evaluate("document.activeElement.id") == "password-input"
    fill_account(page, "lockd", "not-the-password")
    page.locator("#login-btn").click()
    page.locator("#name-error", has_text="password").wait_for()
    assert page.locator("#name-dialog").is_visible()
    log_in(page, "lockd", PASSWORD)
    assert not page.locator("#name-dialog").is_visible()
    assert PASSWORD not in stored(page) and "not-the-password" not in stored(page)


def test_a_short_password_is_refused_before_it_is_sent(open_page: Callable[..., Page]) -> None:
    """Register with fewer than 8 characters says so in the form and nobody is welcomed."""
    page = open_page()
    fill_account(page, "shorty", "1234")
    page.locator("#register-btn").click()
    page.locator("#name-error", has_text="at least 8").wait_for()
    assert page.locator("#me").inner_text() == ""


def test_a_guest_registers_the_name_later_from_the_header(open_page: Callable[..., Page]) -> None:
    """A guest's Register button asks only for a password and makes the name the guest's account."""
    page = open_page()
    fill_account(page, "latecomer", "")
    page.locator("#guest-btn").click()
    page.locator("#me", has_text="latecomer").wait_for()
    page.locator("#register-open").click()
    assert page.evaluate("document.activeElement.id") == "password-input"
    page.locator("#password-input").fill(PASSWORD)
    page.locator("#register-btn").click()
    page.locator("#log .line", has_text="latecomer is registered").wait_for()
    page.locator("#register-open").wait_for(state="hidden")


def finish_a_rated_game(first: Page, second: Page, room: str) -> None:
    """Two registered players play a game in ``room`` to its end (the second leaves it, with the
    option absent drop); the first is left looking at the result."""
    enter_room(first, room)
    first.locator("#opt-absent").select_option("drop")
    enter_room(second, room)
    first.locator(".seats li.taken").nth(1).wait_for()
    first.locator("[data-focus=start]").click()
    second.locator("#app[data-state=playing]").wait_for()
    type_line(second, "/stand")
    first.locator(".panel.result").wait_for()


def test_names_open_profiles_and_the_leaderboard_lists_rated_players(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """After a rated game, the leaderboard lists both players; a name in it, in the player list or
    in the chat opens the profile, whose games link to the replay viewer."""
    ann, bob = open_page(), open_page()
    register(ann, "profann", PASSWORD)
    register(bob, "profbob", PASSWORD)
    finish_a_rated_game(ann, bob, "rated-room")
    game_id = server.call(lambda s: s.lobby.rooms["rated-room"].core.game.game_id)  # type: ignore[union-attr]
    ann.locator("[data-focus=show-cafe]").click()

    ann.locator("#people-btn").click()
    board = ann.locator("#people-dialog .leaderboard")
    board.wait_for()
    assert board.locator("tr[data-player=profann] .rating").inner_text().rstrip("?").isdigit()
    board.locator("tr[data-player=profbob] [data-profile=profbob]").click()
    dialog = ann.locator("#people-dialog")
    dialog.locator("h2", has_text="profbob").wait_for()
    link = dialog.locator(f".profile-games li[data-game='{game_id}'] a")
    link.wait_for()
    assert link.get_attribute("href") == f"/games/{game_id}"
    assert dialog.locator(".profile-facts", has_text="rating").count() == 1
    found = audit(ann)
    assert found == [], found
    dialog.locator("button[value=close]").click()

    ann.locator("#players [data-profile=profbob]").click()
    dialog.locator("h2", has_text="profbob").wait_for()
    dialog.locator("button[value=close]").click()
    type_line(bob, "see you")
    wait_for_line(ann, "see you")
    ann.locator("#log .line.chat [data-profile=profbob]").last.click()
    dialog.locator("h2", has_text="profbob").wait_for()
    dialog.locator("[data-action=friend]").wait_for()  # drawn once the profile has loaded


def test_a_guests_name_says_guests_have_no_profile(open_page: Callable[..., Page]) -> None:
    """Choosing a guest's name says that guests have no profile, and still offers a tell."""
    ann, gus = open_page(), open_page()
    log_in_as_guest(ann, "lookera")
    log_in_as_guest(gus, "guesty")
    ann.locator(".online [data-profile=guesty]").click()
    ann.locator("#people-dialog .profile-facts", has_text="plays as a guest").wait_for()
    assert ann.locator("#people-dialog [data-action=tell]").is_visible()


def log_in_as_guest(page: Page, name: str) -> None:
    fill_account(page, name, "")
    page.locator("#guest-btn").click()
    page.locator("#me", has_text=name).wait_for()


def test_a_profile_closed_while_it_loads_stays_closed(open_page: Callable[..., Page]) -> None:
    """The reader closes a profile before its answer came: the answer, when it comes, neither
    opens the dialog again nor draws into it; the next name opened shows its own profile."""
    page = open_page()
    register(page, "shutter", PASSWORD)
    enter_room(page, "shutroom")
    name = page.locator("#players [data-profile=shutter]")
    held: list[Route] = []
    page.route("**/api/players/shutter", lambda route: held.append(route))
    name.click()
    dialog = page.locator("#people-dialog")
    dialog.locator("h2", has_text="shutter").wait_for()
    dialog.locator("button[value=close]").click()
    page.wait_for_function("() => !document.querySelector('#people-dialog').open")
    page.wait_for_timeout(200)
    assert held, "the profile was asked for"
    for route in held:
        route.continue_()
    page.unroute("**/api/players/shutter")
    page.wait_for_timeout(500)  # (time for the answer to be drawn, were it drawn)
    assert not dialog.is_visible()
    name.click()
    dialog.locator(".profile-facts").wait_for()


@pytest.mark.parametrize(("viewport", "locale"), [(DESKTOP, "de-DE"), (PHONE, "de-DE"), (DESKTOP, "en-US")])
def test_the_result_of_a_rated_game_shows_every_rating_without_scrolling(
    open_page: Callable[..., Page], viewport: dict[str, int], locale: str
) -> None:
    """A rated game's result panel holds its rating column whole (header and each "before →
    after (change)"), on a desktop and on a phone, in German's longer words too."""
    ann, bob = open_page(viewport, locale), open_page(viewport, locale)
    tag = f"{locale[:2]}{viewport['width']}"  # (one server serves the three: a name each)
    for page, name in ((ann, f"Evelynne{tag}"), (bob, f"Bartholom{tag}")):
        fill_account(page, name, PASSWORD)
        page.locator("#register-btn").click()
        registered = re.compile(f"{name} (is registered|ist registriert)")
        page.locator("#log .line", has_text=registered).wait_for()
    finish_a_rated_game(ann, bob, f"wide-result-{tag}")
    panel = ann.locator(".panel.result")
    panel.locator("td.rating").first.wait_for()
    sizes = panel.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert sizes[0] <= sizes[1], sizes
    header = panel.locator("thead th").last
    assert header.inner_text().lower() in ("rating", "wertung")
    box, shown = header.bounding_box(), panel.bounding_box()
    assert box is not None and shown is not None and box["x"] + box["width"] <= shown["x"] + shown["width"]


def test_esc_never_leaves_a_newcomer_without_the_name_form(open_page: Callable[..., Page]) -> None:
    """The browser closes a modal form on a second Esc (or a first one before anything is typed)
    whatever the page says: the newcomer's form opens again as it was, and a name still comes in."""
    page = open_page()
    dialog = page.locator("#name-dialog")
    dialog.wait_for()
    page.keyboard.press("Escape")
    page.locator("#name-input").fill("escaper")
    for _ in range(3):
        page.keyboard.press("Escape")
    page.wait_for_timeout(200)
    assert dialog.is_visible() and page.locator("#name-input").input_value() == "escaper"
    page.locator("#name-input").press("Enter")
    page.locator("#me", has_text="escaper").wait_for()
    assert not dialog.is_visible()
