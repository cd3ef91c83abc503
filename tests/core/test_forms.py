from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_agent.core.forms import (
    FormAnswer,
    FormAnswerError,
    FormManager,
    FormQuestion,
    PendingForm,
)
from desktop_agent.testing.fake_clock import FakeClock

QUESTIONS = (
    FormQuestion("name", "Your name?"),
    FormQuestion("colour", "Favourite colour?", "choice", ("red", "blue")),
    FormQuestion("days", "Which days?", "multi_choice", ("mon", "tue", "wed"), required=False),
)
CANCELLED = FormAnswer(answers=None, cancelled=True)


async def _one_step() -> None:
    """One scheduling step: tasks created before run up to their first
    suspension (here: inside ``FormManager.wait``). Deterministic, not a wait
    for time."""
    await asyncio.sleep(0)


async def test_respond_wakes_the_waiter_with_the_answers_in_question_order() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    waiter = asyncio.create_task(forms.wait("f1"))
    await _one_step()

    assert forms.respond("f1", {"days": ["tue", "mon"], "colour": "blue", "name": "Ann"}) is True

    async with asyncio.timeout(5):
        answer = await waiter
    assert answer == FormAnswer({"name": "Ann", "colour": "blue", "days": ["tue", "mon"]})
    assert forms.pending() == []
    assert "f1" not in forms


async def test_an_answer_given_before_the_wait_began_is_kept_for_the_waiter() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    assert forms.respond("f1", {"name": "Ann", "colour": "red"}) is True
    assert forms.pending() == []
    assert "f1" in forms  # answered, not yet collected

    async with asyncio.timeout(5):
        answer = await forms.wait("f1")

    assert answer == FormAnswer({"name": "Ann", "colour": "red"})
    assert "f1" not in forms


async def test_respond_to_an_unknown_or_already_answered_form_returns_false() -> None:
    forms = FormManager()
    assert forms.respond("nope", {"name": "x"}) is False
    forms.register("f1", QUESTIONS)
    assert forms.respond("f1", {"name": "Ann", "colour": "red"}) is True
    assert forms.respond("f1", {"name": "Bob", "colour": "red"}) is False
    async with asyncio.timeout(5):
        assert await forms.wait("f1") == FormAnswer({"name": "Ann", "colour": "red"})


async def test_responding_none_means_the_user_cancelled() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    assert forms.respond("f1", None) is True
    async with asyncio.timeout(5):
        assert await forms.wait("f1") == CANCELLED


async def test_cancel_wakes_the_waiter_and_forgets_the_form() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    waiter = asyncio.create_task(forms.wait("f1"))
    await _one_step()

    forms.cancel("f1")
    forms.cancel("f1")  # idempotent

    async with asyncio.timeout(5):
        assert await waiter == CANCELLED
    assert "f1" not in forms
    assert forms.respond("f1", {"name": "late", "colour": "red"}) is False


async def test_cancel_all_wakes_every_waiter_and_leaves_nothing_pending() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    forms.register("f2", QUESTIONS[:1])
    waiters = [asyncio.create_task(forms.wait(f)) for f in ("f1", "f2")]
    await _one_step()

    forms.cancel_all()

    async with asyncio.timeout(5):
        assert await asyncio.gather(*waiters) == [CANCELLED, CANCELLED]
    assert forms.pending() == []


async def test_wait_on_a_form_cancelled_before_the_wait_began_returns_cancelled_at_once() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    forms.cancel_all()
    async with asyncio.timeout(5):
        assert await forms.wait("f1") == CANCELLED


async def test_a_timed_out_wait_is_cancelled_says_it_timed_out_and_removes_the_form() -> None:
    clock = FakeClock()
    forms = FormManager(timers=clock)
    forms.register("f1", QUESTIONS)
    waiter = asyncio.create_task(forms.wait("f1", timeout=300))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()
    clock.advance(299.9)
    assert "f1" in forms  # not a moment early
    clock.advance(0.1)
    async with asyncio.timeout(5):
        assert await waiter == FormAnswer(None, cancelled=True, timed_out=True)
    assert "f1" not in forms
    assert forms.respond("f1", {"name": "late", "colour": "red"}) is False


async def test_cancelling_the_waiter_removes_the_form() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    waiter = asyncio.create_task(forms.wait("f1"))
    await _one_step()

    waiter.cancel()

    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await waiter
    assert forms.pending() == []
    assert "f1" not in forms


def test_pending_lists_unanswered_forms_with_questions_and_title() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS, title="About you")
    forms.register("f2", QUESTIONS[:1])
    forms.register("f3", QUESTIONS[:1])
    forms.respond("f3", {"name": "Ann"})

    assert forms.pending() == [
        PendingForm("f1", QUESTIONS, "About you"),
        PendingForm("f2", QUESTIONS[:1], None),
    ]


def test_registering_the_same_form_twice_or_without_questions_is_refused() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    with pytest.raises(ValueError, match="form 'f1' is already registered"):
        forms.register("f1", QUESTIONS)
    with pytest.raises(ValueError, match="form 'f2' has no questions"):
        forms.register("f2", ())


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"colour": "red"}, "“Your name?” needs an answer"),
        ({"name": "", "colour": "red"}, "“Your name?” needs an answer"),
        ({"name": "Ann"}, "“Favourite colour?” needs an answer"),
        ({"name": "Ann", "colour": "green"}, "“Favourite colour?” 'green' is not one of its options"),
        ({"name": 3, "colour": "red"}, "“Your name?” expects text, got int"),
        ({"name": "Ann", "colour": "red", "days": "mon"}, "“Which days?” expects a list of options"),
        (
            {"name": "Ann", "colour": "red", "days": ["sun"]},
            "“Which days?” 'sun' is not one of its options",
        ),
        ({"name": "Ann", "colour": "red", "age": "3"}, "answer for unknown question 'age'"),
    ],
)
async def test_answers_that_do_not_fit_raise_a_one_line_error_and_keep_the_form(
    answers: dict[str, Any], message: str
) -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)

    with pytest.raises(FormAnswerError) as info:
        forms.respond("f1", answers)

    assert str(info.value) == message
    assert forms.pending() == [PendingForm("f1", QUESTIONS)]
    assert forms.respond("f1", {"name": "Ann", "colour": "red", "days": []}) is True
    async with asyncio.timeout(5):
        assert await forms.wait("f1") == FormAnswer({"name": "Ann", "colour": "red"})


def test_question_to_json_carries_every_field() -> None:
    assert QUESTIONS[2].to_json() == {
        "id": "days",
        "question": "Which days?",
        "type": "multi_choice",
        "options": ["mon", "tue", "wed"],
        "required": False,
    }


async def test_decline_wakes_the_waiter_with_a_declined_not_cancelled_answer() -> None:
    forms = FormManager()
    forms.register("f1", QUESTIONS)
    assert forms.decline("f1") is True
    assert forms.decline("f1") is False  # answered already
    async with asyncio.timeout(5):
        assert await forms.wait("f1") == FormAnswer(answers=None, declined=True)
    assert forms.decline("f1") is False  # gone


def test_a_consent_form_may_have_no_questions() -> None:
    forms = FormManager()
    forms.register("f1", (), title="Open the page?", consent=True)
    assert forms.respond("f1", {}) is True
