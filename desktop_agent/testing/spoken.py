"""Real synthetic speech for speech-input tests: espeak-ng's WAV of a text
(22,050 Hz mono, like every recording the recognisers get through
:func:`desktop_agent.voice.stt.read_speech_wav`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HAVE_ESPEAK = shutil.which("espeak-ng") is not None


def espeak_wav(text: str, folder: Path, *, voice: str = "en", wpm: int = 175) -> Path:
    """Write ``text`` spoken by espeak-ng (``wpm`` words a minute; 175 is
    its default) to a WAV file in ``folder``."""
    path = folder / f"{voice}_{wpm}_{'_'.join(text.split())}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-w", str(path), text],
                   check=True, timeout=30, capture_output=True)
    return path


SPHINX_VOICE, SPHINX_WPM = "en-us+klatt", 140
"""The espeak-ng voice and rate pocketsphinx's dictation model hears best (measured
on 5 commands × 8 voices × 3 rates): "what time is it" comes back "time is
it", where the default voice gives "well i" at every rate."""
