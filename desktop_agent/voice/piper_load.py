"""Loading one Piper voice: blocking work for the engine's worker thread.

piper-tts, onnxruntime and numpy are imported here, at the first load, not
when the app starts: the idle window never pays for them (~60 MiB).

The ONNX session is built here rather than by ``PiperVoice.load`` so that
its threads are chosen (:func:`synthesis_threads`), and so that a voice that
cannot work is refused with one line before anything is synthesised:

- a config that is not a Piper config, or a network onnxruntime cannot read;
- a voice whose phonemes are not espeak-ng's: Piper's ``pinyin`` voices
  download a g2pW model by themselves (``urlopen`` of an unpinned URL, at
  the first sentence), which must not happen behind the user's back;
- for Chinese, a voice whose espeak-ng voice does not read Han characters as
  Mandarin syllables with tones (an English voice says "Chinese letter" for
  each character): probed once per voice, on two characters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_agent.core.ports import TTSError
from desktop_agent.voice.cores import available_cores
from desktop_agent.voice.piper_voices import VoiceError, VoiceLanguage, config_path, read_config
from desktop_agent.voice.text import one_line

CHINESE_PROBE = "你好"
"""Two third-tone syllables: a Mandarin reading marks each with a tone
digit (``ni2 χˈɑu2``: Piper's espeak-ng writes tones 1/4 as 5, 3 as 2, the
neutral tone as 1 and tone 2 as ``ɜ``); an English voice says "Chinese
letter" for each, with no digit."""


def synthesis_threads() -> int:
    """Half the cores this process may use, at least one. onnxruntime's
    default is every physical core, with its threads spinning while they
    wait; a sentence of Piper is too small a job to share well, and the
    window, the LLM stream and espeak-ng want the other cores. Measured on
    two busy cores (load 4), a 1 s clause: 169 ms with one thread, 265 ms
    with two (p50 of 25 each, interleaved)."""
    return max(1, available_cores() // 2)


def load_voice(model: Path, language: VoiceLanguage, threads: int) -> Any:
    """A ready ``piper.PiperVoice``. Raises :class:`TTSError` in one line."""
    try:
        import onnxruntime
        from piper import PiperConfig, PiperVoice
        from piper.config import PhonemeType
    except (ImportError, OSError) as exc:
        raise TTSError(one_line(f"the Piper engine needs the piper-tts package, which is not usable: {exc}")) from exc
    try:
        data = read_config(model)
    except VoiceError as exc:
        raise TTSError(str(exc)) from None
    try:
        config = PiperConfig.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise TTSError(one_line(f"{config_path(model)} is not a Piper voice config ({reason})")) from None
    if config.phoneme_type != PhonemeType.ESPEAK:
        raise TTSError(
            f"the Piper voice {model.name} uses {config.phoneme_type.value} phonemes, whose model Piper would "
            "download unchecked: choose an espeak-based voice such as zh_CN-huayan-medium"
        )
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own (pybind) types for a bad file
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise TTSError(one_line(f"cannot load the Piper voice {model}: {reason}")) from exc
    voice = PiperVoice(session=session, config=config, download_dir=model.parent)
    if language == "zh":
        _check_mandarin(voice, model)
    return voice


def _check_mandarin(voice: Any, model: Path) -> None:
    phonemes = "".join("".join(sentence) for sentence in voice.phonemize(CHINESE_PROBE))
    tones = sum(ch.isdigit() for ch in phonemes)
    if tones < len(CHINESE_PROBE):
        raise TTSError(
            f"the Piper voice {model.name} does not read Chinese as Mandarin (its espeak-ng voice "
            f"{voice.config.espeak_voice!r}): choose a Chinese voice such as zh_CN-huayan-medium"
        )
