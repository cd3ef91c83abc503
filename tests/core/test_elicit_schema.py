from __future__ import annotations

import pytest

from desktop_agent.core.elicit_schema import NoDefault, SchemaError, default_answers, questions_from_schema
from desktop_agent.core.form_question import FormQuestion
from desktop_agent.core.forms import FormAnswerError, validate_answers
from desktop_agent.core.json_types import JSONObject

SCHEMA: JSONObject = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "Full name", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "born": {"type": "string", "format": "date", "title": "Birthday"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
        "score": {"type": "number", "maximum": 10, "default": 2.5},
        "ok": {"type": "boolean", "title": "Agree", "default": False},
        "pet": {"type": "string", "enum": ["cat", "dog"], "enumNames": ["Cats", "Dogs"], "default": "dog"},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}]},
        "tools": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2, "default": ["a"]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}},
    },
    "required": ["name", "age"],
}


def test_each_schema_property_becomes_a_question_of_its_type_in_order() -> None:
    questions = questions_from_schema(SCHEMA)

    assert questions == (
        FormQuestion("name", "Your name", "text", required=True, description="Full name", minimum=2),
        FormQuestion("email", "email", "text", required=False, format="email"),
        FormQuestion("born", "Birthday", "text", required=False, format="date"),
        FormQuestion("age", "Age", "integer", required=True, default=30, minimum=0, maximum=150),
        FormQuestion("score", "score", "number", required=False, default=2.5, maximum=10),
        FormQuestion("ok", "Agree", "boolean", required=False, default=False),
        FormQuestion("pet", "pet", "choice", ("cat", "dog"), False, ("Cats", "Dogs"), default="dog"),
        FormQuestion("hero", "hero", "choice", ("h1", "h2"), False, ("Superman", "Batman")),
        FormQuestion("tools", "tools", "multi_choice", ("a", "b", "c"), False, default=["a"], minimum=1, maximum=2),
        FormQuestion("fish", "fish", "multi_choice", ("f1",), False, ("Tuna",)),
    )
    assert questions[7].label_of("h2") == "Batman"


def test_answers_come_back_typed_as_the_schema_says() -> None:
    questions = questions_from_schema(SCHEMA)

    answers = validate_answers(
        questions,
        {"name": "Ann", "email": "ann@example.com", "born": "1990-02-03", "age": "41", "score": "7.5",
         "ok": True, "pet": "cat", "hero": "h2", "tools": ["b", "c"]},
    )

    assert answers == {"name": "Ann", "email": "ann@example.com", "born": "1990-02-03", "age": 41, "score": 7.5,
                       "ok": True, "pet": "cat", "hero": "h2", "tools": ["b", "c"]}
    assert isinstance(answers["age"], int) and isinstance(answers["score"], float)


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"age": 3}, "“Your name” needs an answer"),
        ({"name": "A", "age": 3}, "“Your name” needs at least 2 characters"),
        ({"name": "Ann", "age": "old"}, "“Age” expects a whole number, not 'old'"),
        ({"name": "Ann", "age": 200}, "“Age” must be at most 150"),
        ({"name": "Ann", "age": 2.5}, "“Age” expects a whole number, not 2.5"),
        ({"name": "Ann", "age": 1, "score": "11"}, "“score” must be at most 10"),
        ({"name": "Ann", "age": 1, "email": "ann"}, "“email” expects an email address (name@example.com)"),
        ({"name": "Ann", "age": 1, "born": "03/02/1990"}, "“Birthday” expects a date (YYYY-MM-DD)"),
        ({"name": "Ann", "age": 1, "ok": "maybe"}, "“Agree” expects yes or no"),
        ({"name": "Ann", "age": 1, "tools": ["a", "b", "c"]}, "“tools” takes at most 2 choices"),
        ({"name": "Ann", "age": 1, "hero": "Batman"}, "“hero” 'Batman' is not one of its options"),
    ],
)
def test_a_wrong_answer_is_one_line_naming_the_field_by_its_title(answers: JSONObject, message: str) -> None:
    with pytest.raises(FormAnswerError) as caught:
        validate_answers(questions_from_schema(SCHEMA), answers)
    assert str(caught.value) == message


def test_defaults_answer_every_question_that_has_one() -> None:
    schema: JSONObject = {**SCHEMA, "required": ["age"]}
    assert default_answers(questions_from_schema(schema)) == {
        "age": 30, "score": 2.5, "ok": False, "pet": "dog", "tools": ["a"],
    }


def test_a_required_question_without_a_default_has_no_default_answers() -> None:
    with pytest.raises(NoDefault) as caught:
        default_answers(questions_from_schema(SCHEMA))
    assert str(caught.value) == "“Your name” (name) is required and has no default"


def test_a_default_that_is_no_valid_answer_is_dropped() -> None:
    schema: JSONObject = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5, "default": 9}}}
    assert questions_from_schema(schema)[0].default is None


def test_an_empty_schema_asks_no_questions() -> None:
    assert questions_from_schema({"type": "object", "properties": {}}) == ()


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ([1, 2], "the schema is not a JSON object"),
        ({"type": "array"}, "the schema's type is 'array', not 'object'"),
        ({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}},
         "field 'a' is a nested object, which a form cannot ask"),
        ({"type": "object", "properties": {"a": {"type": "file"}}}, "field 'a' has type 'file', which a form cannot ask"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}, "field 'a' offers a choice without options"),
        ({"type": "object", "properties": {"a": {"type": "array"}}}, "field 'a' is a list without 'items' options"),
        ({"type": "object", "properties": {"a": 3}}, "field 'a' is not described by a JSON object"),
    ],
)
def test_a_schema_no_form_can_show_is_refused_in_one_line(schema: JSONObject, problem: str) -> None:
    with pytest.raises(SchemaError) as caught:
        questions_from_schema(schema)
    assert str(caught.value) == problem


def test_a_question_reads_back_from_its_json_form() -> None:
    for q in questions_from_schema(SCHEMA):
        assert FormQuestion.from_json(q.to_json()) == q


def test_a_plain_question_keeps_its_json_form_unchanged() -> None:
    assert FormQuestion("q1", "Name?").to_json() == {
        "id": "q1", "question": "Name?", "type": "text", "options": [], "required": True,
    }


def test_a_limit_of_one_reads_right() -> None:
    one: JSONObject = {"type": "object", "properties": {"pets": {"type": "array", "items": {"enum": ["cat", "dog"]}, "maxItems": 1},
                                            "code": {"type": "string", "minLength": 1}}}
    with pytest.raises(FormAnswerError) as caught:
        validate_answers(questions_from_schema(one), {"pets": ["cat", "dog"], "code": "x"})
    assert str(caught.value) == "“pets” takes at most 1 choice"
