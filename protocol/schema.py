"""The JSON Schema of every message, in both directions, generated from the message models.

``build_schema()`` returns one document: ``client`` describes what a client may send,
``server`` what the server sends; each is a ``oneOf`` over the message types, told apart by
``type``. ``python -m protocol.schema`` writes it to ``protocol/schema.json``, which is published
for clients in other languages; a test fails when that file is out of date.

>>> schema = build_schema()
>>> sorted(schema["client"]["discriminator"]["mapping"])[:3]
['add_bot', 'analyse', 'announce']
>>> schema["client"]["$defs"]["Say"]["required"]
['text', 'type']
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from protocol.messages import CLIENT_ADAPTER, PROTOCOL_VERSION, SERVER_ADAPTER

__all__ = ["SCHEMA_PATH", "build_schema", "render_schema", "write_schema"]

SCHEMA_PATH: Final = Path(__file__).with_name("schema.json")
_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def _require(defs: dict[str, Any], *, every_field: bool) -> None:
    """Mark fields required as the wire has them. pydantic leaves a field with a default optional,
    but a message's ``type`` is always needed to tell it apart, and the server writes every field
    of what it sends (defaults included)."""
    for definition in defs.values():
        properties = definition.get("properties", {})
        if every_field:
            names = set(properties)
        else:
            names = set(definition.get("required", ())) | (
                {"type"} if "const" in properties.get("type", {}) else set()
            )
        if names:
            definition["required"] = sorted(names)


# --- what the messages carry as plain JSON: the shapes the schema gives them ----------------------
# The server builds a room's view, a patch's operations and a move's events as plain JSON (they are
# diffed and sent on every move, where models would cost); these models give their shapes to the
# schema alone. A test validates every frame of real games against it.


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ViewSeat(_Shape):
    name: str
    kind: Literal["person", "bot"]
    connected: bool


class ViewOptions(_Shape):
    """The room's options as members see them: a seed chosen for the room reads ``"set"`` until
    the game ends."""

    seed: int | Literal["set"] | None
    stammtisch: bool
    clock: float | None
    absent: Literal["bot", "drop"]
    host: bool
    private: bool
    drawseat: bool
    start: int | None


class ViewPlayer(_Shape):
    name: str
    hand_size: int
    score: int
    hand_limit: int
    eliminated: bool


class ViewMove(_Shape):
    player: str
    move: str
    points: int
    auto: Literal["clock", "bot"] | None = Field(
        default=None, description="only in a move the server played for its player"
    )


class ViewRating(_Shape):
    before: int
    after: int
    provisional: bool


class ViewResult(_Shape):
    final_scores: dict[str, int]
    ranking: list[str]
    places: dict[str, int]
    penalties: dict[str, int]
    reason: str
    ratings: dict[str, ViewRating] | None


class ViewGame(_Shape):
    players: list[ViewPlayer]
    hand: list[str] | None = Field(
        default=None, description="only for a player of this game who is no spectator: their own cards"
    )
    to_move: str | None
    start_player: str
    chairs: dict[str, str] = Field(description="canonical chair name -> guest text")
    bar: list[str] = Field(description="from bar place 1")
    deck_size: int
    move_number: int
    last_move: ViewMove | None
    history: list[ViewMove]
    deadline: float | None
    over: str | None
    practice: bool = Field(description="dealt from a seed chosen for it: not rated (after its end too)")
    result: ViewResult | None


class View(_Shape):
    """The room as one recipient sees it (PROTOCOL.md section 2)."""

    room: str
    state: Literal["waiting", "playing", "over"]
    seats: list[ViewSeat]
    spectators: list[str]
    options: ViewOptions
    rated: bool
    you: str | None
    seat: int | None
    game: ViewGame | None


class PatchOp(_Shape):
    """One JSON Patch (RFC 6902) operation of a view's change; ``value`` for ``add`` and
    ``replace``."""

    op: Literal["add", "replace", "remove"]
    path: str
    value: Any = None


class _Event(_Shape):
    player: str


class SeatEvent(_Event):
    type: Literal["seat"]
    card: str
    chair: str
    points: int
    tables: dict[str, int]


class StammtischEvent(_Event):
    type: Literal["stammtisch"]
    table: str
    gender: Literal["m", "f"]
    points: int


class BarEvent(_Event):
    type: Literal["bar"]
    card: str
    place: int
    points: int


class EliminatedEvent(_Event):
    type: Literal["eliminated"]
    place: int
    cost: int
    score: int


class SwapEvent(_Event):
    type: Literal["swap"]
    card: str
    chair: str
    joker: str


class HandLimitEvent(_Event):
    type: Literal["hand_limit"]
    hand_limit: int


class DrawEvent(_Event):
    type: Literal["draw"]
    count: int


class LeftEvent(_Event):
    type: Literal["left"]


_EVENTS = TypeAdapter(
    Annotated[
        SeatEvent
        | StammtischEvent
        | BarEvent
        | EliminatedEvent
        | SwapEvent
        | HandLimitEvent
        | DrawEvent
        | LeftEvent,
        Field(discriminator="type"),
    ]
)
#: where a server message carries one of the shapes above: (its definition, the path to it)
_SHAPED: Final = (("Snapshot", ("properties", "view")), ("Patch", ("properties", "ops", "items")),
                  ("Played", ("properties", "events", "items")))  # fmt: skip


def _shaped(server: dict[str, Any]) -> None:
    """Give the view, a patch's operations and a move's events their shapes in ``server``."""
    defs = server["$defs"]
    for name, adapter in (("View", TypeAdapter(View)), ("PatchOp", TypeAdapter(PatchOp)), ("Event", _EVENTS)):
        schema = adapter.json_schema(mode="serialization", ref_template="#/server/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[name] = schema
    refs = {"Snapshot": "View", "Patch": "PatchOp", "Played": "Event"}
    for message, path in _SHAPED:
        place = defs[message]
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = {"$ref": f"#/server/$defs/{refs[message]}"}


def build_schema() -> dict[str, Any]:
    """The JSON Schema document of the protocol: ``client`` and ``server`` message unions, their
    definitions nested under each, so that every ``$ref`` resolves within the one document."""
    client = CLIENT_ADAPTER.json_schema(mode="validation", ref_template="#/client/$defs/{model}")
    server = SERVER_ADAPTER.json_schema(mode="serialization", ref_template="#/server/$defs/{model}")
    _require(client["$defs"], every_field=False)
    _require(server["$defs"], every_field=True)
    _shaped(server)  # (after: a shape's optional fields stay optional)
    client["title"] = "ClientMessage"
    client["description"] = "A message from a client to the server: one JSON object per frame."
    server["title"] = "ServerMessage"
    server["description"] = "A message from the server to one client: one JSON object per frame."
    return {
        "$schema": _DIALECT,
        "title": "Café International wire protocol",
        "description": (
            "Every message of the Café International server, in both directions, as JSON objects "
            "told apart by their 'type'. Validate a frame against '#/client' or '#/server'. "
            "See PROTOCOL.md."
        ),
        "version": PROTOCOL_VERSION,
        "client": client,
        "server": server,
    }


def render_schema() -> str:
    """The text of ``schema.json``: sorted keys, indented by 2, ending with a newline."""
    return json.dumps(build_schema(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_schema(path: Path = SCHEMA_PATH) -> bool:
    """Write the schema to ``path``; return whether the file changed."""
    text = render_schema()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    """``python -m protocol.schema [PATH]``: regenerate the published schema."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else SCHEMA_PATH
    changed = write_schema(path)
    print(f"{path}: {'written' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
