"""The Whisper engine with the real Whisper base model on real speech: each
fixture heard, Chinese in simplified characters, silence heard as nothing,
the model loaded once (off the caller's thread) and the encoder run once per
utterance, and a model folder that is not one said in one line."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.speech_fixtures import error_rate, utterances
from desktop_agent.voice.pcm import silence16
from desktop_agent.voice.stt import WhisperRecognizer, build_recognizer, read_speech_wav

TRADITIONAL = set("現幾點開曆麼會議幫設個鐘計時這裡為們說話嗎")
"""Traditional forms of characters the fixtures hold (Whisper base wrote
現在幾點了 and 幫我設置一個十分鐘的計時期 before conversion)."""


@pytest.fixture(scope="module")
def whisper(whisper_dir: Path) -> Iterator[WhisperRecognizer]:
    """One recogniser for the module: the model loads once (about 1 s)."""
    yield WhisperRecognizer(model_dir=whisper_dir)


async def _heard(recognizer: WhisperRecognizer) -> dict[str, str]:
    return {u.name: await recognizer.transcribe(read_speech_wav(u.wav)) for u in utterances()}


async def test_every_fixture_is_heard_within_ten_percent_word_and_character_error(
    whisper: WhisperRecognizer,
) -> None:
    heard = await _heard(whisper)
    said = {u.name: u for u in utterances()}
    wer = error_rate("en", [(said[n].text, heard[n]) for n in heard if said[n].language == "en"])
    cer = error_rate("zh", [(said[n].text, heard[n]) for n in heard if said[n].language == "zh"])
    assert (wer <= 0.10, cer <= 0.10) == (True, True), (wer, cer, heard)
    assert heard["zh1"] == "现在几点了"
    assert heard["en1"].rstrip("?.").lower() == "what time is it"


async def test_chinese_comes_out_in_simplified_characters(whisper: WhisperRecognizer) -> None:
    import opencc

    heard = await _heard(whisper)
    chinese = "".join(text for name, text in heard.items() if name.startswith("zh"))
    assert set(chinese) & TRADITIONAL == set(), chinese
    assert opencc.OpenCC("t2s").convert(chinese) == chinese


async def test_english_and_chinese_in_one_utterance_are_both_heard(whisper: WhisperRecognizer) -> None:
    said = {u.name: read_speech_wav(u.wav) for u in utterances()}
    text = await whisper.transcribe(said["en1"] + silence16(0.5) + said["zh1"])
    assert text.rstrip("?.。").lower().replace("?", "") in ("what time is it现在几点了", "what time is it 现在几点了")


async def test_silence_is_heard_as_nothing(whisper: WhisperRecognizer) -> None:
    assert await whisper.transcribe(silence16(2.0)) == ""
    assert await whisper.transcribe(b"") == ""


async def test_audio_at_another_rate_is_resampled(whisper: WhisperRecognizer) -> None:
    from desktop_agent.voice.pcm import read_wav16, resample16, to_mono16

    en1 = next(u for u in utterances() if u.name == "en1")
    pcm48k = resample16(to_mono16(read_wav16(en1.wav), "int16", 1), 16000, 48000).tobytes()
    assert (await whisper.transcribe(pcm48k, 48000)).rstrip("?").lower() == "what time is it"


async def test_the_model_loads_once_off_the_callers_thread_and_encodes_once_per_utterance(
    whisper_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faster_whisper

    loads: list[int] = []
    encodes: list[tuple[int, ...]] = []
    real_init, real_encode = faster_whisper.WhisperModel.__init__, faster_whisper.WhisperModel.encode

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        loads.append(threading.get_ident())
        real_init(self, *args, **kwargs)

    def counting_encode(self: Any, features: Any) -> Any:
        encodes.append(tuple(features.shape))
        return real_encode(self, features)

    monkeypatch.setattr(faster_whisper.WhisperModel, "__init__", counting_init)
    monkeypatch.setattr(faster_whisper.WhisperModel, "encode", counting_encode)
    recognizer = WhisperRecognizer(model_dir=whisper_dir, threads=2)
    await recognizer.prepare()
    said = {u.name: read_speech_wav(u.wav) for u in utterances()}
    zh1, en1 = said["zh1"], said["en1"]

    assert await recognizer.transcribe(zh1) == "现在几点了"
    assert (await recognizer.transcribe(en1)).rstrip("?").lower() == "what time is it"
    assert len(loads) == 1 and loads[0] != threading.get_ident()
    assert encodes == [(80, 3000), (80, 3000)], "one encoder pass per utterance: the language is read from it"


def test_a_folder_given_is_used_as_it_is(whisper_dir: Path) -> None:
    recognizer = build_recognizer("whisper", whisper_model=str(whisper_dir))
    assert isinstance(recognizer, WhisperRecognizer)
    assert (recognizer.ready, recognizer.model_folder, recognizer.name) == (True, whisper_dir, "whisper")
    from_setting = build_recognizer("whisper", model_dir=str(whisper_dir))
    assert isinstance(from_setting, WhisperRecognizer) and from_setting.model_folder == whisper_dir


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "nowhere", "the Whisper model folder {d}/nowhere does not exist"),
        (lambda d: (d / "file").write_text("x") and d / "file", "the Whisper model folder {d}/file is not a folder"),
        (lambda d: (d / "empty").mkdir() or d / "empty",
         "{d}/empty is not a CTranslate2 Whisper model folder: it has no model.bin, config.json, tokenizer.json "
         "(it needs model.bin, config.json, tokenizer.json, as in Systran/faster-whisper-base)"),
    ],
)
async def test_a_folder_that_is_no_whisper_model_is_one_line(tmp_path: Path, make: Any, message: str) -> None:
    folder = make(tmp_path)
    recognizer = build_recognizer("whisper", whisper_model=str(folder))
    assert isinstance(recognizer, WhisperRecognizer) and not recognizer.ready
    with pytest.raises(STTError) as caught:
        await recognizer.transcribe(bytes(3200))
    assert str(caught.value) == message.format(d=tmp_path)


async def test_a_sensevoice_folder_given_to_whisper_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "sense"
    folder.mkdir()
    for name in ("model.bin", "config.json", "tokenizer.json"):
        (folder / name).write_bytes(b"\x08\x00\x00\x00ONNXSpec" if name == "model.bin" else b"{}")
    with pytest.raises(STTError, match=rf"^{folder}/model\.bin is not a CTranslate2 Whisper model$"):
        await WhisperRecognizer(model_dir=folder).transcribe(bytes(3200))


async def test_a_damaged_model_is_one_line_naming_the_folder(whisper_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "damaged"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        (folder / name).symlink_to(whisper_dir / name)
    (folder / "model.bin").write_bytes((whisper_dir / "model.bin").open("rb").read(4096))  # cut short
    with pytest.raises(STTError) as caught:
        await WhisperRecognizer(model_dir=folder).transcribe(read_speech_wav(utterances()[0].wav))
    message = str(caught.value)
    assert message.startswith(f"could not load the Whisper model in {folder}: ") and "\n" not in message


def test_an_unknown_model_name_is_one_line() -> None:
    with pytest.raises(STTError, match=r"^the Whisper model must be base, small or a model folder, got 'large'$"):
        build_recognizer("whisper", whisper_model="large")
