"""What an utterance heard over the assistant (barge-in) or hands-free
amounts to: words to send, a request to stop talking, or noise.

Recognisers turn a cough, a breath or a click into something: an empty
string, a lone filler ("um", "嗯"), a bracketed note ("[cough]",
"(laughs)", "*sighs*"), or one stray word. None of that may start a turn.
The rules, English and Chinese:

- Bracketed notes, punctuation and fillers are dropped first.
- What is left, counted in words (a Chinese character counts as one), must
  reach ``min_words`` for a barge-in to become a turn; hands-free speech
  (nobody was talking over the assistant) needs only one.
- An utterance that only asks the assistant to stop or wait ("wait, stop
  talking please", "be quiet", "别说了", "等一下") is a stop: the speech
  it interrupted stays stopped and nothing is sent — the model has nothing
  to answer in it. "Thank you" alone is one too (and is what Whisper
  often makes of a breath).
"""

from __future__ import annotations

import re
from typing import Literal

Heard = Literal["turn", "stop", "noise"]

FILLERS = frozenset(
    "um umm uh uhh uh-huh hmm hm mm mhm er erm ah oh eh huh ha "
    "嗯 啊 呃 哦 噢 额 唉 哎 诶 欸 嘛 呀 哈 呵 嗯嗯 啊啊".split()
)
_STOP_WORDS = frozenset(
    "stop wait hold on quiet shush shh hush enough pause please ok okay sorry hey thanks thank you "
    "talking speaking now be that's it a moment second minute up shut "
    "停 停下 停止 等 等等 等一下 等一等 别说了 别说 不要说了 安静 闭嘴 暂停 够了 好了 请 一下 先".split()
)
_CJK_STOP = sorted((w for w in _STOP_WORDS | FILLERS if not w.isascii()), key=len, reverse=True)
_STOP_CORE = frozenset("stop wait hold quiet shush shh hush enough pause shut thanks thank 停 停下 停止 等 等等 等一下 等一等 "
                       "别说了 别说 不要说了 安静 闭嘴 暂停 够了".split())
"""At least one of these must be said for a stop (not "ok please")."""
_NOTES = re.compile(r"\[[^\]]*\]|\([^)]*\)|（[^）]*）|\*[^*]*\*|【[^】]*】|♪+")
_WORD = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*|[\u3400-\u9fff]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def words(text: str) -> list[str]:
    """The words of ``text`` that count: notes, punctuation and fillers
    dropped; each Chinese character one word."""
    plain = _NOTES.sub(" ", text.lower().replace("’", "'"))
    out: list[str] = []
    for run in _CJK_RUN.split(plain):
        out.extend(w for w in _WORD.findall(run) if w not in FILLERS)
    for run in _CJK_RUN.findall(plain):
        out.extend(ch for ch in _strip_cjk_fillers(run))
    return out


def _strip_cjk_fillers(run: str) -> str:
    return "".join(ch for ch in run if ch not in FILLERS)


def is_stop(text: str) -> bool:
    """Only a request to stop or wait (with politeness and fillers)."""
    plain = _NOTES.sub(" ", text.lower().replace("’", "'"))
    tokens: list[str] = []
    for piece in re.findall(r"[a-z']+|[\u3400-\u9fff]+", plain):
        tokens.extend(_split_cjk(piece) if _CJK_RUN.fullmatch(piece) else [piece])
    tokens = [t for t in tokens if t not in FILLERS]
    return bool(tokens) and all(t in _STOP_WORDS for t in tokens) and any(t in _STOP_CORE for t in tokens)


def _split_cjk(run: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(run):
        known = next((w for w in _CJK_STOP if run.startswith(w, i)), run[i])
        out.append(known)
        i += len(known)
    return out


def judge(text: str, min_words: int = 1) -> Heard:
    """``turn`` (send it), ``stop`` (a request to stop talking) or ``noise``."""
    if is_stop(text):
        return "stop"
    return "turn" if len(words(text)) >= max(1, min_words) else "noise"
