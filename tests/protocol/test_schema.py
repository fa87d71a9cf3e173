"""The published protocol: schema.json current, self-contained and true to the wire; PROTOCOL.md complete."""

from __future__ import annotations

import doctest
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import jsonpatch
import pytest
from hypothesis import given
from hypothesis import strategies as st

import protocol.schema
from protocol.commands import ALIASES, COMMANDS, parse_command
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import (
    ClientMessage,
    Error,
    Patch,
    ServerMessage,
    Snapshot,
    parse_client_message,
    parse_server_message,
)
from protocol.schema import SCHEMA_PATH, build_schema, main, render_schema, write_schema
from tests.protocol.test_messages import CLIENT_SAMPLES, SERVER_SAMPLES


def test_schema_json_is_up_to_date() -> None:
    """protocol/schema.json is what the models generate now."""
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), (
        "protocol/schema.json is out of date; regenerate it with: python -m protocol.schema"
    )


def test_rendering_is_stable_sorted_and_ends_with_a_newline() -> None:
    """Two renderings are equal, keys come sorted, and the file ends with one newline."""
    text = render_schema()
    assert text == render_schema()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_document_names_itself() -> None:
    """The document carries a title, the protocol version and the JSON Schema dialect."""
    schema = build_schema()
    assert schema["version"] == 1
    assert "Café International" in schema["title"]
    assert schema["$schema"].startswith("https://json-schema.org/")


def _types(union: Any) -> set[str]:
    return {cls.model_fields["type"].default for cls in get_args(get_args(union)[0])}


@pytest.mark.parametrize(
    ("side", "union"), [("client", ClientMessage), ("server", ServerMessage)], ids=["client", "server"]
)
def test_every_message_type_is_in_the_schema(side: str, union: Any) -> None:
    """Each direction lists every message type of its models, each told apart by a required type."""
    document = build_schema()
    part = document[side]
    assert set(part["discriminator"]["mapping"]) == _types(union)
    assert part["discriminator"]["propertyName"] == "type"
    assert len(part["oneOf"]) == len(_types(union))
    for ref in part["discriminator"]["mapping"].values():
        definition = _resolve(document, ref)
        assert "type" in definition["required"]


def test_server_messages_require_every_field() -> None:
    """The server writes every field, defaults included, so the schema promises them all; of the
    shapes of its plain JSON (a view, a patch's operations, a move's events) only the fields a
    recipient may lack are optional: the own hand, and ``auto`` of a move and ``value`` of an
    operation."""
    optional = {"ViewGame": {"hand"}, "ViewMove": {"auto"}, "PatchOp": {"value"}}
    for name, definition in build_schema()["server"]["$defs"].items():
        if "properties" in definition:  # (not the events' union)
            assert set(definition["required"]) == set(definition["properties"]) - optional.get(name, set()), (
                name
            )


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def test_every_ref_resolves_within_the_document() -> None:
    """Every $ref points into the one document (definitions nested under client and server)."""
    document = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    refs = set(_refs(document))
    assert refs
    for ref in refs:
        assert isinstance(_resolve(document, ref), dict), ref


def test_write_schema_reports_a_change_once(tmp_path: Path) -> None:
    """Writing the schema creates the file; writing it again changes nothing."""
    path = tmp_path / "schema.json"
    assert write_schema(path) is True
    assert write_schema(path) is False
    assert path.read_text(encoding="utf-8") == render_schema()


def test_command_line_writes_the_given_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """python -m protocol.schema PATH writes the schema there and says so."""
    path = tmp_path / "out.json"
    assert main([str(path)]) == 0
    assert json.loads(path.read_text(encoding="utf-8")) == build_schema()
    assert "written" in capsys.readouterr().out


def test_doctests() -> None:
    """The examples in the module's docstring hold."""
    assert doctest.testmod(protocol.schema).failed == 0


# --- validation with a JSON Schema implementation ---------------------------------------------------

# jsonschema (a development dependency) checks the schema as other languages' clients will use it;
# without it only these tests are skipped, the file check above still runs.


@pytest.fixture(scope="module")
def jsonschema() -> Any:
    return pytest.importorskip("jsonschema")


class _Validators(dict[str, Any]):
    """The validators by side, shown briefly: Hypothesis prints a test's arguments, and a
    validator's repr holds the whole schema (it warns past 30 kB, and warnings are errors here)."""

    def __repr__(self) -> str:
        return f"<validators: {', '.join(self)}>"


@pytest.fixture(scope="module")
def validators(jsonschema: Any) -> dict[str, Any]:
    """A validator of each side, resolving references within the whole document."""
    referencing = pytest.importorskip("referencing")
    resource = referencing.Resource.from_contents(build_schema())
    registry = referencing.Registry().with_resource("urn:cafe-protocol", resource)
    return _Validators(
        (side, jsonschema.Draft202012Validator({"$ref": f"urn:cafe-protocol#/{side}"}, registry=registry))
        for side in ("client", "server")
    )


def test_the_schema_is_valid_json_schema(jsonschema: Any) -> None:
    """The document itself passes the 2020-12 metaschema."""
    jsonschema.Draft202012Validator.check_schema(build_schema())


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: m.type)
def test_client_samples_validate(message: Any, validators: dict[str, Any]) -> None:
    """Every client message, as written to the wire, is valid under client."""
    validators["client"].validate(json.loads(message.model_dump_json()))


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_server_samples_validate(message: Any, validators: dict[str, Any]) -> None:
    """Every server message, as written to the wire, is valid under server."""
    validators["server"].validate(json.loads(message.model_dump_json()))


@pytest.mark.parametrize(
    "frame",
    [{"text": "hi"}, {"type": "dance"}, {"type": "ping", "extra": 1}, {"type": "say", "text": 5},
     {"type": "say", "text": ""}, {"type": "option", "key": "colour"},
     {"type": "add_bot", "strategy": "clever"}],
)  # fmt: skip
def test_schema_refuses_what_the_server_refuses(frame: dict[str, Any], validators: dict[str, Any]) -> None:
    """Frames the parser refuses (no type, unknown type, extra or bad field) are invalid under client."""
    with pytest.raises(ProtocolError):
        parse_client_message(json.dumps(frame))
    assert not validators["client"].is_valid(frame)


_VALUES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=30)
    | st.sampled_from(
        ["seed", "stammtisch", "clock", "random", "greedy", "strong", "person", "bot", "FRf@FR1s", "en", "de"]
    )
)


def _frames(document: dict[str, Any]) -> dict[str, st.SearchStrategy[dict[str, Any]]]:
    """For each client type, frames with any subset of its own fields, holding arbitrary values."""
    strategies = {}
    for type_, ref in document["client"]["discriminator"]["mapping"].items():
        fields = [f for f in _resolve(document, ref)["properties"] if f != "type"]
        strategies[type_] = st.fixed_dictionaries(
            {"type": st.just(type_)}, optional=dict.fromkeys(fields, _VALUES)
        )
    return strategies


_FRAMES = _frames(build_schema())


@pytest.mark.parametrize(
    ("frame", "valid"),
    [({"key": "seed", "value": False}, False), ({"key": "seed", "value": -1}, False),
     ({"key": "seed", "value": 7}, True), ({"key": "seed"}, True), ({"key": "stammtisch"}, False),
     ({"key": "stammtisch", "value": 1}, False), ({"key": "private", "value": True}, True),
     ({"key": "absent", "value": "drop"}, True), ({"key": "absent", "value": "none"}, False),
     ({"key": "clock", "value": 0}, True), ({"key": "clock", "value": 3601}, False),
     ({"key": "start", "value": 5}, False), ({"key": "start", "value": None}, True)],
)  # fmt: skip
def test_the_schema_says_each_options_value(
    frame: dict[str, Any], valid: bool, validators: dict[str, Any]
) -> None:
    """Each option's value has its own type and range in the schema, as the server checks it (a
    generic value would let through a seed of false, which the server refuses)."""
    message = {"type": "option", **frame}
    assert validators["client"].is_valid(message) is valid
    if valid:
        assert parse_client_message(json.dumps(message)).type == "option"
    else:
        with pytest.raises(ProtocolError):
            parse_client_message(json.dumps(message))


@given(frame=st.one_of([_FRAMES[t] for t in sorted(_FRAMES)]))
def test_a_frame_valid_under_the_schema_is_accepted(
    frame: dict[str, Any], validators: dict[str, Any]
) -> None:
    """A client in another language can trust the schema: a frame it validates, the server parses."""
    if validators["client"].is_valid(frame):
        assert parse_client_message(json.dumps(frame)).type == frame["type"]


# --- PROTOCOL.md ------------------------------------------------------------------------------------

PROTOCOL_MD = Path(protocol.schema.__file__).with_name("PROTOCOL.md").read_text(encoding="utf-8")


def _section(start: str, end: str) -> str:
    """The text of PROTOCOL.md from the heading ``start`` to the heading ``end``."""
    return PROTOCOL_MD[PROTOCOL_MD.index(start) : PROTOCOL_MD.index(end)]


def _row(section: str, key: str) -> str:
    """The table row of ``section`` whose first cell is ``key`` in backticks."""
    rows = [line for line in section.splitlines() if line.startswith(f"| `{key}` |")]
    assert len(rows) == 1, f"PROTOCOL.md has {len(rows)} rows for {key!r}"
    return rows[0]


@pytest.mark.parametrize(
    ("union", "start", "end", "common"),
    [
        (ClientMessage, "### Client to server", "### Server to client", {"type", "id"}),
        (ServerMessage, "### Server to client", "**The events of `played`**", {"type", "id", "seq"}),
    ],
    ids=["client", "server"],
)
def test_protocol_md_describes_every_message_and_field(
    union: Any, start: str, end: str, common: set[str]
) -> None:
    """The message catalogue has a row for every message type, naming each of its own fields."""
    section = _section(start, end)
    for cls in get_args(get_args(union)[0]):
        row = _row(section, cls.model_fields["type"].default)
        for field in set(cls.model_fields) - common:
            assert f"`{field}`" in row, f"{cls.__name__}.{field} is not described in PROTOCOL.md"


def test_protocol_md_lists_every_error_code() -> None:
    """Every error code a client can receive has its row in the error tables."""
    section = _section("## 5. Error codes", "## 6. An example session")
    for code in ERROR_CODES:
        _row(section, code)


def test_protocol_md_lists_every_chat_command_and_alias() -> None:
    """Every chat command's usage has its row, and every alias is named."""
    section = _section("## 4. Chat commands", "## 5. Error codes")
    for info in COMMANDS.values():
        _row(section, info.usage)
    for alias in ALIASES:
        assert f"alias `/{alias}`" in section


def _example_frames(section: str) -> list[tuple[str, str]]:
    """The example's frames: (direction, JSON text), with a frame's continuation lines joined."""
    frames: list[tuple[str, str]] = []
    for block in re.findall(r"```text\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith(("→ ", "← ")):
                frames.append((line[0], line[2:]))
            elif line.startswith(" ") and frames:
                frames[-1] = (frames[-1][0], frames[-1][1] + line.strip())
    return frames


EXAMPLE_FRAMES = _example_frames(_section("### ann's frames", "### bob's terminal"))


def test_example_frames_are_messages_in_order() -> None:
    """Every frame of the example parses (or is refused as its answer says); seq grows, and every
    answer names an id that was sent."""
    assert len(EXAMPLE_FRAMES) > 40
    sent: set[Any] = set()
    refused: list[ProtocolError] = []
    last_seq = 0
    for direction, text in EXAMPLE_FRAMES:
        if direction == "→":
            try:
                sent.add(parse_client_message(text).id)
            except ProtocolError as e:  # a refused frame: the error that answers it follows
                refused.append(e)
                sent.add(e.id)
            continue
        message = parse_server_message(text)
        if refused:
            error = refused.pop()
            assert isinstance(message, Error)
            assert (message.code, message.message, message.id) == (error.code, error.message, error.id)
        assert message.seq > last_seq, text
        last_seq = message.seq
        if getattr(message, "id", None) is not None:
            assert message.id in sent, text  # type: ignore[union-attr]
        assert json.loads(text) == json.loads(message.model_dump_json()), "a field is missing or extra"


def test_example_patches_lead_from_snapshot_to_snapshot() -> None:
    """Applying the example's patches in order to its first snapshot gives its next snapshot."""
    received = [parse_server_message(text) for direction, text in EXAMPLE_FRAMES if direction == "←"]
    snapshots = [i for i, m in enumerate(received) if isinstance(m, Snapshot)]
    assert len(snapshots) >= 2
    first, second = snapshots[:2]
    assert [m.seq for m in received[first : second + 1]] == list(
        range(received[first].seq, received[second].seq + 1)
    )
    view = received[first].view  # type: ignore[union-attr]
    for message in received[first + 1 : second]:
        if isinstance(message, Patch):
            view = jsonpatch.apply_patch(view, message.ops)
    assert view == received[second].view  # type: ignore[union-attr]


def test_example_terminal_matches_the_parser() -> None:
    """In bob's terminal every command typed parses, and a refused one shows the parser's error
    (folded within 80 columns, its later lines indented)."""
    lines = _section("### bob's terminal", "In the picture").splitlines()
    typed = [(i, line[2:]) for i, line in enumerate(lines) if line.startswith("> ")]
    assert len(typed) > 10
    for i, line in typed[1:]:  # the first line typed answers the name prompt
        try:
            parse_command(line)
        except ProtocolError as e:
            shown = [lines[i + 1]]
            for more in lines[i + 2 :]:
                if not more.startswith("    "):
                    break
                shown.append(more.strip())
            assert " ".join(shown) == f"! {e.message} [{e.code}]"
