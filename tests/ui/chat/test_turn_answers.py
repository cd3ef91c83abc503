"""Why a form's answer does not fit, in the user's language: every problem
core can find has its text in both languages, the English being core's own."""

from __future__ import annotations

import re

import pytest

from desktop_agent.core.elicit_schema import questions_from_schema
from desktop_agent.core.form_values import PROBLEMS
from desktop_agent.core.forms import FormAnswerError, validate_answers
from desktop_agent.core.json_types import JSONObject
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.turn_answers import form_error_text

SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"n": {"type": "integer", "title": "How many", "maximum": 5}, "d": {"type": "string", "format": "date-time"}},
}


def _error(answers: JSONObject) -> FormAnswerError:
    with pytest.raises(FormAnswerError) as caught:
        validate_answers(questions_from_schema(SCHEMA), answers)
    return caught.value


def test_every_problem_has_its_words_in_both_languages_the_english_being_cores() -> None:
    for key, english in PROBLEMS.items():
        assert ENGLISH.tr(f"form_problem_{key}") == english
        chinese = CHINESE.tr(f"form_problem_{key}")
        assert chinese != english
        assert set(re.findall(r"\{(\w+)\}", chinese)) == set(re.findall(r"\{(\w+)\}", english))


def test_a_wrong_answer_is_said_in_the_windows_language() -> None:
    big = _error({"n": "9"})
    assert form_error_text(ENGLISH, big) == "“How many”: must be at most 5" == f"“How many”: {big.problem}"
    assert form_error_text(CHINESE, big) == "“How many”：不能大于 5"
    word = _error({"n": "many"})
    assert form_error_text(CHINESE, word) == "“How many”：需要一个整数，而不是 'many'"
    when = _error({"d": "soon"})
    assert form_error_text(CHINESE, when) == "“d”：需要日期和时间（YYYY-MM-DDTHH:MM）"
