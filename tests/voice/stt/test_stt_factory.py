"""build_recognizer: engine names to recognisers, one-line errors."""

from __future__ import annotations

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt import OpenAIRecognizer, PocketsphinxRecognizer, build_recognizer


def test_pocketsphinx_dictates_or_hears_answers() -> None:
    dictation = build_recognizer("pocketsphinx")
    answers = build_recognizer("pocketsphinx", answers=True)
    assert isinstance(dictation, PocketsphinxRecognizer) and dictation.mode == "dictation"
    assert isinstance(answers, PocketsphinxRecognizer) and answers.mode == "answer"


async def test_openai_takes_the_endpoint_and_model() -> None:
    recognizer = build_recognizer("openai", base_url="http://127.0.0.1:9/v1", model="large-v3")
    assert isinstance(recognizer, OpenAIRecognizer) and recognizer.model == "large-v3"
    await recognizer.aclose()
    default = build_recognizer("openai", base_url="http://127.0.0.1:9/v1")
    assert isinstance(default, OpenAIRecognizer) and default.model == "whisper-1"
    await default.aclose()


def test_openai_without_an_endpoint_says_so() -> None:
    with pytest.raises(STTError, match="needs an endpoint"):
        build_recognizer("openai")


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(STTError, match="must be one of pocketsphinx, openai, sensevoice, got 'whisperx'"):
        build_recognizer("whisperx")
