"""Markdown source as a one-line plain label: the sidebar's
titles and search snippets show "Run date", not "Run `date`".

Only what a label needs: block markers at a line's start (headings,
quotes, list markers, fences), code spans, backslash escapes, links and
images, autolinks, and ``*``/``_``/``~~`` emphasis paired as CommonMark
pairs them (so a lone ``2*3`` stays). Whitespace runs become one space.

Each character of the result remembers where it came from in the source
(:attr:`PlainText.origins`), because search matches the raw text: a match
found there is marked on the characters shown (:meth:`PlainText.span`).
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from dataclasses import dataclass

_BLOCK_MARKER = re.compile(
    r" {0,3}(?:>[ \t]?)*"  # quotes
    r"(?:#{1,6}(?=[ \t]|$)[ \t]*|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+)?"  # heading, item
)
"""Quote, heading, bullet (with a task box) or number at a line's start."""
_FENCE = re.compile(r" {0,3}(?:`{3,}|~{3,})")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
_PUNCTUATION = frozenset(string.punctuation)
"""ASCII only: CommonMark also counts "。" or "，" as punctuation, so that
``**你好。**世界`` stays unpaired there (a known gap for Chinese); a label
shows what the writer meant."""
_EMPHASIS = "*_~"


@dataclass(frozen=True, slots=True)
class PlainText:
    text: str
    """What a label shows."""
    origins: tuple[int, ...]
    """For each character of :attr:`text`, its index in the source (increasing)."""

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The part of :attr:`text` shown for source ``[start, end)``; None
        when none of it is shown (a match on mark-up alone)."""
        first, stop = bisect_left(self.origins, start), bisect_left(self.origins, end)
        return (first, stop) if first < stop else None


@dataclass(slots=True)
class _Atom:
    char: str
    origin: int
    literal: bool = False
    """Inside a code span or escaped: no further mark-up applies."""
    gone: bool = False


def plain(markdown: str) -> str:
    """``markdown`` as a one-line plain label."""
    return to_plain(markdown).text


def to_plain(markdown: str) -> PlainText:
    """``markdown`` as a one-line plain label, with each character's origin."""
    atoms = _lines(markdown)
    _code_and_escapes(atoms)
    atoms = [a for a in atoms if not a.gone]
    _links(atoms)
    atoms = [a for a in atoms if not a.gone]
    _emphasis(atoms)
    return _collapse([a for a in atoms if not a.gone])


def _lines(source: str) -> list[_Atom]:
    """The source without the block markers at each line's start (and a
    heading's closing hashes), nor fence lines."""
    atoms: list[_Atom] = []
    at = 0
    for line in source.split("\n"):
        if not _FENCE.match(line):
            marker = _BLOCK_MARKER.match(line)
            start = marker.end() if marker else 0
            end = len(line)
            if marker and marker.group(0).rstrip(" \t").endswith("#"):
                end = len(line.rstrip(" \t").rstrip("#"))
            atoms += [_Atom(line[i], at + i) for i in range(start, max(start, end))]
        atoms.append(_Atom("\n", at + len(line)))
        at += len(line) + 1
    return atoms[:-1]


def _code_and_escapes(atoms: list[_Atom]) -> None:
    """Code spans keep their words (one space either side trimmed, as
    CommonMark does); a backslash before punctuation goes."""
    i = 0
    while i < len(atoms):
        char = atoms[i].char
        if char == "\\" and i + 1 < len(atoms) and atoms[i + 1].char in _PUNCTUATION:
            atoms[i].gone, atoms[i + 1].literal = True, True
            i += 2
            continue
        if char != "`":
            i += 1
            continue
        run = _run(atoms, i, "`")
        close = _closing_backticks(atoms, i + run, run)
        if close < 0:
            for atom in atoms[i : i + run]:
                atom.literal = True  # no closer: the backticks are text
            i += run
            continue
        for atom in atoms[i : i + run] + atoms[close : close + run]:
            atom.gone = True
        inner = atoms[i + run : close]
        for atom in inner:
            atom.literal = True
        padded = len(inner) > 2 and inner[0].char in " \n" and inner[-1].char in " \n"
        if padded and any(a.char != " " for a in inner):
            inner[0].gone = inner[-1].gone = True
        i = close + run


def _run(atoms: list[_Atom], i: int, char: str) -> int:
    n = 0
    while i + n < len(atoms) and atoms[i + n].char == char and not atoms[i + n].literal:
        n += 1
    return n


def _closing_backticks(atoms: list[_Atom], i: int, length: int) -> int:
    while i < len(atoms):
        if atoms[i].char == "`":
            run = _run(atoms, i, "`")
            if run == length:
                return i
            i += run
        else:
            i += 1
    return -1


def _links(atoms: list[_Atom]) -> None:
    """``[text](url)`` and ``![alt](url)`` keep their text; ``<url>`` its url."""
    text = "".join("\0" if a.literal else a.char for a in atoms)
    for match in _AUTOLINK.finditer(text):
        atoms[match.start()].gone = atoms[match.end() - 1].gone = True
    # Paired once, up front: a scan to the end for each unclosed "[" made
    # "[a " * 3000 take a second. What a link marks gone below is its
    # "](...)" (balanced) and a bracket in its text pairs inside it, so the
    # pairs found here are those a scan at each step would find.
    brackets, parens = _pairs(atoms, "[", "]"), _pairs(atoms, "(", ")")
    for i, atom in enumerate(atoms):
        if atom.char != "[" or atom.literal or atom.gone:
            continue
        close = brackets.get(i, -1)
        if close < 0 or close + 1 >= len(atoms) or atoms[close + 1].char != "(" or atoms[close + 1].literal:
            continue
        end = parens.get(close + 1, -1)
        if end < 0:
            continue
        for gone in [atom, *atoms[close : end + 1]]:
            gone.gone = True
        if i > 0 and atoms[i - 1].char == "!" and not atoms[i - 1].literal:
            atoms[i - 1].gone = True


def _pairs(atoms: list[_Atom], opening: str, closing: str) -> dict[int, int]:
    """Each ``opening`` (neither literal nor gone) to its ``closing``, nested
    pairs counted; one left unclosed is not in it."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for j, atom in enumerate(atoms):
        if atom.literal or atom.gone:
            continue
        if atom.char == opening:
            stack.append(j)
        elif atom.char == closing and stack:
            pairs[stack.pop()] = j
    return pairs


@dataclass(slots=True)
class _Run:
    char: str
    start: int
    """Index of its first atom still standing."""
    count: int
    opens: bool
    closes: bool
    original: int


def _emphasis(atoms: list[_Atom]) -> None:
    """Pair ``*``, ``_`` and ``~~`` runs by CommonMark's delimiter rules
    (flanking, the rule of three); unpaired ones stay as text."""
    runs: list[_Run] = []
    i = 0
    while i < len(atoms):
        char = atoms[i].char
        if char not in _EMPHASIS or atoms[i].literal:
            i += 1
            continue
        n = _run(atoms, i, char)
        before = atoms[i - 1].char if i > 0 else " "
        after = atoms[i + n].char if i + n < len(atoms) else " "
        space_or_mark_before = before.isspace() or before in _PUNCTUATION
        space_or_mark_after = after.isspace() or after in _PUNCTUATION
        left = not after.isspace() and (after not in _PUNCTUATION or space_or_mark_before)
        right = not before.isspace() and (before not in _PUNCTUATION or space_or_mark_after)
        if char == "_":
            opens = left and (not right or before in _PUNCTUATION)
            closes = right and (not left or after in _PUNCTUATION)
        else:
            opens, closes = left, right
        if char != "~" or n == 2:
            runs.append(_Run(char, i, n, opens, closes, n))
        i += n
    stack: list[_Run] = []
    for run in runs:
        while run.closes and run.count:
            opener = next((o for o in reversed(stack)
                           if o.char == run.char and o.count and _may_pair(o, run)), None)
            if opener is None:
                break
            use = 2 if opener.count >= 2 and run.count >= 2 else 1
            for atom in atoms[opener.start + opener.count - use : opener.start + opener.count]:
                atom.gone = True
            for atom in atoms[run.start : run.start + use]:
                atom.gone = True
            opener.count -= use
            run.start += use
            run.count -= use
            del stack[stack.index(opener) + 1 :]  # runs between them are text now
        if run.opens and run.count:
            stack.append(run)


def _may_pair(opener: _Run, closer: _Run) -> bool:
    """CommonMark's rule of three (``*a**b*`` is not ``<em>a</em>b*``)."""
    if opener.char == "~":
        return True
    both = (opener.opens and opener.closes) or (closer.opens and closer.closes)
    if not both:
        return True
    total = opener.original + closer.original
    return total % 3 != 0 or (opener.original % 3 == 0 and closer.original % 3 == 0)


def _collapse(atoms: list[_Atom]) -> PlainText:
    chars: list[str] = []
    origins: list[int] = []
    for atom in atoms:
        if atom.char.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                origins.append(atom.origin)
            continue
        chars.append(atom.char)
        origins.append(atom.origin)
    if chars and chars[-1] == " ":
        chars.pop()
        origins.pop()
    return PlainText("".join(chars), tuple(origins))
