"""The Chinese path Piper takes: zh_CN-huayan-medium's config names the
espeak-ng voice ``cmn``, phonemised by the espeak-ng that piper-tts bundles
(not Debian's 1.51, whose ``cmn`` reads pinyin with English rules). Here the
phonemes themselves are checked, as ``tests/voice/test_espeak.py`` does for
the espeak-ng engine: no switch to English, a tone on every syllable."""

from __future__ import annotations

import re

import pytest
from piper import espeakbridge
from piper.phonemize_espeak import ESPEAK_DATA_DIR

from desktop_agent.voice.cores import available_cores
from desktop_agent.voice.piper_load import CHINESE_PROBE
from desktop_agent.voice.text import is_chinese

TONE = re.compile(r"[125ɜ]")
"""How Piper's espeak-ng marks a Mandarin tone: tones 1 and 4 as 5, tone 3
as 2, the neutral tone as 1, tone 2 as ``ɜ``."""


def raw_phonemes(voice: str, text: str) -> str:
    """espeak-ng's phonemes with its language switches kept (Piper's own
    ``phonemize`` deletes the ``(en)`` marks this test looks for)."""
    espeakbridge.initialize(str(ESPEAK_DATA_DIR))
    espeakbridge.set_voice(voice)
    return " ".join(phonemes for phonemes, _terminator, _end in espeakbridge.get_phonemes(text))


@pytest.mark.parametrize("text", ["现在几点了", "今天天气很好", "请帮我打开窗户", CHINESE_PROBE])
def test_the_bundled_cmn_voice_reads_han_characters_as_mandarin_with_a_tone_each(text: str) -> None:
    phonemes = raw_phonemes("cmn", text)
    assert not re.search(r"\([a-z-]+\)", phonemes), phonemes  # no (en) or other language switch
    assert len(TONE.findall(phonemes)) == sum(is_chinese(ch) for ch in text), phonemes


def test_the_phonemes_of_one_sentence_are_these_mandarin_syllables() -> None:
    # xian4 zai4 ji3 dian3 le5; Debian's espeak-ng 1.51 cmn said "(en)z,aI55@55n…" ("zian").
    assert raw_phonemes("cmn", "现在几点了") == "ɕˈiɛ5n tsˈai5 tɕˌi2tiɛ2nlˈə1"


def test_an_english_voice_gives_the_probe_no_tone_so_it_is_refused_for_chinese() -> None:
    assert TONE.findall(raw_phonemes("cmn", CHINESE_PROBE)) == ["2", "2"]
    assert not re.search(r"\d", raw_phonemes("en-us", CHINESE_PROBE))


def test_the_worker_uses_the_cores_this_process_may_run_on() -> None:
    import os

    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert available_cores() == expected
