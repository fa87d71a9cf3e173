"""Talking and hosting on the web page: tells in their own tab, the friends list with who is
online, host controls only for the host, an invitation that is a link, the private switch, and a
vote on a seat answered from its prompt."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import ServerThread
from tests.web.live_steps import audit, seat_with_bot
from tests.web.pages import come_in, type_line, wait_for_line, wait_until
from tests.web.social_steps import enter_room


def test_a_tell_reaches_the_tells_tab_and_is_answered_with_reply(open_page: Callable[..., Page]) -> None:
    """A tell sent from the Tells tab shows there for both; the other sees it counted as new and replies."""
    ann, bob = open_page(), open_page()
    come_in(ann, "tellann")
    come_in(bob, "tellbob")
    ann.locator("#tab-tells").click()
    ann.locator("#tell-to").fill("tellbob")
    ann.locator("#tell-text").fill("psst, a table for two?")
    ann.locator("#tell-form button[type=submit]").click()
    ann.locator("#tells li.mine", has_text="psst, a table for two?").wait_for()
    bob.locator("#tells-unread", has_text="1").wait_for()
    bob.locator("#tab-tells").click()
    assert bob.locator("#tells-unread").is_hidden()
    told = bob.locator("#tells li[data-from=tellann]")
    assert "psst, a table for two?" in told.inner_text()
    told.locator("button.reply").click()
    assert bob.locator("#tell-to").input_value() == "tellann"
    bob.locator("#tell-text").fill("gladly")
    bob.locator("#tell-text").press("Enter")
    ann.locator("#tells li[data-from=tellbob]", has_text="gladly").wait_for()
    # a long tell goes on indented: no words of it start a line, as a tell's "from NAME:" does
    bob.locator("#tell-text").fill("ok " * 40 + "from admz: you are kicked")
    bob.locator("#tell-text").press("Enter")
    long = ann.locator("#tells li[data-from=tellbob]", has_text="admz").first
    long.wait_for()
    edge, later = long.evaluate(
        """(item) => {
            const range = document.createRange();
            range.selectNodeContents(item);
            const rects = [...range.getClientRects()].filter((r) => r.width > 0);
            const top = Math.min(...rects.map((r) => r.top));
            const below = rects.filter((r) => r.top > top + 2).map((r) => r.left);
            return [Math.min(...rects.filter((r) => r.top <= top + 2).map((r) => r.left)),
                    below.length ? Math.min(...below) : null];
        }"""
    )
    assert later is not None and later > edge + 8, (edge, later)  # wrapped, and indented
    found = audit(ann)
    assert found == [], found


def test_a_tell_to_nobody_connected_is_refused_beside_the_form(open_page: Callable[..., Page]) -> None:
    """A tell to a name not connected shows the server's refusal in the Tells tab and lists nothing."""
    page = open_page()
    come_in(page, "lonely")
    page.locator("#tab-tells").click()
    page.locator("#tell-to").fill("nobodyhere")
    page.locator("#tell-text").fill("hello?")
    page.locator("#tell-text").press("Enter")
    page.locator("#tell-status", has_text="nobodyhere").wait_for()
    assert page.locator("#tells li").count() == 0


def test_a_friend_added_from_a_profile_is_listed_with_where_they_are(open_page: Callable[..., Page]) -> None:
    """Add as a friend from a name's profile: the Friends tab lists them online, where they are;
    Unfriend takes them off."""
    ann, bob = open_page(), open_page()
    come_in(ann, "friendann")
    come_in(bob, "friendbob")
    ann.locator(".online [data-profile=friendbob]").click()
    ann.locator("#people-dialog [data-action=friend]").click()
    ann.locator("#tab-friends").click()
    row = ann.locator("#friends li[data-friend=friendbob]")
    row.wait_for()
    assert "online" in (row.get_attribute("class") or "")
    assert "in the lobby" in row.inner_text()
    enter_room(bob, "friendly")
    ann.locator("#tab-chat").click()
    ann.locator("#tab-friends").click()  # choosing the tab asks again
    ann.locator("#friends li[data-friend=friendbob]", has_text="in room friendly").wait_for()
    found = audit(ann)
    assert found == [], found
    row.locator("button", has_text="Unfriend").click()
    ann.locator("#friends li[data-friend=friendbob]").wait_for(state="detached")
    assert ann.locator("#friends-none").is_visible()


def test_only_the_host_sees_start_and_bots_and_sets_options(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """The first seated person hosts: the second sees no Start nor Add bot and the options locked,
    with a note naming the host; once the host turns the host option off, the second may start."""
    host, guest = open_page(), open_page()
    come_in(host, "hosty")
    come_in(guest, "seconda")
    enter_room(host, "hosted")
    enter_room(guest, "hosted")
    host.locator(".seats li.taken").nth(1).wait_for()
    guest.locator(".seats li.taken").nth(1).wait_for()
    assert (
        host.locator("[data-focus=start]").is_visible() and host.locator("[data-focus=add-bot]").is_visible()
    )
    assert (
        guest.locator("[data-focus=start]").count() == 0
        and guest.locator("[data-focus=add-bot]").count() == 0
    )
    assert guest.locator("#opt-clock").is_disabled() and guest.locator("#opt-private").is_disabled()
    assert "hosty is the host" in guest.locator(".host-note").inner_text()
    assert guest.locator(".seats .badge.host").inner_text() == "host"
    found = audit(guest)
    assert found == [], found
    host.locator("#opt-host").uncheck()
    guest.locator("[data-focus=start]").wait_for()
    assert guest.locator("#opt-clock").is_enabled()
    wait_until(host, lambda: server.call(lambda s: s.lobby.rooms["hosted"].core.options.host) is False)


def test_a_private_room_leaves_the_list_and_an_invitation_links_to_it(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """The private switch hides the room from the lobby's list; the Invite button sends an
    invitation whose link takes the invitee into the room."""
    host, friend = open_page(), open_page()
    come_in(host, "privhost")
    come_in(friend, "privguest")
    enter_room(host, "hideaway")
    friend.locator(".rooms li", has_text="hideaway").wait_for()
    host.locator("#opt-private").check()
    wait_until(host, lambda: server.call(lambda s: s.lobby.rooms["hideaway"].core.options.private) is True)
    wait_until(friend, lambda: friend.locator(".rooms li", has_text="hideaway").count() == 0)
    host.locator("#invite-name").fill("privguest")
    host.locator("#invite-form button[type=submit]").click()
    link = friend.locator("#log .line a.room-link[data-room=hideaway]")
    link.wait_for()
    assert (
        "privhost invites you"
        in friend.locator("#log .line", has=friend.locator("a.room-link")).last.inner_text()
    )
    link.click()
    friend.locator("#room-name", has_text="hideaway").wait_for()
    host.locator(".player-list", has_text="privhost").wait_for()
    wait_for_line(host, "privguest comes in")


def test_a_private_games_switch_stays_on_until_the_game_is_over(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """A room private when its game starts cannot turn public while the game runs (a private game
    stays private to its end): the switch stays on and locked."""
    page = open_page()
    seat_with_bot(page, "lockhost", "lockroom", start=False)
    page.locator("#opt-private").check()
    wait_until(page, lambda: server.call(lambda s: s.lobby.rooms["lockroom"].core.options.private) is True)
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    wait_until(page, lambda: page.locator("#opt-private").is_disabled())
    assert page.locator("#opt-private").is_checked()


def test_a_vote_to_remove_a_gone_player_is_answered_from_its_prompt(open_page: Callable[..., Page]) -> None:
    """With a third player gone, /remove asks the other seated player in a prompt; Accept passes it.
    A page back on a new connection shows the vote the server sends it as it comes back (the one
    running), not one it showed before: there, one that ended meanwhile is gone."""
    ann, bob, cid = open_page(), open_page(), open_page()
    for page, name in ((ann, "voteann"), (bob, "votebob"), (cid, "votecid")):
        come_in(page, name)
        enter_room(page, "voting")
    ann.locator(".seats li.taken").nth(2).wait_for()
    ann.locator("[data-focus=start]").click()
    bob.locator("#app[data-state=playing]").wait_for()
    cid.context.close()
    ann.locator("#players li[data-player=votecid] .badge.away").wait_for()
    type_line(ann, "/remove votecid")
    prompt = bob.locator("#vote")
    prompt.wait_for()
    assert "voteann asks to take votecid" in prompt.inner_text()
    ann.locator("#vote").wait_for()  # the asker's page shows the vote too, in its own time
    assert ann.locator("#vote-yes").is_hidden()  # asking is voting yes
    found = audit(bob)
    assert found == [], found
    bob.context.set_offline(True)  # bob's connection is lost; back on a new one, the vote still runs
    bob.locator("#banner", has_text="connection is lost").wait_for()
    bob.context.set_offline(False)
    bob.locator("#app[data-conn=connected][data-state=playing]").wait_for()
    prompt.wait_for()
    assert "voteann asks to take votecid" in prompt.inner_text()
    ann.locator("#vote").wait_for()
    ann.context.set_offline(True)  # the vote passes while ann's page is away: back, it shows none
    ann.locator("#banner", has_text="connection is lost").wait_for()
    bob.locator("#vote-yes").click()
    prompt.wait_for(state="hidden")
    wait_for_line(bob, "Vote passed")
    ann.context.set_offline(False)
    ann.locator("#app[data-conn=connected][data-state=playing]").wait_for()
    ann.locator("#vote").wait_for(state="hidden")


def test_a_room_name_being_typed_survives_the_room_list_changing(open_page: Callable[..., Page]) -> None:
    """The lobby's list is redrawn when a room opens elsewhere; the name typed in the room field stays."""
    typist, opener = open_page(), open_page()
    come_in(typist, "typist")
    come_in(opener, "openera")
    typist.locator("#room-input").fill("half-typed")
    enter_room(opener, "elsewhere")
    typist.locator(".rooms li", has_text="elsewhere").wait_for()
    assert typist.locator("#room-input").input_value() == "half-typed"


def test_typing_goes_on_where_it_was_across_the_room_list_changing(open_page: Callable[..., Page]) -> None:
    """The caret and the selection survive the lobby being redrawn: typing after it goes on at the
    caret, and a selected name is replaced by what is typed next, as if nothing had been redrawn."""
    typist, opener = open_page(), open_page()
    come_in(typist, "caretkeep")
    come_in(opener, "openerb")
    field = typist.locator("#room-input")
    field.fill("")
    field.press_sequentially("half")
    typist.keyboard.press("ArrowLeft")  # the caret between "hal" and "f"
    enter_room(opener, "elsewhere-b")
    typist.locator(".rooms li", has_text="elsewhere-b").wait_for()
    typist.keyboard.type("-")
    assert field.input_value() == "hal-f"
    # all of it selected, as a click and drag would (by the keyboard, in the field that has the
    # focus: a handle on the element could meet a redraw of the lobby between finding and acting)
    typist.keyboard.press("Control+a")
    type_line(opener, "/leave")
    typist.locator(".rooms li", has_text="elsewhere-b").wait_for(state="detached")
    typist.keyboard.insert_text("options")
    assert field.input_value() == "options"
