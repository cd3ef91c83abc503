"""``docs/contracts.md`` is the repository's copy of the design's contracts,
with the design's section numbers. Code comments point into it as
``contracts §N``; these tests keep the page and the code from drifting apart:
every cited section exists, §5 lists exactly the bus message types the code
defines, and §10 lists exactly the flags the command line accepts."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
import typing
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from desktop_agent.core.messages import BusMessage
from desktop_agent.options import build_parser

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = ROOT / "docs" / "contracts.md"
CITING_TREES = ("desktop_agent", "tests", "benchmarks")

_HEADING = re.compile(r"^## (\d+[a-z]?)\. ", re.MULTILINE)
_CITATION = re.compile(r"contracts §(\d+[a-z]?)((?:, ?§\d+[a-z]?)*)")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*[a-z]")


def _sections() -> dict[str, str]:
    """Section number → the section's text (heading to the next heading)."""
    text = CONTRACTS.read_text(encoding="utf-8")
    marks = list(_HEADING.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return {m.group(1): text[m.start():end] for m, end in zip(marks, ends, strict=True)}


def _tracked_files(*trees: str) -> list[Path]:
    """The files git tracks under ``trees`` (build outputs and caches are not
    the project's text)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", *trees], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout
    return [ROOT / name for name in out.split("\0") if name and (ROOT / name).is_file()]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # images, audio fixtures
        return None


def test_contracts_page_numbers_its_sections_as_the_design_does() -> None:
    assert list(_sections()) == ["1", "2", "2a", "3", "4", "5", "6", "7", "8", "9", "10", "11"]


def test_every_cited_contracts_section_exists() -> None:
    sections = set(_sections())
    missing: list[str] = []
    cited: set[str] = set()
    for path in _tracked_files(*CITING_TREES):
        text = _text(path)
        if text is None:
            continue
        for match in _CITATION.finditer(text):
            numbers = [match.group(1), *re.findall(r"§(\d+[a-z]?)", match.group(2))]
            cited.update(numbers)
            line = text.count("\n", 0, match.start()) + 1
            missing += [f"{path.relative_to(ROOT)}:{line}: §{n}" for n in numbers if n not in sections]
    assert missing == []
    assert cited  # the scan found the citations at all


def test_section_5_lists_exactly_the_bus_message_types_the_code_defines() -> None:
    listed: set[str] = set()
    for row in re.findall(r"^\|([^|\n]*)\|", _sections()["5"], re.MULTILINE):
        listed.update(re.findall(r"`(\w+)`", row))
    defined = {
        next(f.default for f in fields(cls) if f.name == "type")
        for cls in typing.get_args(BusMessage)
    }
    assert listed == defined


def test_section_10_lists_exactly_the_flags_the_command_line_accepts() -> None:
    section = _sections()["10"]
    planned_text = section.split("Planned, not built yet", 1)[1].split(".", 1)[0]
    planned = set(_FLAG.findall(planned_text))
    documented = set(_FLAG.findall(section))
    accepted = {
        option
        for action in build_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }
    assert planned & accepted == set()
    assert documented - planned == accepted


# A comment says what the code does and why, or points into this repository
# (docs/contracts.md §N, docs/ARCHITECTURE.md); a tracker's issue number or a
# document outside the repository means nothing to whoever reads the code.
_OUTSIDE_CITATIONS = {
    "an issue number": re.compile(r"\bissues? ?#?\d+|\(#\d+\)", re.IGNORECASE),
    "the seed documents": re.compile(r"(?<!\{)\bseed(?:s|'s)?\b(?!\})", re.IGNORECASE),
    "the design document outside the repository": re.compile(r"\bDESIGN\b"),
    "the stack or style notes outside the repository": re.compile(r"\b(?:STACK|STYLE)\.md\b"),
}
_COMMENT_TREES = ("desktop_agent", "tests", "benchmarks", "scripts")


def _prose(path: Path, text: str) -> Iterator[tuple[int, str]]:
    """(line, text) of what a person reads as prose: a Python file's comments
    and strings (docstrings included, code not: a variable may be called
    ``seed``), every line of any other text file."""
    if path.suffix != ".py":
        yield from enumerate(text.splitlines(), start=1)
        return
    kinds = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in kinds:
            for offset, line in enumerate(token.string.splitlines()):
                yield token.start[0] + offset, line


def test_no_comment_cites_an_issue_number_or_a_document_outside_the_repository() -> None:
    found: list[str] = []
    for path in _tracked_files(*_COMMENT_TREES):
        name = path.relative_to(ROOT).as_posix()
        text = _text(path)
        if text is None or path == Path(__file__).resolve():
            continue
        for line, prose in _prose(path, text):
            found += [
                f"{name}:{line}: cites {what}: {prose.strip()}"
                for what, pattern in _OUTSIDE_CITATIONS.items()
                if pattern.search(prose)
            ]
    assert found == []
