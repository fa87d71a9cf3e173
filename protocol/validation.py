"""What a message model refuses, in words for people: a validator's own refusal with its error
code, and pydantic's findings about one field, in the reader's language.

A validator refuses with ``refused(code, text)``; whoever turns the ``ValidationError`` into an
error for the client takes the sentence back with ``refusal_text``, still a text to translate.
What pydantic itself finds wrong with a field (``field_problem``) reads in English in pydantic's
words, but where those speak of Python or of how pydantic parsed: the values a field takes are a
list (``Input should be one of: 'bot', 'drop'``, where pydantic says ``Input should be 'bot' or
'drop'``), a dictionary or a model is a JSON object (``Input should be a JSON object``), a list's
length is the input's without pydantic's count after validation (``Input should have at most 1
item``), and a value pydantic could not parse is only the type it should be (``Input should be a
valid integer``). Any other language reads a translation of these; a finding not worded here
reads as pydantic says it in English, and as its kind in other languages.

>>> from protocol.i18n import lang
>>> problem = field_problem({"type": "string_too_long", "loc": ("text",), "msg": "", "input": "",
...                          "ctx": {"max_length": 500}})
>>> problem, lang("de")(problem)
('String should have at most 500 characters', 'höchstens 500 Zeichen')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import ErrorDetails, PydanticCustomError

from protocol.i18n import Msg, _, _n, lazy
from protocol.limits import TOURNAMENT_AHEAD_MINUTES

__all__ = ["field_problem", "refusal_text", "refused"]


def refused(code: str, text: Msg) -> PydanticCustomError:
    """A validator's refusal: the error ``code`` and its sentence, kept as a text to translate."""
    return PydanticCustomError(code, "{text}", {"text": text})


def refusal_text(error: ErrorDetails) -> str:
    """The sentence of a validator's own refusal (``refused``), or pydantic's message."""
    text = error.get("ctx", {}).get("text")
    return text if isinstance(text, Msg) else error["msg"]


def _number(ctx: Mapping[str, Any], key: str) -> int:
    value = ctx.get(key, 0)
    return value if isinstance(value, int) else 0


def field_problem(error: ErrorDetails) -> Msg:
    """What pydantic found wrong with one field, in English as the module's docstring says (mostly
    pydantic's own words), translated for others."""
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    match error["type"]:
        case "missing":
            return _("Field required")
        case "extra_forbidden":
            return _("Extra inputs are not permitted")
        case "string_type":
            return _("Input should be a valid string")
        case "string_too_long":
            n = _number(ctx, "max_length")
            return _n(
                "String should have at most {n} character", "String should have at most {n} characters", n
            )
        case "string_too_short":
            n = _number(ctx, "min_length")
            return _n(
                "String should have at least {n} character", "String should have at least {n} characters", n
            )
        case "int_type" | "int_parsing":
            return _("Input should be a valid integer")
        case "int_from_float":
            return _("Input should be a valid integer, got a number with a fractional part")
        case "float_type" | "float_parsing":
            return _("Input should be a valid number")
        case "bool_type" | "bool_parsing":
            return _("Input should be a valid boolean")
        case "literal_error" | "enum":
            # pydantic lists the values with a last "or"; here they are a list of values
            expected = str(ctx.get("expected", "")).replace(" or ", ", ")
            return _("Input should be one of: {expected}", expected=expected)
        case "greater_than_equal":
            return _("Input should be greater than or equal to {ge}", ge=ctx.get("ge"))
        case "less_than_equal":
            return _("Input should be less than or equal to {le}", le=ctx.get("le"))
        case "greater_than":
            return _("Input should be greater than {gt}", gt=ctx.get("gt"))
        case "less_than":
            return _("Input should be less than {lt}", lt=ctx.get("lt"))
        case "list_type":
            return _("Input should be a valid list")
        case "too_long":
            n = _number(ctx, "max_length")
            return _n("Input should have at most {n} item", "Input should have at most {n} items", n)
        case "too_short":
            n = _number(ctx, "min_length")
            return _n("Input should have at least {n} item", "Input should have at least {n} items", n)
        case "dict_type" | "model_type" | "model_attributes_type":
            return _("Input should be a JSON object")
        case "string_pattern_mismatch":
            if tuple(error["loc"])[-1:] == ("start",):  # a tournament's start: in words, not a pattern
                return _(
                    "the start is +MINUTESm (from now, at most +{most}m) or HH:MM (UTC)",
                    most=TOURNAMENT_AHEAD_MINUTES,
                )
            if tuple(error["loc"])[-1:] == ("game",):  # a game's id: in words, not a pattern
                return _("a game's id is letters A to Z, digits, _ and -")
            return _("String should match pattern {pattern}", pattern=repr(ctx.get("pattern", "")))
    english, kind = error["msg"], error["type"]
    return lazy(lambda say: english if say.english else say(_("not a value taken here ({kind})", kind=kind)))
