from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from desktop_agent.core.forms import FormAnswer, FormManager, FormQuestion, PendingForm
from desktop_agent.core.messages import fields_json
from desktop_agent.core.ports import ToolResult
from desktop_agent.tools.ask_user_question import AskUserQuestionTool

if TYPE_CHECKING:
    from tests.tools.conftest import WatchedContext

ARGS: dict[str, Any] = {
    "title": "Trip",
    "questions": [
        {"id": "city", "question": "Where to?", "options": ["北京", "Paris"]},
        {"id": "note", "question": "Anything else?", "required": False},
        {"id": "with", "question": "Who comes?", "type": "multi_choice", "options": ["Ann", "Bob"]},
    ],
}
QUESTIONS = (
    FormQuestion("city", "Where to?", "choice", ("北京", "Paris")),
    FormQuestion("note", "Anything else?", "text", (), required=False),
    FormQuestion("with", "Who comes?", "multi_choice", ("Ann", "Bob")),
)


class SignallingForms(FormManager):
    """FormManager that tells the test when a wait began."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def wait(self, form_id: str, timeout: float | None = None) -> FormAnswer:
        self.waiting.set()
        return await super().wait(form_id, timeout)



def post(tool: AskUserQuestionTool, call_id: str, arguments: Any) -> dict[str, Any] | None:
    """``on_post_executing`` as the message's JSON form (with its type)."""
    message = tool.on_post_executing(call_id, arguments)
    return None if message is None else {"type": message.type, **fields_json(message)}

def test_on_post_executing_returns_the_form_request_and_registers_the_form() -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)

    message = post(tool, "call-1", ARGS)

    assert message is not None
    form_id = message["form_id"]
    assert message == {
        "type": "form_request",
        "tool_call_id": "call-1",
        "form_id": form_id,
        "questions": [q.to_json() for q in QUESTIONS],
        "title": "Trip",
    }
    assert forms.pending() == [PendingForm(form_id, QUESTIONS, "Trip")]


def test_on_post_executing_twice_for_one_call_returns_the_same_form() -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)

    first = post(tool, "call-1", ARGS)
    second = post(tool, "call-1", ARGS)

    assert first == second
    assert len(forms.pending()) == 1


async def test_run_waits_for_the_answer_and_returns_it_as_json(ctx: WatchedContext) -> None:
    forms = SignallingForms()
    tool = AskUserQuestionTool(forms)
    message = post(tool, "call-1", ARGS)
    assert message is not None

    run = asyncio.create_task(tool.run(ARGS, ctx))
    async with asyncio.timeout(5):
        await forms.waiting.wait()
    assert not run.done()
    assert forms.respond(message["form_id"], {"city": "北京", "with": ["Bob"]}) is True

    async with asyncio.timeout(5):
        result = await run
    assert result == ToolResult('{"answers": {"city": "北京", "with": ["Bob"]}}')
    assert forms.pending() == []


async def test_a_form_the_user_cancelled_gives_a_non_error_declined_result(ctx: WatchedContext) -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)
    message = post(tool, "call-1", ARGS)
    assert message is not None
    forms.respond(message["form_id"], None)

    async with asyncio.timeout(5):
        result = await tool.run(ARGS, ctx)

    assert result == ToolResult("The user declined to answer the form.")


async def test_interrupting_the_run_cancels_the_form(ctx: WatchedContext) -> None:
    forms = SignallingForms()
    tool = AskUserQuestionTool(forms)
    message = post(tool, "call-1", ARGS)
    assert message is not None
    run = asyncio.create_task(tool.run(ARGS, ctx))
    async with asyncio.timeout(5):
        await forms.waiting.wait()

    run.cancel()

    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await run
    assert forms.pending() == []
    assert message["form_id"] not in forms
    assert forms.respond(message["form_id"], {"city": "Paris", "with": ["Ann"]}) is False


async def test_a_reused_call_id_after_the_form_ended_gets_a_new_form(ctx: WatchedContext) -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)
    first = post(tool, "call-1", ARGS)
    assert first is not None
    forms.cancel_all()  # the turn was interrupted before run began

    second = post(tool, "call-1", ARGS)

    assert second is not None
    assert second["form_id"] != first["form_id"]
    assert [f.form_id for f in forms.pending()] == [second["form_id"]]


async def test_single_question_shorthand_becomes_one_choice_question(ctx: WatchedContext) -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)
    args = {"question": "Tea or coffee?", "options": ["tea", "coffee"]}

    message = post(tool, "call-1", args)

    assert message is not None
    assert message["questions"] == [
        {
            "id": "q1",
            "question": "Tea or coffee?",
            "type": "choice",
            "options": ["tea", "coffee"],
            "required": True,
        }
    ]
    assert message["title"] is None
    forms.respond(message["form_id"], {"q1": "tea"})
    async with asyncio.timeout(5):
        assert await tool.run(args, ctx) == ToolResult('{"answers": {"q1": "tea"}}')


def test_questions_without_ids_are_numbered() -> None:
    tool = AskUserQuestionTool(FormManager())
    message = post(tool, "call-1", {"questions": [{"question": "A?"}, {"question": "B?"}]})
    assert message is not None
    assert [(q["id"], q["type"]) for q in message["questions"]] == [("q1", "text"), ("q2", "text")]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "questions must be a non-empty list of {id, question, type, options}"),
        ({"questions": []}, "questions must not be empty"),
        ({"questions": "Where?"}, "questions must be a list, got 'Where?'"),
        ({"questions": ["Where?"]}, "questions[0] must be an object, got 'Where?'"),
        ({"questions": [{"id": "a"}]}, "questions[0].question is required"),
        ({"questions": [{"id": " ", "question": "A?"}]}, "questions[0].id must be a non-empty string, got ' '"),
        (
            {"questions": [{"question": "A?", "type": "radio", "options": ["x"]}]},
            "questions[0].type must be one of 'text', 'choice' or 'multi_choice', got 'radio'",
        ),
        (
            {"questions": [{"question": "A?", "type": "choice"}]},
            "questions[0].options must list the choices of a 'choice' question",
        ),
        (
            {"questions": [{"question": "A?", "type": "text", "options": ["x"]}]},
            "questions[0].options are only for 'choice' and 'multi_choice' questions",
        ),
        (
            {"questions": [{"question": "A?", "options": ["x", ""]}]},
            "questions[0].options[1] must be a non-empty string, got ''",
        ),
        (
            {"questions": [{"question": "A?", "options": ["x", "x"]}]},
            "questions[0].options contain a duplicate",
        ),
        (
            {"questions": [{"question": "A?", "required": "yes"}]},
            "questions[0].required must be true or false, got 'yes'",
        ),
        (
            {"questions": [{"id": "a", "question": "A?"}, {"id": "a", "question": "B?"}]},
            "questions[1].id 'a' is used twice",
        ),
        (
            {"question": "A?", "questions": []},
            "give either 'questions' (a list) or 'question' (one question), not both",
        ),
        ({"question": ""}, "question must be a non-empty string, got ''"),
        ({"question": "A?", "title": 3}, "title must be a string, got 3"),
        ({"question": "A?", "type": "text", "options": ["x"]}, "options are only for 'choice' and 'multi_choice' questions"),
    ],
)
async def test_invalid_arguments_show_no_form_and_give_an_error_naming_the_problem(
    ctx: WatchedContext, arguments: dict[str, Any], error: str
) -> None:
    forms = FormManager()
    tool = AskUserQuestionTool(forms)

    assert post(tool, "call-1", arguments) is None
    async with asyncio.timeout(5):
        result = await tool.run(arguments, ctx)

    assert result == ToolResult(f"ask_user_question: invalid arguments: {error}", is_error=True)
    assert forms.pending() == []


async def test_run_without_the_post_executing_hook_is_an_error_not_a_hang(ctx: WatchedContext) -> None:
    tool = AskUserQuestionTool(FormManager())
    async with asyncio.timeout(5):
        result = await tool.run(ARGS, ctx)
    assert result == ToolResult("ask_user_question: the form could not be shown to the user", is_error=True)


def test_the_tool_skips_approval() -> None:
    spec = AskUserQuestionTool(FormManager()).spec
    assert (spec.name, spec.skip_approval, spec.server) == ("ask_user_question", True, None)
