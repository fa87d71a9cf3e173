"""What pydantic finds wrong with a field, in words for people: for each kind of finding that
``field_problem`` words itself, a real one from pydantic, and the words it gets, in English as the
module's docstring says and in German."""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

import protocol.validation
from protocol.i18n import lang
from protocol.validation import field_problem
from tests.examples import run_examples


class _Way(enum.Enum):
    BOT = "bot"
    DROP = "drop"


class _Inner(BaseModel):
    a: int = 0


class _Attributes(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    a: int = 0


class _Fields(BaseModel):
    """A field for each finding, each valid by default."""

    model_config = ConfigDict(extra="forbid")
    required: int
    text: str = ""
    long: str = Field("", max_length=3)
    short: str = Field("ab", min_length=2)
    whole: int = 0
    number: float = 0
    switch: bool = False
    word: Literal["bot", "drop"] = "bot"
    letter: Literal["a", "b", "c"] = "a"
    way: _Way = _Way.BOT
    ge: int = Field(1, ge=1)
    le: int = Field(1, le=1)
    gt: int = Field(2, gt=1)
    lt: int = Field(0, lt=1)
    items: list[int] = []
    few: list[int] = Field([], max_length=1)
    some: list[int] = Field([1], min_length=1)
    table: dict[str, int] = {}
    inner: _Inner = _Inner()
    attributes: _Attributes | None = None
    pattern: str = Field("a", pattern=r"^a+$")


#: each finding: the field and the value that makes pydantic find it, then the English words
#: ``field_problem`` gives, and whether they are pydantic's own (else pydantic's are given)
FINDINGS: dict[str, tuple[str, Any, str, str | None]] = {
    "missing": ("required", None, "Field required", None),
    "extra_forbidden": ("extra", 1, "Extra inputs are not permitted", None),
    "string_type": ("text", 1, "Input should be a valid string", None),
    "string_too_long": ("long", "abcd", "String should have at most 3 characters", None),
    "string_too_short": ("short", "a", "String should have at least 2 characters", None),
    "int_type": ("whole", [], "Input should be a valid integer", None),
    "int_parsing": (
        "whole",
        "x",
        "Input should be a valid integer",
        "Input should be a valid integer, unable to parse string as an integer",
    ),
    "int_from_float": (
        "whole",
        1.5,
        "Input should be a valid integer, got a number with a fractional part",
        None,
    ),
    "float_type": ("number", [], "Input should be a valid number", None),
    "float_parsing": (
        "number",
        "x",
        "Input should be a valid number",
        "Input should be a valid number, unable to parse string as a number",
    ),
    "bool_type": ("switch", [], "Input should be a valid boolean", None),
    "bool_parsing": (
        "switch",
        "maybe",
        "Input should be a valid boolean",
        "Input should be a valid boolean, unable to interpret input",
    ),
    "literal_error": (
        "word",
        "x",
        "Input should be one of: 'bot', 'drop'",
        "Input should be 'bot' or 'drop'",
    ),
    "enum": ("way", "x", "Input should be one of: 'bot', 'drop'", "Input should be 'bot' or 'drop'"),
    "greater_than_equal": ("ge", 0, "Input should be greater than or equal to 1", None),
    "less_than_equal": ("le", 2, "Input should be less than or equal to 1", None),
    "greater_than": ("gt", 1, "Input should be greater than 1", None),
    "less_than": ("lt", 1, "Input should be less than 1", None),
    "list_type": ("items", 1, "Input should be a valid list", None),
    "too_long": (
        "few",
        [1, 2],
        "Input should have at most 1 item",
        "List should have at most 1 item after validation, not 2",
    ),
    "too_short": (
        "some",
        [],
        "Input should have at least 1 item",
        "List should have at least 1 item after validation, not 0",
    ),
    "dict_type": ("table", 1, "Input should be a JSON object", "Input should be a valid dictionary"),
    "model_type": (
        "inner",
        1,
        "Input should be a JSON object",
        "Input should be a valid dictionary or instance of _Inner",
    ),
    "model_attributes_type": (
        "attributes",
        1,
        "Input should be a JSON object",
        "Input should be a valid dictionary or object to extract fields from",
    ),
    "string_pattern_mismatch": ("pattern", "b", "String should match pattern '^a+$'", None),
}


def _found(field: str, value: Any) -> ErrorDetails:
    """What pydantic finds when ``field`` is ``value`` (left out when ``None``), the rest valid."""
    data: dict[str, Any] = {"required": 1}
    if value is None:
        del data[field]
    else:
        data[field] = value
    with pytest.raises(ValidationError) as raised:
        _Fields.model_validate(data)
    (error,) = raised.value.errors()
    return error


def test_the_findings_tested_are_those_the_module_words() -> None:
    """Every kind of finding ``field_problem`` words itself has a case here, and no other."""
    source = Path(protocol.validation.__file__).with_suffix(".py").read_text(encoding="utf-8")
    worded = set(re.findall(r'"(\w+)"', " ".join(re.findall(r"^\s+case (.+):$", source, re.MULTILINE))))
    assert worded == set(FINDINGS)


@pytest.mark.parametrize("kind", list(FINDINGS))
def test_each_finding_reads_as_the_docstring_says(kind: str) -> None:
    """A real finding of pydantic's of each kind: ``field_problem`` gives pydantic's English words,
    or the ones the module's docstring says it gives instead; German gives other words."""
    field, value, english, pydantics = FINDINGS[kind]
    error = _found(field, value)
    assert error["type"] == kind
    assert error["msg"] == (pydantics or english)
    problem = field_problem(error)
    assert str(problem) == english
    assert lang("en")(problem) == english
    german = lang("de")(problem)
    assert german and german != english


def test_a_finding_not_worded_here_reads_as_pydantic_says_it() -> None:
    """A kind of finding ``field_problem`` does not know reads in English as pydantic's message,
    and in German names its kind."""

    class Link(BaseModel):
        at: float = Field(allow_inf_nan=False)

    with pytest.raises(ValidationError) as raised:
        Link.model_validate({"at": float("nan")})
    (error,) = raised.value.errors()
    assert error["type"] == "finite_number"
    problem = field_problem(error)
    assert lang("en")(problem) == error["msg"] == "Input should be a finite number"
    assert "finite_number" in lang("de")(problem)


def test_the_module_s_examples_hold() -> None:
    """The examples in ``protocol.validation``'s docstring run as written."""
    found = run_examples(protocol.validation)
    assert found.attempted > 0 and found.failed == 0
