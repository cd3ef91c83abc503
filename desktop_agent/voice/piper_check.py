"""``--self-test``'s Piper line: is the engine usable here, and with which
voices? A voice that is on disk is loaded and says a few words, so a bundle
that lost piper's espeak-ng data or onnxruntime fails here rather than at the
first reply; a voice that is not is reported with its download size, which
is not a failure (it comes on first use)."""

from __future__ import annotations

import asyncio

from desktop_agent.core.ports import TTSError
from desktop_agent.voice.piper import PiperEngine
from desktop_agent.voice.piper_voices import VoiceLanguage
from desktop_agent.voice.stt.models import format_mb

SAMPLES: dict[VoiceLanguage, str] = {"en": "Self test.", "zh": "自检。"}


def piper_report(english: str = "", chinese: str = "") -> tuple[bool, str]:
    """(works, one line): ``ready: en_US-joe-medium speaks (0.9 s of audio);
    zh_CN-huayan-medium needs a download of 60 MB``, or ``needs a voice: …``."""
    engine = PiperEngine(english, chinese, download=False)
    parts: list[str] = []
    ready = False
    for language, sample in SAMPLES.items():
        state = engine.state(language)
        if state.error is not None:
            parts.append(state.error)
        elif state.path is None:
            parts.append(f"{state.ref} needs a download of {format_mb(state.download_bytes)} MB")
        else:
            try:
                seconds = asyncio.run(_say(engine, sample))
            except TTSError as exc:
                return False, f"{state.ref} is here but does not speak: {exc}"
            ready = True
            parts.append(f"{state.ref} speaks ({seconds:.1f} s of audio)")
    return True, ("ready: " if ready else "needs a voice: ") + "; ".join(parts)


async def _say(engine: PiperEngine, text: str) -> float:
    async with asyncio.timeout(60):
        stream = await engine.open_stream(text)
        await stream.wait_finished()
    if stream.error is not None:
        raise TTSError(stream.error)
    return stream.size / stream.sample_width / stream.sample_rate
