"""The language a connection reads: hello's lang, /lang (also at a line client's name prompt), an
account keeping it; German texts end to end, machine-readable parts unchanged, 80 columns kept."""

from __future__ import annotations

import random

from engine import legal_move_texts, new_position, play
from protocol.i18n import lang
from protocol.text import WIDTH, display_width
from protocol.text.lines import PROMPT
from server.app import Server
from tests.server.clients import MAX_TURNS, LineClient, WsClient, chat_form


async def test_hello_in_german_gets_errors_and_notices_in_german(server: Server) -> None:
    """With lang "de" in hello, error sentences and notices are German; codes stay as they are."""
    ann = await WsClient.connect(server.port, "ann", lang="de")
    error = await ann.request({"type": "move", "move": "FRf@FR1s"})
    assert (error["code"], error["message"]) == (
        "not_in_room",
        "Betritt erst einen Raum: /room NAME, oder /join NAME zum Spielen.",
    )
    help_text = await ann.command("/help")
    assert help_text["kind"] == "help" and "Räume und Leute:" in help_text["text"]
    answer = await ann.command("/lang en")
    assert answer["type"] == "ack"
    notices = [m for m in ann.take_all() if m["type"] == "notice"]
    assert notices and notices[-1]["text"] == "You read English from now on."
    await ann.command("/lang de")
    notices = [m for m in ann.take_all() if m["type"] == "notice"]
    assert notices[-1]["text"] == "Ab jetzt liest du alles auf Deutsch."


async def test_an_unknown_language_is_refused_and_changes_nothing(server: Server) -> None:
    """hello or /lang with a language the server does not speak: bad_language, still English."""
    ann = await WsClient.connect(server.port, "ann")
    refused = await ann.command("/lang fr")
    assert (refused["type"], refused["code"]) == ("error", "bad_language")
    refused = await ann.request({"type": "lang", "lang": "xx"})
    assert refused["code"] == "bad_language"
    await ann.command("/lang en")
    notices = [m for m in ann.take_all() if m["type"] == "notice"]
    assert notices[-1]["text"] == "You read English from now on."
    bob = await WsClient.connect(server.port)
    refused = await bob.request({"type": "hello", "name": "bob", "lang": "fr"})
    assert (refused["type"], refused["code"]) == ("error", "bad_language")
    welcome = await bob.request({"type": "hello", "name": "bob"})
    assert welcome["type"] == "welcome"


async def test_a_registered_name_keeps_its_language(server: Server) -> None:
    """/lang of a registered player is remembered: the next login without lang reads German."""
    ann = await WsClient.connect(server.port, "anna")
    assert (await ann.request({"type": "register", "password": "secret-words"}))["type"] == "welcome"
    await ann.command("/lang de")
    await ann.close()
    again = await WsClient.connect(server.port, "anna", password="secret-words")
    error = await again.request({"type": "move", "move": "FRf@FR1s"})
    assert error["message"].startswith("Betritt erst einen Raum")
    english = await WsClient.connect(server.port)
    await english.request({"type": "hello", "name": "anna", "password": "secret-words", "lang": "en"})
    error = await english.request({"type": "move", "move": "FRf@FR1s"})
    assert error["message"].startswith("Enter a room first")
    stored = await server.lobby.store.account("anna")
    assert stored is not None and stored.lang == "de"


async def test_a_guest_line_client_chooses_german_at_the_prompt(server: Server) -> None:
    """/lang de at the name prompt answers in German and asks for the name in German."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("/lang de")
    await client.expect("Ab jetzt liest du alles auf Deutsch.")
    await client.expect("Dein Name")
    await client.line("joerg")
    await client.expect("Hallo joerg!")
    await client.line("/lang fr")
    await client.expect("[bad_language]")


async def test_a_rooms_state_reads_german_on_entering_and_in_the_list(server: Server) -> None:
    """The state of a room is a word of the reader's language where people read it."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port, "joerg")
    await client.line("/lang de")
    await client.line("/join tisch")
    await client.expect("* Du bist im Raum tisch (wartet).")
    await client.line("/rooms")
    assert (await client.expect("Plätze:")).split()[-3:] == ["tisch", "wartet", "Plätze:"]


async def test_a_german_line_client_plays_a_game_to_the_end(server: Server) -> None:
    """A line client reading German and an English WebSocket client finish a game; the German
    reads German lines and pictures, no line wider than 80 columns, moves and codes unchanged."""
    assert server.line_port is not None
    ann = await WsClient.connect(server.port, "ann")
    jorg = await LineClient.connect(server.line_port)
    await jorg.line("/lang de")
    await jorg.expect("Dein Name")
    await jorg.line("joerg")
    await jorg.expect("Hallo joerg!")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/option seed 11"))["type"] == "ack"
    assert (await ann.command("/option host off"))["type"] == "ack"
    await jorg.line("/join cafe")
    await ann.next(lambda m: m["type"] == "presence" and m["name"] == "joerg" and m["event"] == "joined")
    await jorg.line("/start")
    started = await ann.next("game_started")
    await jorg.expect("* Das Spiel beginnt: ")
    position = new_position(started["players"], 11)
    rng = random.Random(3)
    for turn in range(MAX_TURNS):
        move = rng.choice(legal_move_texts(position))
        if position.players[position.to_move].name == "ann":
            assert (await ann.request({"type": "move", "move": move}))["type"] == "ack"
        else:
            if turn < 4:
                await jorg.line("/moves")
                await jorg.expect(" erlaubte")
            await jorg.line(chat_form(move))
        played = await ann.next("played")
        result = play(position, move)
        assert played["move"] == result.move
        position = result.position
        if result.outcome is not None:
            break
    else:
        raise AssertionError("the game did not end")
    await ann.next("game_over")
    await jorg.expect("* Spielende (")
    await jorg.line("/board")
    await jorg.expect("Spielende: ")
    await jorg.line("/score")
    await jorg.expect("Platz  Spieler")
    await jorg.line("/nosuch")
    await jorg.expect("[unknown_command]")
    text = jorg.text()
    for german in ("setzt", "Raum cafe", "Stapel", "Deine Hand", "Spieler", "Punkte"):
        assert german in text, german
    for english in ("takes a seat", "It is your turn", "Your hand", "legal moves"):
        assert english not in text, english
    # the prompt has no line end: what is typed after it goes on its line
    prompt = lang("de")(PROMPT)
    widest = max(text.replace(prompt, prompt + "\n").splitlines(), key=display_width)
    assert display_width(widest) <= WIDTH, widest


async def test_join_n_refusals_read_german(server: Server) -> None:
    """A German spectator's /join N: each refusal in German with its code, and the vote it opens."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    zoe = await WsClient.connect(server.port, "zoe", lang="de")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await bob.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    early = await zoe.request({"type": "join", "room": "cafe", "seat": 2})
    assert (early["code"], early["message"]) == ("not_in_room", "Betritt erst cafe, dann /join 2.")
    assert (await zoe.command("/room cafe"))["type"] == "ack"
    answers = [await zoe.command(f"/join {n}") for n in (3, 2)]
    assert [(a["code"], a["message"]) for a in answers] == [
        ("bad_seat", "Dieses Spiel hat die Plätze 1 bis 2."),
        ("seat_taken", "bob spielt Platz 2 und ist da."),
    ]
    await bob.close()
    await ann.next(lambda m: m["type"] == "presence" and m["name"] == "bob" and m["event"] == "away")
    assert (await zoe.command("/join 2"))["type"] == "ack"
    vote = await ann.next("vote")
    assert (vote["kind"], vote["state"], vote["name"]) == ("join", "open", "bob")
    again = await zoe.command("/join 2")
    assert (again["code"], again["message"]) == ("vote_running", "Eine Abstimmung läuft; warte ihr Ende ab.")


async def test_presence_details_read_in_each_readers_language(server: Server) -> None:
    """A presence's detail (a bot's kind, why a bot took over) is German for a German reader and
    English for an English one, from the same event."""
    ann = await WsClient.connect(server.port, "ann", lang="de")
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await bob.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/addbot random"))["type"] == "ack"

    def joined(msg: dict[str, object]) -> bool:
        return msg["type"] == "presence" and msg["event"] == "joined" and msg["detail"] is not None

    assert (await ann.next(joined))["detail"] == "zufälliger Bot"
    assert (await bob.next(joined))["detail"] == "random bot"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.request({"type": "leave_room"})

    def taken(msg: dict[str, object]) -> bool:
        return msg["type"] == "presence" and msg["event"] == "replaced_by_bot"

    assert (await ann.next(taken))["detail"] == "hat das Spiel verlassen"


async def test_a_rule_refusal_reads_german_and_keeps_its_code(server: Server) -> None:
    """A move the rules refuse is answered in the mover's language; /lang en gives the engine's English."""
    ann = await WsClient.connect(server.port, "ann", lang="de")
    bob = await WsClient.connect(server.port, "bob", lang="de")
    assert (await ann.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/option seed 11"))["type"] == "ack"
    assert (await bob.command("/join cafe"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    started = await ann.next("game_started")
    mover = ann if started["start_player"] == "ann" else bob
    error = await mover.request({"type": "move", "move": "FRf@XX9n"})
    assert (error["code"], error["message"]) == (
        "unknown_chair",
        "Auf diesem Spielplan gibt es keinen Stuhl 'XX9n'.",
    )
    error = await mover.request({"type": "move", "move": "swap Jf=FR@FR1s"})
    assert error["code"] == "bad_notation"
    assert error["message"].startswith("'swap Jf=FR@FR1s' ist kein Zug: die Karte, die einen Joker ersetzt,")
    await mover.command("/lang en")
    error = await mover.request({"type": "move", "move": "FRf@XX9n"})
    assert (error["code"], error["message"]) == ("unknown_chair", "There is no chair 'XX9n' on this board.")


async def test_lookups_and_room_info_read_german(server: Server) -> None:
    """/history, /rating, /top, /finger and /info answer a German reader in German."""
    ann = await WsClient.connect(server.port, "anna", lang="de")
    assert (await ann.request({"type": "register", "password": "secret-words"}))["type"] == "welcome"
    history = await ann.command("/history")
    assert (history["kind"], history["text"]) == ("history", "Noch keine Spiele.")
    rating = await ann.command("/rating")
    assert rating["text"].endswith("(noch keine gewerteten Spiele)")
    top = await ann.command("/top")
    assert top["text"] == "Noch keine gewerteten Spiele."
    finger = await ann.command("/finger anna")
    assert "dabei seit" in finger["text"] and "jetzt in der Lobby" in finger["text"]
    assert "Wertung 1000?  Spiele 0 (0 gewertet, 0 gewonnen)" in finger["text"]
    assert (await ann.command("/join cafe"))["type"] == "ack"
    info = (await ann.command("/info"))["text"].splitlines()
    assert info[:2] == ["Raum cafe: wartet. Plätze: 1. anna.", "Gastgeber: anna."]
    assert info[2] == "Gewertet: nein, weniger als zwei registrierte Spieler sitzen am Tisch."
    assert "Stammtisch: aus. Privat: aus." in info


async def test_a_stopping_server_says_goodbye_in_german(server: Server) -> None:
    """The bye message and the close frame's reason are in the reader's language."""
    ann = await WsClient.connect(server.port, "ann", lang="de")
    await server.stop()
    bye = await ann.next("bye")
    assert bye["reason"] == "Der Server hält an. Bis bald!"
    await ann.ws.wait_closed()
    assert (ann.ws.close_code, ann.ws.close_reason) == (1001, "Server hält an")
