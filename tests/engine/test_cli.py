"""``cafe-engine`` (``python -m engine``): new, moves, play, random-game and replay, with their output
formats and exit statuses (0 done, 1 move refused, 2 unusable input, 141 the output's reader gone)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import game_over_reason, load_position, position_from_dict
from engine.cli import main

#: ann to move (bob started); a French man on FR1n, a Spanish man on ES1s
POSITION: dict[str, Any] = {
    "board": "classic",
    "options": {"stammtisch": False},
    "players": [
        {"name": "ann", "hand": ["FRf", "FRm", "GBm", "GBf", "RUm"], "score": 0, "hand_limit": 5},
        {"name": "bob", "hand": ["ITm", "ITf"], "score": 3, "hand_limit": 5},
    ],
    "eliminated": [],
    "to_move": 0,
    "start_player": 1,
    "chairs": {"FR1n": "FRm", "ES1s": "ESm"},
    "bar": [],
    "deck": ["CNm", "CUf", "TRm", "USf", "USm", "TRf", "INm"],
}


def write(tmp_path: Path, data: dict[str, Any] | str, name: str = "position.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line in-process: exit status, standard output, standard error."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- new ----------------------------------------------------------------------------------------------


def test_cli_new_prints_a_starting_position(capsys: pytest.CaptureFixture[str]) -> None:
    """``new`` prints a loadable starting position: 5 cards each, 90 in the deck, nothing seated."""
    code, out, _ = run(capsys, "new", "--players", "ann,bob", "--seed", "7")
    assert code == 0
    data = json.loads(out)
    assert [p["name"] for p in data["players"]] == ["ann", "bob"]
    assert [len(p["hand"]) for p in data["players"]] == [5, 5]
    assert len(data["deck"]) == 90
    assert data["chairs"] == {} and data["bar"] == [] and data["eliminated"] == []
    assert data["options"] == {"stammtisch": False}
    assert data["to_move"] == data["start_player"]
    assert load_position(out).is_opening


def test_cli_new_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed prints the same position; another seed another one."""
    first = run(capsys, "new", "--players", "ann,bob,cem", "--seed", "3")[1]
    again = run(capsys, "new", "--players", "ann,bob,cem", "--seed", "3")[1]
    other = run(capsys, "new", "--players", "ann,bob,cem", "--seed", "4")[1]
    assert first == again
    assert first != other


def test_cli_new_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``--stammtisch`` switches the option on; ``--start-player`` sets who begins."""
    code, out, _ = run(
        capsys, "new", "--players", "ann,bob,cem,dora", "--seed", "1", "--stammtisch", "--start-player", "3"
    )
    assert code == 0
    data = json.loads(out)
    assert data["options"] == {"stammtisch": True}
    assert (data["start_player"], data["to_move"]) == (3, 3)
    assert len(data["deck"]) == 80


@pytest.mark.parametrize("players", ["ann", "ann,bob,cem,dora,eve", "ann,ann"])
def test_cli_new_unusable_players_exit_2(capsys: pytest.CaptureFixture[str], players: str) -> None:
    """1 or 5 players, or a repeated name, are unusable input: exit 2 and a message on standard error."""
    code, out, err = run(capsys, "new", "--players", players, "--seed", "1")
    assert code == 2
    assert out == ""
    assert err.startswith("cafe-engine: ")


# --- moves ----------------------------------------------------------------------------------------------


def test_cli_moves_one_per_line_canonical_sorted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``moves`` prints every legal move, canonical and sorted, one per line (worked out by hand)."""
    data = dict(POSITION, chairs={"FR1e": "FRm"})
    data["players"] = [{"name": "ann", "hand": ["Jf"]}, {"name": "bob", "hand": ["ITm"]}]
    code, out, _ = run(capsys, "moves", write(tmp_path, data))
    assert code == 0
    assert out.splitlines() == sorted(
        [
            "Jf@FR1n",
            "Jf=FR@FR1s",
            "Jf=ES@FR1s",
            "Jf=CN@CN1e",
            "Jf=FR@CN1e",
            "Jf@IN1n",
            "Jf=IN@IN1e",
            "Jf=US@IN1e",
            "Jf@IN1s",
        ]
    )


def test_cli_moves_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-`` reads the position from standard input."""
    data = dict(POSITION, chairs={"GB1n": "GBm"})
    data["players"] = [{"name": "ann", "hand": ["GBf"]}, {"name": "bob", "hand": ["ITm"]}]
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(json.dumps(data)))
    code, out, _ = run(capsys, "moves", "-")
    assert code == 0
    assert out.splitlines() == ["GBf@GB1e", "GBf@GB1s", "GBf@GB1w", "GBf@bar"]


def test_cli_moves_of_a_finished_game_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A finished position has no legal move: nothing is printed, exit 0."""
    code, out, _ = run(capsys, "moves", write(tmp_path, dict(POSITION, deck=["CNm", "CUf", "TRm", "USf"])))
    assert (code, out) == (0, "")


# --- play -----------------------------------------------------------------------------------------------


def test_cli_play_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A played move prints ok, the points, the events and the new position; the game goes on."""
    code, out, _ = run(capsys, "play", write(tmp_path, POSITION), "frf@es1n")
    assert code == 0
    result = json.loads(out)
    assert result["ok"] is True
    assert result["move"] == "FRf@FR1s"
    assert result["points"] == 4 + 2  # FR1: a French pair; ES1: a mixed pair
    seats = [e for e in result["events"] if e["type"] == "seat"]
    assert seats == [
        {
            "type": "seat",
            "player": "ann",
            "card": "FRf",
            "chair": "FR1s",
            "points": 6,
            "tables": {"FR1": 4, "ES1": 2},
        }
    ]
    assert result["game_over"] is None
    after = position_from_dict(result["position"])
    assert after.players[0].score == 6
    assert after.to_move == 1
    assert result["position"]["chairs"]["FR1s"] == "FRf"
    assert result["drawn"] == ["CNm"]


def test_cli_play_reports_the_end_of_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A move that ends the game carries final scores and ranking: ann 10 - 25 = -15, bob 3 - 10 = -7."""
    data = dict(POSITION, deck=["CNm", "CUf", "TRm", "USf", "USm", "TRf"])
    code, out, _ = run(capsys, "play", write(tmp_path, data), "FRf@FR1e FRm@CN1e")
    assert code == 0
    result = json.loads(out)
    assert result["points"] == 4 + 6
    assert result["game_over"]["final_scores"] == {"ann": -15, "bob": -7}
    assert result["game_over"]["ranking"] == ["bob", "ann"]
    assert game_over_reason(position_from_dict(result["position"])) == "deck"


@pytest.mark.parametrize(
    ("move", "error"),
    [
        ("FRm@FR1e", "gender"),
        ("GBm@GB1n", "alone"),
        ("FRf@XX1n", "unknown_chair"),
        ("nonsense", "bad_notation"),
    ],
)
def test_cli_play_refused_move_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], move: str, error: str
) -> None:
    """A refused move prints ok false, the error code and a sentence, and exits 1."""
    code, out, _ = run(capsys, "play", write(tmp_path, POSITION), move)
    assert code == 1
    result = json.loads(out)
    assert result["ok"] is False
    assert result["error"] == error
    assert isinstance(result["message"], str) and result["message"]


def test_cli_play_on_a_finished_game_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Any move on a finished position is refused with ``game_over``."""
    code, out, _ = run(capsys, "play", write(tmp_path, dict(POSITION, deck=[])), "FRf@FR1e")
    assert code == 1
    assert json.loads(out)["error"] == "game_over"


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps(dict(POSITION, chairs={"FR1n": "GBm"})),
        json.dumps(dict(POSITION, to_move=5)),
        "[" * 100_000 + "]" * 100_000,
    ],
    ids=["not-json", "guest-cannot-sit-there", "bad-seat", "nested-past-the-limit"],
)
def test_cli_play_unusable_position_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    """A position file that is not JSON or breaks the rules is unusable: exit 2, message on standard error."""
    path = write(tmp_path, content)
    code, out, err = run(capsys, "play", path, "FRf@FR1e")
    assert code == 2
    assert out == ""
    assert path in err


@pytest.mark.parametrize("command", [["moves"], ["play", "FRf@FR1e"], ["replay"], ["verify"]])
def test_cli_a_file_that_is_not_utf8_text_is_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """A file of bytes that are no UTF-8 text is unusable input, as bad JSON is: exit 2, one line."""
    path = tmp_path / "bytes.json"
    path.write_bytes(b"\xff\xfe\x00")
    code, out, err = run(capsys, command[0], str(path), *command[1:])
    assert (code, out) == (2, "") and "not UTF-8 text" in err and len(err.splitlines()) == 1


def test_cli_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A position file that does not exist is unusable: exit 2."""
    code, _, err = run(capsys, "moves", str(tmp_path / "missing.json"))
    assert code == 2
    assert "missing.json" in err


@pytest.mark.parametrize("args", [[], ["play"], ["play", "x.json"], ["new", "--seed", "1"], ["fly"]])
def test_cli_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    """Missing or unknown arguments are unusable input: exit 2 with the usage on standard error."""
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    assert "usage" in capsys.readouterr().err


# --- random-game and replay ---------------------------------------------------------------------------------


def test_cli_random_game_prints_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    """``random-game`` prints a record (players, seed, moves); the same seed prints the same record."""
    code, out, _ = run(capsys, "random-game", "--players", "3", "--seed", "5")
    assert code == 0
    record = json.loads(out)
    assert record["players"] == ["ann", "bob", "cem"]
    assert record["seed"] == 5
    assert record["options"] == {"stammtisch": False}
    assert record["moves"] and all(isinstance(m, str) for m in record["moves"])
    assert run(capsys, "random-game", "--players", "3", "--seed", "5")[1] == out


@pytest.mark.parametrize("players", ["1", "5"])
def test_cli_random_game_player_count_exit_2(capsys: pytest.CaptureFixture[str], players: str) -> None:
    """``--players`` must be 2, 3 or 4."""
    code, _, err = run(capsys, "random-game", "--players", players, "--seed", "1")
    assert code == 2
    assert "--players" in err


def test_cli_replay_prints_the_final_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Replaying a random game's record prints its final position, which is over."""
    record = run(capsys, "random-game", "--players", "2", "--seed", "9", "--stammtisch")[1]
    code, out, _ = run(capsys, "replay", write(tmp_path, record, "record.json"))
    assert code == 0
    final = load_position(out)
    assert game_over_reason(final) is not None
    assert final.options.stammtisch
    assert run(capsys, "replay", write(tmp_path, record, "record.json"))[1] == out


def test_cli_replay_refused_move_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record with a move the rules refuse is unusable: exit 2, naming the move."""
    record = {"players": ["ann", "bob"], "seed": 1, "moves": ["ZZz@FR1n"]}
    code, out, err = run(capsys, "replay", write(tmp_path, record, "record.json"))
    assert code == 2
    assert out == ""
    assert "ZZz@FR1n" in err


# --- as a process ------------------------------------------------------------------------------------------


def test_cli_python_m_engine_exit_statuses(tmp_path: Path) -> None:
    """``python -m engine`` runs the same command line and exits 0 when played, 1 when refused."""
    path = write(tmp_path, POSITION)
    played = subprocess.run(
        [sys.executable, "-m", "engine", "play", path, "FRf@FR1s"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert played.returncode == 0
    assert json.loads(played.stdout)["ok"] is True
    refused = subprocess.run(
        [sys.executable, "-m", "engine", "play", path, "FRm@FR1e"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 1
    assert json.loads(refused.stdout) == {
        "ok": False,
        "error": "gender",
        "message": json.loads(refused.stdout)["message"],
    }
    unusable = subprocess.run(
        [sys.executable, "-m", "engine", "moves", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert unusable.returncode == 2


def test_cli_output_nobody_reads_any_more_exits_141_without_a_word(tmp_path: Path) -> None:
    """The reader of the output gone (``cafe-engine moves x.json | head``): exit 141, as a process
    SIGPIPE ended, and no traceback."""
    path = write(tmp_path, POSITION)
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine", "moves", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # (long before the interpreter has started and written anything)
    assert proc.wait(timeout=60) == 141
    assert proc.stderr.read() == b""
    proc.stderr.close()


# --- the README's examples ----------------------------------------------------------------------------


def test_the_readmes_commands_run_as_it_says(tmp_path: Path) -> None:
    """Each line of the README's ``cafe-engine`` block (but ``verify``, whose file a server gives)
    runs in one folder, one after the other, and exits 0; the ``play`` line's move is legal in the
    ``new`` line's position and scores what its comment says."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = (
        readme.split("## The rules engine on the command line", 1)[1]
        .split("```sh\n", 1)[1]
        .split("```", 1)[0]
    )
    lines = [line.split("  #", 1) for line in block.splitlines()]
    commands = [
        (c.strip(), comment.strip()) for c, comment in lines if not c.startswith("cafe-engine verify")
    ]
    assert [c.split()[1] for c, _ in commands] == ["new", "moves", "play", "random-game", "replay"]
    engine = Path(sys.executable).with_name("cafe-engine")
    for command, comment in commands:
        done = subprocess.run(
            command.replace("cafe-engine", str(engine), 1),
            shell=True,
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (command, done.stdout[-300:], done.stderr[-300:])
        if " play " in command:
            result = json.loads(done.stdout)
            assert result["ok"] is True and f'"points": {result["points"]}' in comment, comment
