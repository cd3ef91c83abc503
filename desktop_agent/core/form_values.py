"""Check one answer against its question and give it its type.

A front end sends what its inputs hold: the window's fields are text, so a
number arrives as ``"42"`` and the check makes it ``42``; the terminal and
``--elicit defaults`` send the question's own default. Whatever sent it, the
answer that comes out has the schema's type (an integer as ``int``, a
boolean as ``bool``), so a server gets numbers as numbers.

Each problem is a short phrase without the question ("must be at most
100"); :class:`desktop_agent.core.forms.FormAnswerError` puts the question's
text in front of it.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from urllib.parse import urlsplit

from desktop_agent.core.form_question import AnswerValue, FormQuestion
from desktop_agent.core.json_types import JSONReadable

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_TRUE = frozenset({"true", "yes", "y", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "off"})


class AnswerProblem(ValueError):
    """What is wrong with one answer, in a phrase."""


def is_empty(value: JSONReadable) -> bool:
    """Nothing was given (a boolean ``False`` is an answer)."""
    if value is None:
        return True
    if isinstance(value, str):
        return value == ""
    return isinstance(value, list | tuple) and len(value) == 0


def check_value(q: FormQuestion, value: JSONReadable) -> AnswerValue:
    """``value`` as the question's type; raises :class:`AnswerProblem`."""
    match q.type:
        case "multi_choice":
            return _choices(q, value)
        case "number" | "integer":
            return _number(q, value)
        case "boolean":
            return _boolean(value)
        case "choice":
            if not isinstance(value, str):
                raise AnswerProblem(f"expects text, got {type(value).__name__}")
            if value not in q.options:
                raise AnswerProblem(f"{value!r} is not one of its options")
            return value
        case "text":
            if not isinstance(value, str):
                raise AnswerProblem(f"expects text, got {type(value).__name__}")
            return _text(q, value)


def _choices(q: FormQuestion, value: JSONReadable) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise AnswerProblem("expects a list of options")
    picked = [str(v) for v in value]
    for v in picked:
        if v not in q.options:
            raise AnswerProblem(f"{v!r} is not one of its options")
    if q.minimum is not None and len(picked) < q.minimum:
        raise AnswerProblem(f"needs at least {q.minimum:g} choices")
    if q.maximum is not None and len(picked) > q.maximum:
        raise AnswerProblem(f"takes at most {q.maximum:g} choices")
    return picked


def _number(q: FormQuestion, value: JSONReadable) -> int | float:
    whole = q.type == "integer"
    kind = "a whole number" if whole else "a number"
    number: int | float
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise AnswerProblem(f"expects {kind}")
    if isinstance(value, str):
        try:
            number = int(value.strip()) if whole else float(value.strip())
        except ValueError:
            raise AnswerProblem(f"expects {kind}, not {value.strip()!r}") from None
    else:
        number = value
    if not math.isfinite(number):
        raise AnswerProblem(f"expects {kind}")
    if whole:
        if number != int(number):
            raise AnswerProblem(f"expects {kind}, not {number:g}")
        number = int(number)
    if q.minimum is not None and number < q.minimum:
        raise AnswerProblem(f"must be at least {q.minimum:g}")
    if q.maximum is not None and number > q.maximum:
        raise AnswerProblem(f"must be at most {q.maximum:g}")
    return number


def _boolean(value: JSONReadable) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise AnswerProblem("expects yes or no")


def _text(q: FormQuestion, value: str) -> str:
    if q.minimum is not None and len(value) < q.minimum:
        raise AnswerProblem(f"needs at least {q.minimum:g} characters")
    if q.maximum is not None and len(value) > q.maximum:
        raise AnswerProblem(f"takes at most {q.maximum:g} characters")
    if q.format is not None and not _fits(q.format, value.strip()):
        raise AnswerProblem(f"expects {_FORMAT_WORDS[q.format]}")
    return value


_FORMAT_WORDS = {
    "email": "an email address (name@example.com)",
    "uri": "a web address (https://…)",
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date and time (YYYY-MM-DDTHH:MM)",
}


def _fits(fmt: str, value: str) -> bool:
    if fmt == "email":
        return _EMAIL.fullmatch(value) is not None
    if fmt == "uri":
        parts = urlsplit(value)
        return bool(parts.scheme) and bool(parts.netloc or parts.path) and " " not in value
    try:
        if fmt == "date":
            date.fromisoformat(value)
        else:
            datetime.fromisoformat(value)
    except ValueError:
        return False
    return True
