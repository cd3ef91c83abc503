"""A microphone that cannot open says why as a UI text the window words, and as the English
line for the log."""

from __future__ import annotations

from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.voice.mic_error import MicError


def test_a_mic_error_is_the_english_line_and_is_worded_in_the_windows_language() -> None:
    exc = MicError("mic_busy", device="USB headset")

    assert isinstance(exc, OSError) and str(exc) == ENGLISH.tr("mic_busy", device="USB headset")
    assert exc.worded(CHINESE) == CHINESE.tr("mic_busy", device="USB headset") != str(exc)
