"""pocketsphinx on real espeak-ng speech: the answer grammar hears yes, no,
approve and reject, and never turns other speech into a yes."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest

from desktop_agent.core.voice_answer import parse_answer
from desktop_agent.testing.spoken import HAVE_ESPEAK, espeak_wav
from desktop_agent.voice.stt import PocketsphinxRecognizer, read_speech_wav

pytestmark = pytest.mark.skipif(not HAVE_ESPEAK, reason="espeak-ng is not installed")


@pytest.fixture(scope="module")
def answers() -> PocketsphinxRecognizer:
    return PocketsphinxRecognizer("answer")


@pytest.mark.parametrize(
    ("spoken", "heard", "answer"),
    [("yes", "yes", "yes"), ("no", "no", "no"), ("approve", "approve", "yes"), ("reject", "reject", "no")],
)
async def test_the_answer_grammar_hears_approval_words(
    tmp_path: Path, answers: PocketsphinxRecognizer, spoken: str, heard: str, answer: str
) -> None:
    text = await answers.transcribe(read_speech_wav(espeak_wav(spoken, tmp_path)))
    assert text == heard
    assert parse_answer(text) == answer


@pytest.mark.parametrize(
    "spoken", ["what time is it", "I am not sure", "maybe", "hello there", "no problem", "open the file"]
)
async def test_other_speech_is_never_a_yes(tmp_path: Path, answers: PocketsphinxRecognizer, spoken: str) -> None:
    text = await answers.transcribe(read_speech_wav(espeak_wav(spoken, tmp_path)))
    assert parse_answer(text) != "yes", text


async def test_dictation_hears_a_plain_yes(tmp_path: Path) -> None:
    recognizer = PocketsphinxRecognizer()
    assert recognizer.name == "pocketsphinx"
    assert await recognizer.transcribe(read_speech_wav(espeak_wav("yes", tmp_path))) == "yes"


async def test_audio_at_another_rate_is_resampled_first(tmp_path: Path) -> None:
    with wave.open(str(espeak_wav("yes", tmp_path))) as reader:
        rate, pcm = reader.getframerate(), reader.readframes(reader.getnframes())
    assert rate == 22050
    assert await PocketsphinxRecognizer("answer").transcribe(pcm, rate) == "yes"
