"""Regenerate keeps the answer it replaces: the reply shows ‹ 2/2 ›, ‹
brings the first back, and the one shown is what the next turn sends.
Edit works on any message of the user's: sending replaces it and what
followed, kept as the turn's earlier version. The real window over the
scripted LLM server. Screenshots: /work/shots26/small/versions_{en,zh}.png
and edit_earlier_{en,zh}.png."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.testing.scripted_server import text_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.version_switch import VersionSwitch
from tests.ui.chat.test_message_actions import bubbles, history, last, offered, row

SHOTS = Path("/work/shots26/small")


def _script(*answers: str) -> list[Any]:
    out: list[Any] = []
    for answer in answers:
        out += [text_reply("Sure.<no_tool>"), text_reply(answer)]
    return out


def switches(rig: WindowRig) -> list[tuple[str, tuple[int, int]]]:
    """Each ‹ n/N › in sight: the text of the bubble holding it, and its position."""
    out: list[tuple[str, tuple[int, int]]] = []
    for widget in rig.window.chat.items():
        if isinstance(widget, MessageBubble) and widget.versions is not None and not widget.versions.isHidden():
            out.append((widget.text(), widget.versions.position()))
    return out


def switch_of(bubble: MessageBubble) -> VersionSwitch:
    assert bubble.versions is not None and not bubble.versions.isHidden()
    return bubble.versions


def replies(rig: WindowRig) -> list[str]:
    return [str(m["content"]) for m in history(rig) if m["role"] == "assistant"]


def sent_last(rig: WindowRig) -> str:
    """The user's and the assistant's words in the last turn's first request."""
    return " | ".join(str(m["content"]).split("\n\n[system instruction]")[0]
                      for m in rig.server.requests[-2]["messages"] if m["role"] in ("user", "assistant"))


async def _shot(rig: WindowRig, tmp_path: Path, name: str) -> None:
    rig.window.resize(860, 640)
    for _ in range(5):
        await asyncio.sleep(0.02)
    assert rig.window.grab().save(str(tmp_path / name))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / name, SHOTS / name)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE])
def test_regenerate_keeps_the_first_answer_and_the_one_shown_is_sent_next(
    qtbot: QtBot, tmp_path: Path, texts: Texts
) -> None:
    async def main() -> None:
        async with scripted_window(_script("Five.", "Four.", "You're welcome.")) as rig:
            rig.window.retranslate(texts)
            assert await rig.turn("what is 2+2?") == "completed"
            assert switches(rig) == []
            row(last(rig, "assistant")).regenerate_button.click()
            assert switches(rig) == []  # a turn runs: nothing to switch
            (status,) = await rig.turns.wait_for(timeout=10)
            assert status == "completed"
            assert bubbles(rig) == [("user", "what is 2+2?"), ("assistant", "Sure.\n\nFour.")]
            assert switches(rig) == [("Sure.\n\nFour.", (2, 2))]
            switch = switch_of(last(rig, "assistant"))
            assert (switch.label.text(), switch.previous.isEnabled(), switch.next.isEnabled()) == ("2/2", True, False)
            assert switch.previous.toolTip() == texts.tr("msg_version_previous")

            switch.previous.click()
            assert bubbles(rig) == [("user", "what is 2+2?"), ("assistant", "Sure.\n\nFive.")]
            assert replies(rig) == ["Sure.", "Five."]
            assert switches(rig) == [("Sure.\n\nFive.", (1, 2))]
            assert offered(last(rig, "assistant")) == [texts.tr("msg_copy"), texts.tr("msg_regenerate")]
            await _shot(rig, tmp_path, f"versions_{texts.language}.png")

            assert await rig.turn("thanks") == "completed"
            sent = sent_last(rig)
            assert "Five." in sent and "Four." not in sent and sent.endswith("thanks")
            assert switches(rig) == [("Sure.\n\nFive.", (1, 2))]  # an earlier turn's versions stay in sight
            switch_of(next(w for w in rig.window.chat.items()
                           if isinstance(w, MessageBubble) and w.text() == "Sure.\n\nFive.")).next.click()
            assert bubbles(rig) == [("user", "what is 2+2?"), ("assistant", "Sure.\n\nFour.")]  # "thanks" went with 1

    run_on_qasync(main, timeout=90)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE])
def test_editing_an_earlier_message_replaces_it_and_what_followed_kept_as_a_version(
    qtbot: QtBot, tmp_path: Path, texts: Texts
) -> None:
    async def main() -> None:
        async with scripted_window(_script("Five.", "Noted.", "Six.")) as rig:
            rig.window.retranslate(texts)
            window = rig.window
            assert await rig.turn("what is 2+3?") == "completed"
            assert await rig.turn("remember it") == "completed"
            first = next(w for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "user")
            assert offered(first) == [texts.tr("msg_copy"), texts.tr("msg_edit")]  # not only the last message
            row(first).edit_button.click()
            assert window.input.toPlainText() == "what is 2+3?"
            assert window.chat_actions is not None and window.chat_actions.editing
            assert offered(first) == [texts.tr("msg_copy"), texts.tr("msg_cancel_edit")]
            assert offered(last(rig, "user")) == [texts.tr("msg_copy"), texts.tr("msg_edit")]

            window.input.setPlainText("what is 3+3?")
            QTest.keyClick(window.input, Qt.Key.Key_Return)
            (status,) = await rig.turns.wait_for(timeout=10)
            assert status == "completed" and window.input.toPlainText() == ""
            assert sent_last(rig) == "what is 3+3?"  # nothing after the edited message was sent
            assert bubbles(rig) == [("user", "what is 3+3?"), ("assistant", "Sure.\n\nSix.")]
            assert switches(rig) == [("Sure.\n\nSix.", (2, 2))]
            await _shot(rig, tmp_path, f"edit_earlier_{texts.language}.png")

            switch_of(last(rig, "assistant")).previous.click()
            assert bubbles(rig) == [("user", "what is 2+3?"), ("assistant", "Sure.\n\nFive."),
                                    ("user", "remember it"), ("assistant", "Sure.\n\nNoted.")]
            assert [m["content"] for m in history(rig) if m["role"] == "user"] == ["what is 2+3?", "remember it"]
            assert switches(rig) == [("Sure.\n\nFive.", (1, 2))]

    run_on_qasync(main, timeout=90)


def test_the_switches_are_placed_in_one_pass_over_the_chat(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """As each turn starts and ends, ‹ n/N › is placed by reading the chat
    and the history once, not once per message of the user's (a long
    conversation with versions held the window for the square of its length)."""
    async def main() -> None:
        async with scripted_window(_script("Five.", "Four.", *(f"Answer {n}." for n in range(6)))) as rig:
            assert await rig.turn("what is 2+2?") == "completed"
            row(last(rig, "assistant")).regenerate_button.click()
            assert (await rig.turns.wait_for(timeout=10))[0] == "completed"
            for n in range(6):
                assert await rig.turn(f"question {n}") == "completed"
            actions = rig.window.chat_actions
            assert actions is not None
            conversation = rig.conversation
            asked: list[int] = []
            count = conversation.turn_count

            def counted() -> int:
                asked.append(1)
                return count()

            monkeypatch.setattr(conversation, "turn_count", counted)
            actions.refresh()
            assert switches(rig) == [("Sure.\n\nFour.", (2, 2))]  # still under the first turn's reply
            assert len(asked) <= 2, len(asked)  # 7 messages of the user's: not once each

    run_on_qasync(main, timeout=90)
