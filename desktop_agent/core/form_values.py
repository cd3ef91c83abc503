"""Check one answer against its question and give it its type.

A front end sends what its inputs hold: the window's fields are text, so a
number arrives as ``"42"`` and the check makes it ``42``; the terminal and
``--elicit defaults`` send the question's own default. Whatever sent it, the
answer that comes out has the schema's type (an integer as ``int``, a
boolean as ``bool``), so a server gets numbers as numbers.

Each problem is a short phrase without the question ("must be at most
100"); :class:`desktop_agent.core.forms.FormAnswerError` puts the question's
text in front of it. Each has a key in :data:`PROBLEMS`, so a front end can
say it in the user's language (the window's ``form_problem_*`` texts; the
English there is this table's).
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


PROBLEMS: dict[str, str] = {
    "expects_text": "expects text, got {got}",
    "not_an_option": "{value} is not one of its options",
    "expects_options": "expects a list of options",
    "min_choices": "needs at least {n} choices",
    "min_choices_one": "needs at least {n} choice",
    "max_choices": "takes at most {n} choices",
    "max_choices_one": "takes at most {n} choice",
    "expects_number": "expects a number",
    "expects_whole": "expects a whole number",
    "not_a_number": "expects a number, not {value}",
    "not_whole": "expects a whole number, not {value}",
    "at_least": "must be at least {n}",
    "at_most": "must be at most {n}",
    "expects_yes_no": "expects yes or no",
    "min_chars": "needs at least {n} characters",
    "min_chars_one": "needs at least {n} character",
    "max_chars": "takes at most {n} characters",
    "max_chars_one": "takes at most {n} character",
    "format_email": "expects an email address (name@example.com)",
    "format_uri": "expects a web address (https://…)",
    "format_date": "expects a date (YYYY-MM-DD)",
    "format_date_time": "expects a date and time (YYYY-MM-DDTHH:MM)",
}
"""Every problem's English phrase by key; ``{…}`` are its parameters."""


class AnswerProblem(ValueError):
    """What is wrong with one answer, in a phrase (``key`` into :data:`PROBLEMS`)."""

    def __init__(self, key: str, **params: str) -> None:
        self.key = key
        self.params = params
        one = f"{key}_one"  # "needs at least 1 choice"
        super().__init__(PROBLEMS[one if params.get("n") == "1" and one in PROBLEMS else key].format(**params))


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
                raise AnswerProblem("expects_text", got=type(value).__name__)
            if value not in q.options:
                raise AnswerProblem("not_an_option", value=repr(value))
            return value
        case "text":
            if not isinstance(value, str):
                raise AnswerProblem("expects_text", got=type(value).__name__)
            return _text(q, value)


def _choices(q: FormQuestion, value: JSONReadable) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise AnswerProblem("expects_options")
    picked = [str(v) for v in value]
    for v in picked:
        if v not in q.options:
            raise AnswerProblem("not_an_option", value=repr(v))
    if q.minimum is not None and len(picked) < q.minimum:
        raise AnswerProblem("min_choices", n=f"{q.minimum:g}")
    if q.maximum is not None and len(picked) > q.maximum:
        raise AnswerProblem("max_choices", n=f"{q.maximum:g}")
    return picked


def _number(q: FormQuestion, value: JSONReadable) -> int | float:
    whole = q.type == "integer"
    kind, not_kind = ("expects_whole", "not_whole") if whole else ("expects_number", "not_a_number")
    number: int | float
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise AnswerProblem(kind)
    if isinstance(value, str):
        try:
            number = int(value.strip()) if whole else float(value.strip())
        except ValueError:
            raise AnswerProblem(not_kind, value=repr(value.strip())) from None
    else:
        number = value
    if not math.isfinite(number):
        raise AnswerProblem(kind)
    if whole:
        if number != int(number):
            raise AnswerProblem(not_kind, value=f"{number:g}")
        number = int(number)
    if q.minimum is not None and number < q.minimum:
        raise AnswerProblem("at_least", n=f"{q.minimum:g}")
    if q.maximum is not None and number > q.maximum:
        raise AnswerProblem("at_most", n=f"{q.maximum:g}")
    return number


def _boolean(value: JSONReadable) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise AnswerProblem("expects_yes_no")


def _text(q: FormQuestion, value: str) -> str:
    if q.minimum is not None and len(value) < q.minimum:
        raise AnswerProblem("min_chars", n=f"{q.minimum:g}")
    if q.maximum is not None and len(value) > q.maximum:
        raise AnswerProblem("max_chars", n=f"{q.maximum:g}")
    if q.format is not None and not _fits(q.format, value.strip()):
        raise AnswerProblem("format_" + q.format.replace("-", "_"))
    return value


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
