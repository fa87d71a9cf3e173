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
from typing import Any, Final

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


def build_schema() -> dict[str, Any]:
    """The JSON Schema document of the protocol: ``client`` and ``server`` message unions, their
    definitions nested under each, so that every ``$ref`` resolves within the one document."""
    client = CLIENT_ADAPTER.json_schema(mode="validation", ref_template="#/client/$defs/{model}")
    server = SERVER_ADAPTER.json_schema(mode="serialization", ref_template="#/server/$defs/{model}")
    _require(client["$defs"], every_field=False)
    _require(server["$defs"], every_field=True)
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
