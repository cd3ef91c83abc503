"""The composition root's speech recognisers for the window."""

from __future__ import annotations

from desktop_agent.app_speech import speech_recognizers
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.speech_fixtures import whisper_base_dir


def test_pocketsphinx_by_default_with_a_grammar_for_answers() -> None:
    dictation, answers, note = speech_recognizers(Settings())
    assert note is None and dictation is not None and answers is not None
    assert (dictation.name, answers.name) == ("pocketsphinx", "pocketsphinx")
    assert getattr(answers, "mode", None) == "answer"


def test_openai_without_an_endpoint_gives_the_reason_instead() -> None:
    dictation, answers, note = speech_recognizers(Settings(stt_engine="openai"))
    assert dictation is None and answers is None
    assert note is not None and "endpoint" in note


def test_whisper_hears_dictation_and_answers_with_one_model() -> None:
    folder = whisper_base_dir()
    dictation, answers, note = speech_recognizers(Settings(stt_model_dir=str(folder)))  # auto: the folder is Whisper
    assert note is None and dictation is not None and dictation is answers
    assert dictation.name == "whisper"
