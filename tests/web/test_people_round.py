"""People on the page: the lobby's Online list keeps up by itself, a mute is shown and undone from
the profile, an invitation is confirmed to its sender and offers its invitee the free seat, and a
profile has an address to share."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, ServerThread
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room


def test_the_online_list_shows_a_newcomer_without_any_room_changing(open_page: Callable[..., Page]) -> None:
    """Someone who connects later shows in the lobby's Online list within a few seconds, though
    no room opened or changed."""
    early = open_page(DESKTOP)
    come_in(early, "earlybird")
    early.locator(".panel.lobby .online", has_text="earlybird").wait_for()
    early.wait_for_timeout(3000)  # past the asking on arrival: what comes later is news
    late = open_page(DESKTOP)
    come_in(late, "latebird")
    early.locator(".panel.lobby .online", has_text="latebird").wait_for(timeout=15_000)


def test_a_mute_shows_in_the_profile_and_is_undone_there(open_page: Callable[..., Page]) -> None:
    """Mute from a profile: the profile then says so and offers Unmute, which unmutes."""
    me, loud = open_page(DESKTOP), open_page(DESKTOP)
    come_in(me, "quietone")
    come_in(loud, "loudone")
    me.locator(".panel.lobby .online [data-profile=loudone]").click()
    me.locator("#people-dialog [data-action=mute]").click()
    wait_for_line(me, "loudone")
    me.locator(".panel.lobby .online [data-profile=loudone]").click()
    me.locator("#people-dialog .muted-note").wait_for()
    notices = me.locator("#log .line.notice").count()
    me.locator("#people-dialog [data-action=unmute]").click()
    me.locator("#log .line.notice").nth(notices).wait_for()  # the server's word that it is undone
    me.locator(".panel.lobby .online [data-profile=loudone]").click()
    me.locator("#people-dialog [data-action=mute]").wait_for()


def test_an_invitation_is_confirmed_and_offers_the_free_seat(open_page: Callable[..., Page]) -> None:
    """The inviter reads that the invitation went out; the invitee's line has "Take a seat", which
    seats them in the room."""
    host, guest = open_page(DESKTOP), open_page(DESKTOP)
    come_in(host, "inviter")
    come_in(guest, "invitee")
    enter_room(host, "invite-room")
    host.locator("#invite-name").fill("invitee")
    host.locator("#invite-form button").click()
    wait_for_line(host, "invitee is invited to room invite-room")
    guest.locator("#log button[data-join=invite-room]").click()
    host.locator(".seats li.taken", has_text="invitee").wait_for()
    guest.locator("#app[data-state=waiting]").wait_for()  # the guest's page has its own news a moment later
    assert guest.evaluate("document.getElementById('app').classList.contains('spectator')") is False


def test_a_profile_has_an_address_to_share(open_page: Callable[..., Page], server: ServerThread) -> None:
    """A profile links to /players/NAME, and that address opens the page with the profile."""
    page = open_page(DESKTOP)
    come_in(page, "sharer")
    page.locator("#me").wait_for()
    page.goto(f"{server.url}players/sharer")
    page.locator("#people-dialog #people-title", has_text="sharer").wait_for()
    link = page.locator("#people-dialog a[data-share=profile]")
    assert link.get_attribute("href") == "/players/sharer"


def test_a_typed_mute_shows_in_the_profile_after_a_reload(open_page: Callable[..., Page]) -> None:
    """A mute the page did not make (``/mute`` typed in the chat, as at a terminal) shows in the
    profile, which offers Unmute; after a reload too, read from the server's ``friends`` answer."""
    me, loud = open_page(DESKTOP), open_page(DESKTOP)
    come_in(me, "hushkeeper")
    come_in(loud, "noisyone")
    type_line(me, "/mute noisyone")
    wait_for_line(me, "You will not see what noisyone says.")
    me.locator(".panel.lobby .online [data-profile=noisyone]").click()
    me.locator("#people-dialog [data-action=unmute]").wait_for()
    me.locator("#people-dialog .muted-note").wait_for()
    me.keyboard.press("Escape")
    me.reload()
    me.locator("#app[data-conn=connected]").wait_for()
    me.locator(".panel.lobby .online [data-profile=noisyone]").click()
    me.locator("#people-dialog [data-action=unmute]").wait_for()
    me.locator("#people-dialog [data-action=unmute]").click()
    wait_for_line(me, "You see what noisyone says again.")
    me.locator(".panel.lobby .online [data-profile=noisyone]").click()
    me.locator("#people-dialog [data-action=mute]").wait_for()


def test_the_page_holds_a_name_and_its_look_alikes_as_one_as_the_server_does(
    open_page: Callable[..., Page],
) -> None:
    """The page's form of a name is the server's (every character a name may hold, and names
    made of the look-alike ones): after ``/mute miaa`` the profile of ``rniaa`` says it is muted."""
    from protocol.names import NAME_CHARACTERS, alike

    me = open_page(DESKTOP)
    come_in(me, "formkeeper")
    names = [*NAME_CHARACTERS, "miaa", "rniaa", "M1AA", "K1M", "Mod0", "bOoL", "aIice"]
    forms = me.evaluate(
        """async (names) => { const { alike } = await import("/social.js"); return names.map(alike); }""",
        names,
    )
    assert forms == [alike(n) for n in names]
    loud = open_page(DESKTOP)
    come_in(loud, "rniaa")
    type_line(me, "/mute miaa")
    wait_for_line(me, "You will not see what miaa says.")
    me.locator(".panel.lobby .online [data-profile=rniaa]").click()
    me.locator("#people-dialog .muted-note").wait_for()
