"""The reader's language across nodes: a room's words reach a member on another node in the
member's language, and friends' news is written for each reader on their own node."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from protocol.i18n import _, lang
from server.cluster import envelopes as env
from tests.server.clients import WsClient
from tests.server.process import ServerProcess

NO_GAME_EN = "No game is running here; /join and /start one."
NO_GAME_DE = "Hier läuft kein Spiel; /join und /start beginnen eins."


async def test_a_member_on_another_node_reads_the_rooms_words_in_their_language(
    nodes: list[ServerProcess],
) -> None:
    """gerda on b reads German in a room owned by a, English after /lang en; ann on a stays English."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    assert (await ann.command("/room stube"))["type"] == "ack"
    gerda = await WsClient.connect(nodes[1].port, "gerda", lang="de")
    assert (await gerda.command("/room stube"))["type"] == "ack"
    refused = await gerda.command("/play FRf@FR1s")
    assert (refused["type"], refused["code"], refused["message"]) == ("error", "no_game", NO_GAME_DE)
    mine = await ann.command("/play FRf@FR1s")
    assert (mine["code"], mine["message"]) == ("no_game", NO_GAME_EN)
    assert (await gerda.command("/lang en"))["type"] == "ack"
    again = await gerda.command("/play FRf@FR1s")
    assert (again["code"], again["message"]) == ("no_game", NO_GAME_EN)


async def test_a_language_chosen_on_another_node_reaches_the_room_before_the_members_next_message(
    nodes: list[ServerProcess],
) -> None:
    """gerda on b says /lang en and nothing more: ann's next option change already reads English."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    assert (await ann.command("/join stube"))["type"] == "ack"
    gerda = await WsClient.connect(nodes[1].port, "gerda", lang="de")
    assert (await gerda.command("/room stube"))["type"] == "ack"
    assert (await ann.command("/option clock 90"))["type"] == "ack"
    heard = await gerda.next(lambda x: x["type"] == "notice" and "90" in x["text"])
    assert heard["text"] == "ann hat die Bedenkzeit auf 90 Sekunden je Zug gestellt."
    assert (await gerda.command("/lang en"))["type"] == "ack"
    # a tell from gerda reaches ann through a's node after what b sent the room before it
    assert (await gerda.command("/tell ann ready"))["type"] == "tell"  # its echo
    await ann.next(lambda x: x["type"] == "tell" and x["text"] == "ready")
    assert (await ann.command("/option clock 120"))["type"] == "ack"
    heard = await gerda.next(lambda x: x["type"] == "notice" and "120" in x["text"])
    assert heard["text"] == "ann set the clock to 120 seconds per turn."


async def test_friends_news_from_another_node_is_in_each_readers_language(
    nodes: list[ServerProcess],
) -> None:
    """bob (German) and eve (English) on b have cara on a as a friend: each hears of her coming
    and of her game in their own language."""
    bob = await WsClient.connect(nodes[1].port, "bob", lang="de")
    eve = await WsClient.connect(nodes[1].port, "eve")
    for friend in (bob, eve):
        assert (await friend.command("/friend cara"))["type"] == "ack"
    cara = await WsClient.connect(nodes[0].port, "cara")
    assert (await bob.next(lambda x: x["type"] == "notice" and "online" in x["text"]))["text"] == (
        "Dein Freund cara ist online."
    )
    assert (await eve.next(lambda x: x["type"] == "notice" and "online" in x["text"]))["text"] == (
        "Your friend cara is online."
    )
    assert (await cara.command("/join den"))["type"] == "ack"
    assert (await cara.command("/addbot greedy"))["type"] == "ack"
    assert (await cara.command("/start"))["type"] == "ack"
    started = await bob.next(lambda x: x["type"] == "notice" and "/watch" in x["text"])
    assert started["text"] == "Dein Freund cara hat im Raum den ein Spiel begonnen: /watch den."
    started = await eve.next(lambda x: x["type"] == "notice" and "/watch" in x["text"])
    assert started["text"] == "Your friend cara started a game in room den: /watch den."


def test_news_carries_its_message_id_and_params_to_be_written_per_reader() -> None:
    """News made from a marked text carries its id and params, and reads as German to a German reader."""
    text = _("Your friend {name} is online.", name="cara")
    news = env.parse(env.dump(env.News.of("a", "cara", text)))
    assert isinstance(news, env.News)
    assert (news.msgid, news.params, news.text) == ("Your friend {name} is online.", {"name": "cara"}, text)
    assert lang("de")(news.words()) == "Dein Freund cara ist online."
    plain = env.News.of("a", "cara", "plain words")
    assert plain.msgid is None and plain.words() == "plain words"


def test_envelopes_with_an_unknown_language_or_unfilled_news_are_refused() -> None:
    """A room envelope naming no known language, and news whose params do not fill its id, do not parse."""
    room = {"op": "msg", "from": "a", "sid": "s1", "name": "ann", "kind": "person", "room": "r", "msg": "{}"}
    assert env.parse(env.dump(env.Message.model_validate({**room, "lang": "de"}))).lang == "de"  # type: ignore[union-attr]
    with pytest.raises(ValidationError):
        env.parse(env.dump(env.Message.model_validate(room)).replace('"lang":"en"', '"lang":"xx"'))
    news = {"op": "news", "from": "a", "name": "cara", "text": "t", "msgid": "Hi {name}", "params": {}}
    with pytest.raises(ValidationError):
        env.News.model_validate(news)
