"""What the voice adapter says and hears: a recognition run as the session
asked (``ui/voice/speech_input.py`` awaits :func:`hear` in a task), and a notice in
the window's language (:func:`notice_line`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from desktop_agent.core import voice_session as vs
from desktop_agent.ui.chat.turn_events import NoticeLevel

if TYPE_CHECKING:
    from desktop_agent.core.ports import SpeechRecognizer
    from desktop_agent.texts import Texts
    from desktop_agent.voice.stt.models import ModelDownloadError

RATE = 16000


async def hear(
    action: vs.Recognise,
    dictation: Callable[[], SpeechRecognizer | None],
    answers: SpeechRecognizer | None,
    stand_ins: list[SpeechRecognizer],
    before: Callable[[], Awaitable[None]] | None,
    heard_instead: Callable[[str, ModelDownloadError], object],
) -> str:
    """The text of ``action``'s PCM ("" for none). Raises ``STTError``.
    ``before``: awaited before dictation (the first download's offer: its
    answer may change the engine, so ``dictation`` is asked for it after)."""
    if action.engine == "answer":
        return (await answers.transcribe(action.pcm, RATE)).strip() if answers is not None and action.pcm else ""
    if before is not None:
        await before()
    recognizer = dictation()
    if recognizer is None or not action.pcm:
        return ""
    # A model that cannot be downloaded never loses the words: the best
    # ready stand-in hears them, and says so.
    from desktop_agent.voice.stt.fallback import RecognizerChain

    heard = await RecognizerChain(recognizer, stand_ins).recognise(action.pcm, RATE)
    if heard.failure is not None:
        heard_instead(heard.engine, heard.failure)
    return heard.text.strip()


def notice_line(texts: Texts, notice: vs.Notice) -> tuple[NoticeLevel, str]:
    """The line a notice is, in ``texts``' language (the window's)."""
    if notice.kind == "mic_unavailable":
        return NoticeLevel.WARNING, texts.tr("mic_unavailable", reason=notice.reason)
    if notice.kind == "mic_lost":
        return NoticeLevel.WARNING, texts.tr("mic_lost_kept" if notice.kept else "mic_lost", device=notice.reason)
    key = {"heard_nothing": "mic_heard_nothing", "barge_unclear": "voice_barge_unclear",
           "answer_on_card": "voice_approval_unclear"}[notice.kind]
    return NoticeLevel.SYSTEM, texts.tr(key)
