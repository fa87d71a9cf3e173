"""The published JSON Schema: up to date with the models, self-contained, true to what the wire accepts."""

from __future__ import annotations

import doctest
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

import protocol.schema
from protocol.errors import ProtocolError
from protocol.messages import ClientMessage, ServerMessage, parse_client_message
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
    """The server writes every field, defaults included, so the schema promises them all."""
    for name, definition in build_schema()["server"]["$defs"].items():
        assert set(definition["required"]) == set(definition["properties"]), name


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


@pytest.fixture(scope="module")
def validators(jsonschema: Any) -> dict[str, Any]:
    """A validator of each side, resolving references within the whole document."""
    referencing = pytest.importorskip("referencing")
    resource = referencing.Resource.from_contents(build_schema())
    registry = referencing.Registry().with_resource("urn:cafe-protocol", resource)
    return {
        side: jsonschema.Draft202012Validator({"$ref": f"urn:cafe-protocol#/{side}"}, registry=registry)
        for side in ("client", "server")
    }


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
        ["seed", "stammtisch", "clock", "random", "greedy", "strong", "person", "bot", "FRf@FR1s"]
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


@given(frame=st.one_of([_FRAMES[t] for t in sorted(_FRAMES)]))
def test_a_frame_valid_under_the_schema_is_accepted(
    frame: dict[str, Any], validators: dict[str, Any]
) -> None:
    """A client in another language can trust the schema: a frame it validates, the server parses."""
    if validators["client"].is_valid(frame):
        assert parse_client_message(json.dumps(frame)).type == frame["type"]
