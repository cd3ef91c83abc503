"""Split streamed LLM text into display/speech segments (contracts §3).

Segments are cut as soon as the text seen so far decides the cut, and never
earlier: every rule below looks only at content, never at where a chunk
happened to end, so any chunking of a reply gives the same segments as
feeding it whole. That is what lets speech start on the first clause while
the model is still typing, without a tag split across chunks (``"<need_"`` +
``"tool>"``) ever reaching the screen.

Rules, on the content:

- A sentence ends after a run of ``。！？!?…`` / newline, together with any
  further enders, dots, closing quotes/brackets and intent tags right after it
  (``?!``, ``。”``, ``.)``, ``好。<no_tool>``). A run of only dots and closers
  ends a sentence only when whitespace, a tag or the end of the stream
  follows, so ``3.14`` and ``e.g.x`` survive.
- Until the parser has emitted its first segment, that segment may also end
  after ``，；：`` or after ``,;:`` followed by whitespace (so ``1,000`` stays
  whole), once it holds ``first_clause_min_chars`` visible characters.
- ``<voice>`` starts a new segment and ``</voice>`` ends one, so ``voice`` is
  exact per segment. Intent tags are not boundaries; they stay in ``raw_text``.
- A trailing ``<`` that could still grow into a control tag is held back; one
  that cannot (``a < b``, ``<div>``) is text at once.

Segments keep the reply's shape: ``text`` is the segment's exact slice with
control tags removed, spaces and newlines included, so joining every
segment's ``text`` gives the reply as the user should see it (a Markdown list
after a spoken sentence keeps its line break). A finished sentence takes
along the whitespace and intent tags that follow it (``"Done. <no_tool>"``
is one segment, ``"Hi. "`` keeps its space), so the next segment starts with
visible text; the cut waits for that text (or the end of the stream). A
piece that would hold only whitespace and tags any other way
(``"<voice>\n</voice>"``) is carried into the next segment; only a stream
with nothing visible at all can end in such a segment. ``raw_text`` is the
exact slice, tags included, so the segments' ``raw_text`` joined is the
whole stream.

The parser does no I/O and keeps only the unfinished segment: ``feed()`` scans
each character a bounded number of times, with C-level regex searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

INTENT_TAGS: dict[str, bool] = {"<no_tool>": True, "<need_tool>": False}
"""Intent tag → ``skip_agent_loop`` (contracts §2): a table, so a new tag is
one entry, not a new branch."""

VOICE_OPEN: Final = "<voice>"
VOICE_CLOSE: Final = "</voice>"
CONTROL_TAGS: tuple[str, ...] = (VOICE_OPEN, VOICE_CLOSE, *INTENT_TAGS)

_MAX_TAG_LEN = max(len(tag) for tag in CONTROL_TAGS)
_TAG_RE = re.compile("|".join(re.escape(tag) for tag in CONTROL_TAGS))
_INTENT_RE = re.compile("|".join(re.escape(tag) for tag in INTENT_TAGS))

_STRONG = "。！？!?…\n"
_CLOSERS = "\"'”’)）]】」』》"
_FULLWIDTH_CLAUSE = "，；："
_ASCII_CLAUSE = ",;:"
# Where the scanner has something to decide; everything else is plain text.
_INTEREST_RE = re.compile(f"[<.{re.escape(_STRONG)}]")
_INTEREST_EARLY_RE = re.compile(f"[<.{re.escape(_STRONG + _FULLWIDTH_CLAUSE + _ASCII_CLAUSE)}]")
# The tail of a sentence end: enders, dots, closers and intent tags.
_RUN_RE = re.compile(f"(?:[.{re.escape(_STRONG + _CLOSERS)}]|{_INTENT_RE.pattern})*")
_FIRM_RE = re.compile(f"[<{re.escape(_STRONG)}]")
# What a finished sentence takes along: the whitespace and intent tags after it.
_TRAIL_RE = re.compile(f"(?:\\s|{_INTENT_RE.pattern})*")


def _strip_all(pattern: re.Pattern[str], text: str) -> str:
    # Repeat: removing "<no_tool>" from "<voi<no_tool>ce>" makes a new tag.
    text, count = pattern.subn("", text)
    while count:
        text, count = pattern.subn("", text)
    return text


def strip_tags(text: str) -> str:
    """Remove every complete control tag; a dangling partial one stays."""
    return _strip_all(_TAG_RE, text)


def strip_intent_tags(text: str) -> str:
    """Remove ``<no_tool>``/``<need_tool>`` only: assistant messages keep ``<voice>``."""
    return _strip_all(_INTENT_RE, text)


def has_voice_tag(text: str) -> bool:
    """Whether ``text`` holds ``<voice>``, looking past intent tags."""
    return VOICE_OPEN in strip_intent_tags(text)


def detect_intent(text: str) -> bool | None:
    """``skip_agent_loop`` for the last intent tag in ``text``; None without one."""
    best, found = -1, None
    for tag, skip in INTENT_TAGS.items():
        at = text.rfind(tag)
        if at > best:
            best, found = at, skip
    return found


def _partial_tag_len(text: str) -> int:
    """Length of the trailing piece of ``text`` that could still become a control tag."""
    at = text.rfind("<", max(0, len(text) - _MAX_TAG_LEN + 1))
    if at < 0:
        return 0
    tail = text[at:]
    return len(tail) if any(tag.startswith(tail) for tag in CONTROL_TAGS) else 0


@dataclass(frozen=True, slots=True)
class Segment:
    """One display/speech unit of a reply.

    ``text`` is exact: it may begin or end with whitespace (the space after
    the previous sentence, a list's line break), because the UI joins
    segments back into Markdown. Speech wants ``spoken`` instead.
    """

    text: str
    """The slice with control tags removed, every space and newline kept.
    Holds visible text, except when the whole stream had none (``flush()``
    then returns its whitespace, or ``""`` for a lone ``<need_tool>``)."""
    raw_text: str
    """The same slice of the stream, tags included, as it came."""
    voice: bool
    """Inside a ``<voice>`` span (or the parser speaks everything)."""

    @property
    def spoken(self) -> str:
        """``text`` trimmed for speech; ``""`` when there is nothing to say."""
        return self.text.strip()


_PARTIAL: Final = ""  # _tag_at: "could still become a tag"


class StreamParser:
    """Incremental splitter: ``feed()`` chunks, then ``flush()`` at stream end."""

    def __init__(
        self,
        *,
        speak_everything: bool = False,
        early_first_clause: bool = True,
        first_clause_min_chars: int = 6,
    ) -> None:
        if isinstance(first_clause_min_chars, bool) or not isinstance(first_clause_min_chars, int):
            raise TypeError(f"first_clause_min_chars must be an int, got {first_clause_min_chars!r}")
        if first_clause_min_chars < 0:
            raise ValueError(f"first_clause_min_chars must be >= 0, got {first_clause_min_chars}")
        self._speak_everything = speak_everything
        self._min_chars = first_clause_min_chars
        self._early = early_first_clause
        self._raw: list[str] = []
        self._emitted_any = False
        self._reset_stream()

    def _reset_stream(self) -> None:
        self._buf = ""  # the unfinished segment's raw text
        self._pos = 0  # everything in _buf before this is decided
        self._voice = False
        self._in_run = False  # _pos is inside a sentence-end run
        self._run_firm = False  # that run holds an ender or a tag: it ends the sentence
        self._clause_ready = False  # the unfinished first segment has enough visible chars
        # Whitespace-and-tags pieces waiting for the next segment: raw, shown.
        self._carry_raw = ""
        self._carry_text = ""

    @property
    def full_raw_text(self) -> str:
        """Everything fed so far, tags included (intent detection reads it)."""
        if len(self._raw) > 1:
            self._raw = ["".join(self._raw)]
        return self._raw[0] if self._raw else ""

    @property
    def emitted_any(self) -> bool:
        return self._emitted_any

    def feed(self, chunk: str) -> list[Segment]:
        """Take the next piece of the stream; return the segments it completes."""
        if not isinstance(chunk, str):
            raise TypeError(f"StreamParser.feed() takes str, got {type(chunk).__name__}")
        if not chunk:
            return []
        self._raw.append(chunk)
        buf, self._buf = self._buf, ""
        buf += chunk  # sole reference: CPython can grow it in place
        self._buf = buf
        out: list[Segment] = []
        self._scan(out, final=False)
        return out

    def flush(self) -> list[Segment]:
        """End of stream: emit what is left (an unclosed ``<voice>`` runs to the end).

        A trailing partial tag (a stream cut off inside ``<need_``) stays in
        ``raw_text`` but is kept out of ``text``. The parser may then take a
        new stream; only its first segment ever gets the early-clause cut.
        """
        out: list[Segment] = []
        self._scan(out, final=True)
        buf = self._buf
        if buf:
            self._emit(out, buf, buf[: len(buf) - _partial_tag_len(buf)])
        if self._carry_raw:  # nothing visible followed: the blank tail comes out alone
            segment = Segment(self._carry_text, self._carry_raw, self._voice or self._speak_everything)
            out.append(segment)
        self._reset_stream()
        return out

    # ------------------------------------------------------------------ scanning

    def _scan(self, out: list[Segment], *, final: bool) -> None:
        while True:
            buf, pos = self._buf, self._pos
            if self._in_run:
                run = _RUN_RE.match(buf, pos)
                end = run.end() if run else pos
                if not self._run_firm and _FIRM_RE.search(buf, pos, end):
                    self._run_firm = True
                self._pos = end
                if buf.startswith(VOICE_CLOSE, end):
                    if not self._cut_with_trail(out, end + len(VOICE_CLOSE), final, voice_after=False):
                        return
                    continue
                if end == len(buf):
                    if not final:
                        return
                    self._cut(out, end)
                    continue
                tag = self._tag_at(buf, end)
                if tag == _PARTIAL and not final:
                    return
                if self._run_firm or buf[end].isspace() or tag == VOICE_OPEN:
                    if not self._cut_with_trail(out, end, final):
                        return
                    continue
                self._in_run = False
                continue

            regex = _INTEREST_EARLY_RE if self._early and not self._emitted_any else _INTEREST_RE
            match = regex.search(buf, pos)
            if match is None:
                self._pos = len(buf)
                return
            at = match.start()
            char = buf[at]
            if char == "<":
                tag = self._tag_at(buf, at)
                if tag is None or (tag == _PARTIAL and final):
                    self._pos = at + 1
                elif tag == _PARTIAL:
                    self._pos = at
                    return
                elif tag == VOICE_OPEN:
                    self._cut(out, at)
                    self._pos = len(VOICE_OPEN)
                    self._voice = True
                elif tag == VOICE_CLOSE:
                    if not self._cut_with_trail(out, at + len(VOICE_CLOSE), final, voice_after=False):
                        self._pos = at
                        return
                else:
                    self._pos = at + len(tag)
            elif char in _FULLWIDTH_CLAUSE or char in _ASCII_CLAUSE:
                if char in _ASCII_CLAUSE:
                    if at + 1 == len(buf) and not final:
                        self._pos = at
                        return
                    if at + 1 < len(buf) and not buf[at + 1].isspace():
                        self._pos = at + 1
                        continue
                if not self._clause_ready:
                    self._clause_ready = len(strip_tags(buf[: at + 1]).strip()) >= self._min_chars
                if self._clause_ready:
                    self._cut(out, at + 1)
                else:
                    self._pos = at + 1
            else:
                self._in_run = True
                self._run_firm = char != "."
                self._pos = at

    def _tag_at(self, buf: str, at: int) -> str | None:
        """The control tag starting at ``buf[at]`` (a ``<``), ``_PARTIAL`` or None."""
        for tag in CONTROL_TAGS:
            if buf.startswith(tag, at):
                return tag
        if len(buf) - at < _MAX_TAG_LEN:
            tail = buf[at:]
            if any(tag.startswith(tail) for tag in CONTROL_TAGS):
                return _PARTIAL
        return None

    def _cut_with_trail(
        self, out: list[Segment], end: int, final: bool, *, voice_after: bool | None = None
    ) -> bool:
        """End the segment at ``end`` together with the whitespace and intent
        tags that follow it (``"Done. <no_tool>"`` is one segment), and a
        ``</voice>`` right after them. False, cutting nothing, while the
        buffer ends inside that trail: the next chunk decides."""
        buf = self._buf
        while True:
            trail = _TRAIL_RE.match(buf, end)
            stop = trail.end() if trail else end
            if not final and (stop == len(buf) or self._tag_at(buf, stop) == _PARTIAL):
                return False
            if voice_after is None and self._voice and buf.startswith(VOICE_CLOSE, stop):
                end, voice_after = stop + len(VOICE_CLOSE), False
                continue
            break
        self._cut(out, stop, voice_after=voice_after)
        return True

    def _cut(self, out: list[Segment], end: int, *, voice_after: bool | None = None) -> None:
        """End the unfinished segment at ``end``; the rest of the buffer starts the next."""
        raw = self._buf[:end]
        self._buf = self._buf[end:]
        self._pos = 0
        self._in_run = False
        self._clause_ready = False
        if raw:
            self._emit(out, raw, raw)
        if voice_after is not None:
            self._voice = voice_after

    def _emit(self, out: list[Segment], raw: str, visible: str) -> None:
        text = strip_tags(visible)
        if not text.strip():  # nothing to show alone: it opens the next segment
            self._carry_raw += raw
            self._carry_text += text
            return
        raw, self._carry_raw = self._carry_raw + raw, ""
        text, self._carry_text = self._carry_text + text, ""
        out.append(Segment(text, raw, self._voice or self._speak_everything))
        self._emitted_any = True
