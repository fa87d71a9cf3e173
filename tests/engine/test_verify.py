"""cafe-engine verify: a published record's seed matches its hash and its moves its result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import random_game, replay
from engine.cli import main
from engine.game import seed_hash, verify


def _published(seed: int = 12) -> dict[str, Any]:
    record = random_game(["ann", "bob", "cem"], seed)
    final = replay(record).outcome
    assert final is not None
    return {
        **record.to_dict(),
        "seed_hash": seed_hash(seed),
        "result": final.to_dict(),
        "room": "r",
        "id": "x",
    }


def test_seed_hash_is_sha256_of_the_decimal_seed() -> None:
    """The fingerprint is sha256 of the seed written in decimal."""
    assert seed_hash(0) == "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"


def test_an_honest_record_verifies() -> None:
    """Seed, moves and result of a real game all check out."""
    report = verify(_published())
    assert report["ok"] is True
    assert [c["check"] for c in report["checks"]] == ["seed_hash", "moves", "result"]


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        (lambda d: d.update(seed=d["seed"] + 1), "seed_hash"),
        (lambda d: d.update(seed_hash="0" * 64), "seed_hash"),
        (lambda d: d.pop("seed_hash"), "seed_hash"),
        (lambda d: d["result"]["final_scores"].update(ann=999), "result"),
        (lambda d: d["result"].update(reason="bar" if d["result"]["reason"] != "bar" else "deck"), "result"),
        (lambda d: d["result"]["penalties"].update(ann=d["result"]["penalties"]["ann"] + 5), "result"),
        (lambda d: d["result"]["places"].update(ann=d["result"]["places"]["ann"] % 3 + 1), "result"),
        (lambda d: d["result"].__setitem__("ranking", d["result"]["ranking"][::-1]), "result"),
        (lambda d: d["moves"].__setitem__(0, "FRf@bar"), "moves"),
    ],
)
def test_a_tampered_record_fails_the_check_it_breaks(change: Any, failing: str) -> None:
    """Changing the seed, the hash, a move or any part of the result (its reason, a score, a
    penalty, a place, the ranking) fails exactly the matching check."""
    data = _published()
    change(data)
    report = verify(data)
    assert report["ok"] is False
    assert next(c["check"] for c in report["checks"] if not c["ok"]) == failing


def test_verify_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """verify prints its report and exits 0 when it holds, 1 when not, 2 for an unreadable file."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_published()))
    assert main(["verify", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    bad_data = _published()
    bad_data["seed"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_data))
    assert main(["verify", str(bad)]) == 1
    assert json.loads(capsys.readouterr().out)["ok"] is False
    (tmp_path / "junk.json").write_text("{")
    assert main(["verify", str(tmp_path / "junk.json")]) == 2
    # a record that is no game (one player): unreadable as a game, as replay finds it
    alone = _published()
    alone["players"] = alone["players"][:1]
    (tmp_path / "alone.json").write_text(json.dumps(alone))
    assert main(["verify", str(tmp_path / "alone.json")]) == 2
    assert main(["replay", str(tmp_path / "alone.json")]) == 2
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["verify", str(tmp_path / "deep.json")]) == 2


def test_a_seed_swapped_with_its_own_hash_fails_against_the_fingerprint_seen_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game dealt from another seed than the one whose fingerprint was published at its start
    has a record that agrees with itself (its seed, its own hash, its moves): only the
    fingerprint the player got with ``game_started`` (``--seed-hash``) catches it."""
    seen = seed_hash(12)
    swapped = _published(13)
    assert verify(swapped)["ok"] is True  # (the server's word alone)
    report = verify(swapped, seen)
    assert report["ok"] is False and report["checks"][0]["check"] == "seed_hash"
    assert f"not {seen} (the one seen at the start)" in report["checks"][0]["detail"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_published()))
    assert main(["verify", str(path), "--seed-hash", seen.upper()]) == 0
    assert "the one seen at the start" in json.loads(capsys.readouterr().out)["checks"][0]["detail"]
    path.write_text(json.dumps(swapped))
    assert main(["verify", str(path), "--seed-hash", seen]) == 1
