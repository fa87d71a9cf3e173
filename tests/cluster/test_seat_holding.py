"""A hand is read only by the person who plays its seat now, in a cluster: the room lives on
node a (ann, bob and cid play there), the player who loses a seat (dan) and the newcomer (zoe)
are connected to node b. The scenarios are those of ``tests/server/test_seat_holding.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient
from tests.server.process import ServerProcess
from tests.server.test_seat_holding import (
    Connect,
    back_after_the_window,
    left_and_watching,
    taken_over,
    voted_out,
)

#: the bots think in the nodes' own processes
ARGS = ("--bot-workers", "0")
#: connected to node b, which does not own the room
ELSEWHERE = ("dan", "zoe")


def _across(a: ServerProcess, b: ServerProcess) -> Connect:
    """Connects dan and zoe to node b, everyone else to node a (where ann opens the room)."""

    async def connect(name: str, **hello: Any) -> WsClient:
        return await WsClient.connect((b if name in ELSEWHERE else a).port, name, **hello)

    return connect


async def test_a_player_voted_out_on_another_node_watches_after_coming_back(
    redis_url: str, tmp_path: Path
) -> None:
    """``/remove``: dan, back on node b with his token, reads no hand in the snapshot or the
    patches of the bot's moves, and ``legal_moves``, ``hint`` and ``move`` are ``not_seated``."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
        await voted_out(_across(a, b))


async def test_a_player_on_another_node_whose_seat_was_taken_over_watches(
    redis_url: str, tmp_path: Path
) -> None:
    """``/join N``: dan, watching from node b, never reads the hand of the seat zoe took over."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
        await taken_over(_across(a, b))


async def test_a_player_on_another_node_who_left_watches_until_taking_the_seat_back(
    redis_url: str, tmp_path: Path
) -> None:
    """``/leave``: dan, back in the room from node b, watches until ``/join 4`` gives him the seat
    and its hand again."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
        await left_and_watching(_across(a, b))


async def test_a_player_back_on_another_node_after_the_window_plays_the_seat(
    redis_url: str, tmp_path: Path
) -> None:
    """``absent bot``, a resume after the window on node b: the seat the bot kept is dan's again,
    with its hand; zoe, watching from node b meanwhile, read no hand."""
    async with two_nodes(redis_url, tmp_path, *ARGS, "--resume-window", "0.5") as (a, b):
        await back_after_the_window(_across(a, b))
