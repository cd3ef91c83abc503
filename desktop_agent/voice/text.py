"""What the engines need to know about a segment's text: its language and
whether there is anything to say.

Voice choice is per segment, not per reply: a Chinese reply that quotes an
English sentence is still mostly Chinese, and the Chinese voices read Latin
words acceptably while the English voices skip Han characters entirely, so
any Han character makes a segment Chinese.
"""

from __future__ import annotations

import re

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")


def is_chinese(text: str) -> bool:
    """True when the text holds at least one Han character."""
    return _HAN.search(text) is not None


def has_speakable(text: str) -> bool:
    """True when there is a letter or digit to say (not just punctuation or
    blanks, which engines either fail on or render as silence)."""
    return any(ch.isalnum() for ch in text)


def one_line(message: str, limit: int = 200) -> str:
    """A failure reason fit for a bus ``error`` field: one line, bounded."""
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
