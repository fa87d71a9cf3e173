"""The data files the web page reads are generated from the engine and the command parser.

``server/static/board.json`` (the classic board) and ``server/static/commands.json`` (the chat
commands, for completion) are committed; these tests check that they equal what the Python code
produces. ``UPDATE_GOLDEN=1 pytest tests/web/test_static_data.py`` rewrites them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine import BAR_VALUES, get_board
from engine.cards import NATION_NAMES
from protocol.commands import ALIASES, COMMANDS
from protocol.i18n import DEFAULT, LANGUAGES, lang

STATIC = Path(__file__).parents[2] / "server" / "static"


def board_data(name: str = "classic") -> dict[str, Any]:
    """The board as the web page draws it: the grid, tables with their chairs by side, every chair
    with both names, its tables and nations, and the bar's values."""
    board = get_board(name)
    return {
        "name": board.name,
        "rows": board.rows,
        "cols": board.cols,
        "bar_cell": list(board.bar_cell) if board.bar_cell else None,
        "bar_values": list(BAR_VALUES),
        "nations": dict(NATION_NAMES),
        "tables": [
            {
                "name": t.name,
                "nation": t.nation,
                "row": t.row,
                "col": t.col,
                "chairs": [board.chairs[c].name for c in t.chairs],
            }
            for t in board.tables
        ],
        "chairs": [
            {
                "name": c.name,
                "names": list(c.names),
                "tables": [board.tables[t].name for t in c.tables],
                "nations": list(c.nations),
            }
            for c in board.chairs
        ],
    }


def commands_data() -> dict[str, Any]:
    """The chat commands for completion: each name with its usage line and summary (in English, and
    in every other language under ``usages`` and ``summaries``), and the aliases."""
    others = [lang(code) for code in LANGUAGES if code != DEFAULT]
    return {
        "commands": [
            {
                "name": name,
                "usage": info.usage,
                "usages": {say.code: say(info.usage) for say in others},
                "summary": info.summary,
                "summaries": {say.code: say(info.summary) for say in others},
            }
            for name, info in COMMANDS.items()
        ],
        "aliases": dict(ALIASES),
    }


def _check(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, (
        f"{path} is out of date; regenerate it with UPDATE_GOLDEN=1 pytest {__file__}"
    )


def test_board_json_is_the_engines_classic_board() -> None:
    """board.json holds the engine's classic board: 24 tables, 68 chairs, 28 of them shared."""
    data = board_data()
    assert len(data["tables"]) == 24
    assert len(data["chairs"]) == 68
    assert sum(len(c["tables"]) == 2 for c in data["chairs"]) == 28
    _check(STATIC / "board.json", data)


def test_commands_json_lists_every_chat_command() -> None:
    """commands.json names every command the chat parser knows, with its usage, and the aliases."""
    data = commands_data()
    assert {c["name"] for c in data["commands"]} == set(COMMANDS)
    _check(STATIC / "commands.json", data)


def test_commands_json_carries_each_summary_in_german() -> None:
    """Each command's summary and usage in commands.json is also there in German, as /help writes it."""
    data = commands_data()
    by_name = {c["name"]: c for c in data["commands"]}
    assert by_name["rooms"]["summaries"]["de"] == lang("de")(COMMANDS["rooms"].summary)
    assert by_name["rooms"]["summaries"]["de"] != by_name["rooms"]["summary"]
    assert all(c["summaries"]["de"] for c in data["commands"])
    # a usage's placeholders that are words are German words too
    assert by_name["join"]["usages"]["de"] == "/join [RAUM oder N]"
    _check(STATIC / "commands.json", data)
