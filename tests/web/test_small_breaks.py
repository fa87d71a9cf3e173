"""The small things a player trips on: Play says the move in words, a guest that may not sit
alone says the rule, a hand's size reads as cards (never "0 0" beside the score), a move the
clock played is marked, the bar's and the joker's marks are legible, a seat a bot plays after a
vote is not "away", the phone's header is short, and the first game's guide starts a practice
game in one click."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, PHONE
from tests.web.live_steps import seat_with_bot
from tests.web.pages import come_in, type_line, wait_for_line


def test_play_says_the_move_in_words(open_page: Callable[..., Page]) -> None:
    """A card chosen for the bar: Play reads "Play: … to the bar", no notation."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "wordplay", "words-room")
    page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
    card = page.locator("#hand .card.playable:not([data-card^=J])").first
    card.click()
    page.locator("#board .bar-hit.target").click(force=True)
    text = page.locator("#confirm").inner_text()
    assert text.startswith("Play: ") and "to the bar" in text and "@" not in text, text


def test_a_guest_that_may_not_sit_alone_says_the_rule(open_page: Callable[..., Page]) -> None:
    """One guest chosen of a move of two: the prompt says that nobody sits alone, not only
    "Choose the next guest"."""
    page = open_page(DESKTOP)
    said = page.evaluate(
        """async () => {
          const { MoveChooser } = await import("/turn.js");
          const { MovePlanner } = await import("/moves.js");
          const board = await (await fetch("/board.json")).json();
          const state = { view: { you: "ann", game: { to_move: "ann", over: null, move_number: 3,
                          hand: ["FRf", "FRm"], players: [] } },
                          legal: null, selected: null, used: [0], sending: null, nationAsk: null };
          const turn = new MoveChooser({ state, nations: board.nations, cafe: null, zoom: null,
                                         send() {}, newId: () => "x", render() {} });
          const plan = new MovePlanner(["FRf@FR1s FRm@FR1e"]);
          plan.pick("FRf", "FR1s");
          return turn.prompt(plan, plan.complete());
        }"""
    )
    assert "may not sit alone" in said and "France woman" in said, said


def test_the_hand_size_reads_as_cards_and_the_clocks_move_is_marked(open_page: Callable[..., Page]) -> None:
    """The players' list says "5 cards", not a bare number beside the score; a move the clock
    played carries its mark in the list of moves, also after a reload, and on the page of
    someone who came to watch after it (the view's history carries the marks)."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "sleepy", "clock-room", start=False)
    type_line(page, "/option clock 5")
    wait_for_line(page, "5")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    sizes = page.locator("#players .hand-size").all_inner_texts()
    assert sizes and all(s.strip().endswith(("cards", "card")) for s in sizes), sizes
    marked = page.locator("#history li[data-auto=clock]").first
    marked.wait_for(timeout=20_000)
    assert "the clock ran out" in marked.inner_text()
    move = marked.get_attribute("data-move")
    page.reload()
    page.locator("#app[data-state=playing]").wait_for()
    page.locator(f"#history li[data-auto=clock][data-move='{move}']").first.wait_for()  # kept across a reload
    late = open_page(DESKTOP)
    come_in(late, "latewatch")
    type_line(late, "/watch clock-room")
    late.locator(f"#history li[data-auto=clock][data-move='{move}']").first.wait_for()


def test_the_bars_guests_and_the_jokers_mark_are_legible(open_page: Callable[..., Page]) -> None:
    """A guest on the bar has its code at 9 units or more (≥ 8 px at 1280×800), and a joker's star
    on a chair 9 units or more."""
    page = open_page(DESKTOP)
    sizes = page.evaluate(
        """async () => {
          const { guestTile } = await import("/flags.js");
          const ns = "http://www.w3.org/2000/svg";
          const svg = document.createElementNS(ns, "svg");
          svg.innerHTML = guestTile("GBm", 25, 17, { compact: true });
          const bar = Number(svg.querySelector(".code").getAttribute("font-size"));
          svg.innerHTML = guestTile("Jf=FR", 40, 40);
          const star = [...svg.querySelectorAll("text")].find((t) => t.textContent === "★");
          return { bar, star: Number(star.getAttribute("font-size")) };
        }"""
    )
    assert sizes["bar"] >= 9 and sizes["star"] >= 9, sizes


def test_a_seat_a_bot_plays_after_a_vote_is_not_away(open_page: Callable[..., Page]) -> None:
    """A gone player voted out: a bot plays the seat, and the list says so rather than "away"."""
    ann, bob, cid = open_page(), open_page(), open_page()
    for page, name in ((ann, "outann"), (bob, "outbob"), (cid, "outcid")):
        come_in(page, name)
        type_line(page, "/join outvote")
        page.locator("#app[data-state=waiting]").wait_for()
    ann.locator(".seats li.taken").nth(2).wait_for()
    type_line(ann, "/start")
    ann.locator("#app[data-state=playing]").wait_for()
    cid.close()
    ann.locator("#players li[data-player=outcid] .badge.away").wait_for()
    type_line(ann, "/remove outcid")
    bob.locator("#vote-yes").click()
    ann.locator("#players li[data-player=outcid] .badge.stand-in").wait_for()
    assert ann.locator("#players li[data-player=outcid] .badge.away").count() == 0


def test_the_phones_header_is_short_and_its_settings_open_from_the_name(
    open_page: Callable[..., Page],
) -> None:
    """On a phone in a game the header takes at most 110 of 844 px; the sound switch and the
    rules open from the name's menu."""
    page = open_page(PHONE)
    seat_with_bot(page, "shortheader", "header-room")
    page.locator("#play-now").wait_for(state="hidden")  # (shown until the game's first view)
    page.wait_for_function("document.querySelector('header.top').getBoundingClientRect().height <= 110")
    box = page.locator("header.top").bounding_box()
    assert box is not None and box["height"] <= 110, box
    assert page.locator("#sound-on").is_hidden()
    page.locator("#me").click()
    page.locator("#sound-on").wait_for()
    page.locator("#logout-btn").wait_for()


def test_the_first_game_guide_starts_a_practice_game_against_a_bot(open_page: Callable[..., Page]) -> None:
    """A newcomer sees the guide with the rules in short; one click starts a practice game
    against a bot; closed (by another newcomer), it stays closed after a reload."""
    page = open_page(DESKTOP)
    come_in(page, "newcomer")
    guide = page.locator("#guide")
    guide.wait_for()
    assert "Nobody sits alone" in guide.inner_text()
    page.locator("[data-guide=practice]").click()
    page.locator("#app[data-state=playing]").wait_for()
    assert page.locator("#players li .badge.bot").count() == 1
    wait_for_line(page, "A practice game")
    other = open_page(DESKTOP)
    come_in(other, "newcomer2")
    other.locator("[data-guide=close]").click()
    other.locator("#guide").wait_for(state="hidden")
    other.reload()
    other.locator(".panel.lobby").wait_for()
    assert other.locator("#guide").is_hidden()


def _cases(seed: int, stammtisch: bool) -> list[dict[str, object]]:
    """Positions of a game played with the engine's moves, each with several of its legal moves
    and the points the engine scores them."""
    import random

    from engine import legal_moves, new_position, play
    from engine.position import Options
    from protocol.view import room_view

    chooser = random.Random(seed)
    position = new_position(["ann", "bob", "cy"], seed=seed, options=Options(stammtisch=stammtisch))
    cases: list[dict[str, object]] = []
    for _ in range(40):
        moves = legal_moves(position)
        if not moves:
            break
        game = room_view(
            room="x",
            state="playing",
            seats=[],
            spectators=[],
            options={},
            position=position,
            recipient=None,
            last_move=None,
            outcome=None,
            move_number=0,
        )["game"]
        # a few of the moves, and every Stammtisch (three or four guests at once) there is
        big = [m for m in moves if len(m.text.split()) > 2]
        for move in chooser.sample(moves, min(6, len(moves))) + big:
            points = play(position, move).points
            cases.append({"chairs": game["chairs"], "bar": game["bar"], "move": move.text, "points": points})
        position = play(position, chooser.choice(moves)).position
    return cases


def test_the_points_shown_before_a_move_are_the_engines(open_page: Callable[..., Page]) -> None:
    """Before Play the prompt says what the move scores: for hundreds of legal moves of games the
    engine plays (pairs, bars, swaps, jokers, Stammtische), the page's figure is the engine's."""
    cases = [c for seed in (3, 8, 21) for c in _cases(seed, stammtisch=seed != 21)]
    page = open_page(DESKTOP)
    found = page.evaluate(
        """async (cases) => {
          const { movePoints } = await import("/score.js");
          const board = await (await fetch("/board.json")).json();
          return cases.map((c) => movePoints(c.move, { chairs: c.chairs, bar: c.bar, board }));
        }""",
        cases,
    )
    wrong = [(c["move"], c["points"], got) for c, got in zip(cases, found, strict=True) if c["points"] != got]
    stammtische = [c for c in cases if len(str(c["move"]).split()) > 2]
    assert len(cases) > 300 and stammtische and wrong == [], wrong[:10]


def test_the_prompt_says_what_the_move_will_score(open_page: Callable[..., Page]) -> None:
    """A hint set up on the board: the prompt says "It scores" with the hint's own points."""
    page = open_page(DESKTOP)
    seat_with_bot(page, "scorer", "score-room")
    page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
    page.locator("#hint-btn").click()
    hint = page.locator("#log .line", has_text="Hint: ")
    hint.wait_for()
    points = hint.inner_text().rsplit("(", 1)[1].rstrip(")").replace("-", "−").replace("+0", "0")
    page.locator("#confirm:not([disabled])").wait_for()
    assert f"It scores {points}." in page.locator("#prompt").inner_text()


def test_the_prompt_says_a_bar_place_one_cannot_pay_puts_one_out(open_page: Callable[..., Page]) -> None:
    """A bar place that costs more than the mover's score is no score: the mover would be out of
    the game (docs/rules.md, section 5); one that costs as much as the score is paid."""
    page = open_page(DESKTOP)
    said = page.evaluate(
        """async () => {
          const { scoreWords } = await import("/score.js");
          return [scoreWords(-30, 10), scoreWords(-30, 30), scoreWords(4, 0), scoreWords(-2)];
        }"""
    )
    assert said == [
        "It costs 30, more than your 10 points: you would be out of the game.",
        "It scores −30.",
        "It scores +4.",
        "It scores −2.",
    ]

