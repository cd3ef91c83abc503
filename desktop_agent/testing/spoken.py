"""Real synthetic speech for speech-input tests: espeak-ng's WAV of a text
(22,050 Hz mono, like every recording the recognisers get through
:func:`desktop_agent.voice.stt.read_speech_wav`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HAVE_ESPEAK = shutil.which("espeak-ng") is not None


def espeak_wav(text: str, folder: Path, *, voice: str = "en") -> Path:
    """Write ``text`` spoken by espeak-ng to a WAV file in ``folder``."""
    path = folder / f"{voice}_{'_'.join(text.split())}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, timeout=30, capture_output=True)
    return path
