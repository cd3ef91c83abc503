"""A spoken answer to an approval, as yes, no or unclear.

Pure text rules, English and Chinese, shared by the window's voice approval
and the headless ``--approve voice``. The rule that matters: never *yes* on
an unclear answer. A yes needs a yes word and nothing else that is not a
filler ("yes please", "okay, go ahead", "可以的"); any no word next to a yes
word ("yes no", "not sure", "不可以" is one no word) makes it unclear, and
idioms that would need a guess ("no problem", "why not") are unclear too.
A no word without a yes word is a no ("no, don't do that", "stop").
Unclear rejects as well, but the window may ask again.
"""

from __future__ import annotations

import re
from typing import Literal

Answer = Literal["yes", "no"]

VOICE_APPROVAL_PROMPT = {
    "en": "{tool} needs your approval: say yes or no",
    "zh": "{tool} 需要你的批准：请说可以或不行",
}
"""What is said (and shown) when an approval waits for a spoken answer; the
window's copy is ``voice_approval_ask`` in ``desktop_agent/texts``."""

_YES = frozenset(
    "yes yeah yep yup approve approved approve_it go_ahead ok okay sure allow affirmative confirm "
    "是 是的 可以 同意 批准 好 好的 行 对 确定 执行 允许".split()
)
_NO = frozenset(
    "no nope nah not reject rejected deny denied stop cancel don't do_not never negative "
    "不 不行 不要 拒绝 不可以 不同意 不是 不好 不对 不用 不批准 不允许 别 停 停止 取消 算了 否".split()
)
_FILLER = frozenset(
    "please thanks thank_you do_it it that's fine right now um uh oh well just "
    "请 吧 的 啊 呀 嗯 了 呢 哦".split()
)
_UNCLEAR_IDIOMS = ("no problem", "no worries", "why not", "not sure", "no idea")
_PHRASES = {"go ahead": "go_ahead", "thank you": "thank_you", "do it": "do_it", "do not": "do_not",
            "approve it": "approve_it"}
_CJK_WORDS = sorted((w for w in _YES | _NO | _FILLER if not w.isascii()), key=len, reverse=True)
_CJK = re.compile(r"[\u3400-\u9fff]+")
_PUNCT = re.compile(r"[^\w'\u3400-\u9fff]+")


def parse_answer(text: str) -> Answer | None:
    """``"yes"``, ``"no"``, or None when the answer is not clear."""
    norm = " ".join(_PUNCT.sub(" ", text.lower().replace("’", "'")).split())
    if not norm or any(f" {idiom} " in f" {norm} " for idiom in _UNCLEAR_IDIOMS):
        return None
    for phrase, token in _PHRASES.items():
        norm = re.sub(rf"\b{phrase}\b", token, norm)
    tokens: list[str] = []
    for word in norm.split():
        tokens.extend(_split_cjk(word) if _CJK.search(word) else [word])
    yes = any(t in _YES for t in tokens)
    no = any(t in _NO for t in tokens)
    if yes and no:
        return None
    if no:
        return "no"
    if yes and all(t in _YES or t in _FILLER for t in tokens):
        return "yes"
    return None


def _split_cjk(word: str) -> list[str]:
    """Longest known word first; an unknown character is a token of its own
    (so "可以吗" is 可以 + 吗, and 吗 makes it unclear)."""
    out: list[str] = []
    i = 0
    while i < len(word):
        for known in _CJK_WORDS:
            if word.startswith(known, i):
                out.append(known)
                i += len(known)
                break
        else:
            out.append(word[i])
            i += 1
    return out
