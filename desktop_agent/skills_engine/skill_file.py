"""One ``SKILL.md`` (contracts §9, the open Agent Skills format): YAML front
matter between ``---`` lines, then a Markdown body.

Front matter fields: ``name`` (required, ``[a-z0-9-]``, at most 64
characters, equal to the folder name), ``description`` (required, at most
1024 characters), optional ``license``, ``compatibility``, ``metadata``,
``allowed-tools``. Anything else is tolerated (other hosts add their own
keys) but unused. ``allowed-tools`` is read and kept, never acted on: it
never lets a tool skip approval.

A file that breaks the format is a :class:`SkillFormatError` naming the
file and the one field at fault, so the scanner can say it in one line.

A skill folder is anyone's download, so SKILL.md is read as any file named
inside user data is (:mod:`desktop_agent.storage.user_files`): it must
resolve, symlinks followed, inside its own folder (a link to
``~/.ssh/id_rsa`` would otherwise become the body ``get_skill`` hands the
model), be a regular file (a named pipe would hang start-up) and be at most
:data:`SKILL_FILE_LIMIT` (its body is resent with every later request). Its
front matter is parsed by :mod:`.front_matter`, which no YAML can crash.
"""

from __future__ import annotations

import errno as errno_codes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop_agent.skills_engine.front_matter import MAX_DEPTH, FrontMatterError, load_front_matter
from desktop_agent.storage.user_files import UserFileError, inside, read_user_text

SKILL_FILE = "SKILL.md"
SKILL_FILE_LIMIT = 256 << 10
"""Bytes: the most of a SKILL.md that is read."""
NAME_MAX = 64
DESCRIPTION_MAX = 1024
_NAME = re.compile(r"[a-z0-9-]+")
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)

SkillSource = Literal["bundled", "user"]


SkillProblemCode = Literal[
    "file_not_utf8",
    "file_unreadable",
    "file_outside",
    "file_not_regular",
    "file_too_large",
    "front_matter_missing",
    "front_matter_yaml",
    "front_matter_yaml_at",
    "front_matter_too_deep",
    "front_matter_alias",
    "front_matter_not_mapping",
    "missing",
    "not_string",
    "empty",
    "too_long",
    "name_chars",
    "name_folder",
    "not_mapping",
    "allowed_tools_type",
]
"""Each kind of format problem; the window words one as
``skill_problem_<code>`` in its own language (the warning stays English)."""


class SkillFormatError(ValueError):
    """A SKILL.md that breaks the format: ``field`` says which part.

    ``str(exc)`` is the English line the log and headless mode print;
    ``code`` and ``fields`` (``path``, ``field`` and the values the line
    quotes: ``got``, ``limit``, ``folder``, ``line``, ``error``) let the
    window say the same in its language."""

    def __init__(
        self, path: Path, field_name: str, problem: str, code: SkillProblemCode, **values: object
    ) -> None:
        super().__init__(f"skill {path}: {field_name} {problem}")
        self.path = path
        self.field = field_name
        self.problem = problem
        self.code: SkillProblemCode = code
        self.fields: dict[str, object] = {"path": str(path), "field": field_name, **values}


DESCRIPTION_ZH = "description-zh"
"""The ``metadata`` key of a skill's Chinese description: the format's
``metadata`` is a free map of strings, so a SKILL.md with it stays valid for
every other host, which ignores it."""


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill that passed the format checks."""

    name: str
    description: str
    body: str
    """The Markdown after the front matter, as written."""
    path: Path
    """The skill's folder."""
    source: SkillSource
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()
    """Declared by the skill; informational only (never skips approval)."""

    @property
    def file(self) -> Path:
        return self.path / SKILL_FILE

    @property
    def description_zh(self) -> str:
        """The description in Chinese, for the window (``metadata.description-zh``,
        :data:`DESCRIPTION_ZH`); empty when the skill has none. The model always
        reads :attr:`description`."""
        value = self.metadata.get(DESCRIPTION_ZH)
        return value.strip()[:DESCRIPTION_MAX] if isinstance(value, str) else ""

    def files(self) -> list[str]:
        """Every file of the skill, as paths relative to its folder (sorted,
        ``/``-separated), SKILL.md included. A link that leads outside the
        folder is left out: the model is told only of files that are the
        skill's own."""
        found = [p.relative_to(self.path).as_posix() for p in self.path.rglob("*") if _own_file(p, self.path)]
        return sorted(f for f in found if not any(part.startswith(".") for part in f.split("/")))


def _own_file(path: Path, folder: Path) -> bool:
    try:
        inside(path, folder)
    except UserFileError:
        return False
    return path.is_file()


def read_skill(folder: Path, source: SkillSource) -> Skill:
    """Parse and check ``folder/SKILL.md``. Raises :class:`SkillFormatError`."""
    path = folder / SKILL_FILE
    try:
        text = read_user_text(path, limit=SKILL_FILE_LIMIT, within=folder)
    except UserFileError as exc:
        raise _file_error(path, exc) from None
    match = _FRONT.match(text)
    if match is None:
        raise SkillFormatError(
            path, "front matter", "is missing (the file must start with a --- block)", "front_matter_missing"
        )
    try:
        data = load_front_matter(match.group(1))
    except FrontMatterError as exc:
        raise _front_matter_error(path, exc) from None
    if not isinstance(data, dict):
        raise SkillFormatError(
            path, "front matter", "must be a YAML mapping of fields", "front_matter_not_mapping"
        )
    return Skill(
        name=_name(path, data, folder.name),
        description=_text(path, data, "description", DESCRIPTION_MAX, required=True) or "",
        body=text[match.end() :].strip("\n"),
        path=folder,
        source=source,
        license=_text(path, data, "license", None, required=False),
        compatibility=_text(path, data, "compatibility", None, required=False),
        metadata=_metadata(path, data),
        allowed_tools=_allowed_tools(path, data),
    )


def _file_error(path: Path, exc: UserFileError) -> SkillFormatError:
    """Why SKILL.md was not read, as the skill's one problem."""
    match exc.code:
        case "not_utf8":
            return SkillFormatError(path, "file", "is not UTF-8 text", "file_not_utf8")
        case "outside":
            folder = exc.fields["folder"]
            return SkillFormatError(path, "file", f"is outside its folder {folder}", "file_outside", folder=folder)
        case "not_regular":
            return SkillFormatError(path, "file", "is not a regular file", "file_not_regular")
        case "too_large":
            limit = exc.fields["limit"]
            return SkillFormatError(path, "file", f"is larger than {limit}", "file_too_large", limit=limit)
        case "missing":  # found by the scan, so a link that names nothing
            why = os.strerror(errno_codes.ENOENT)
            return SkillFormatError(
                path, "file", f"cannot be read ({why})", "file_unreadable", error=why, errno=errno_codes.ENOENT
            )
        case "unreadable":
            why = str(exc.fields.get("error", exc.reason))
            errno = exc.fields.get("errno")
            return SkillFormatError(path, "file", f"cannot be read ({why})", "file_unreadable", error=why, errno=errno)


def _front_matter_error(path: Path, exc: FrontMatterError) -> SkillFormatError:
    line = None if exc.line is None else exc.line + 2  # 1-based, after the opening ---
    match exc.kind:
        case "too_deep":
            problem = f"is nested more than {MAX_DEPTH} levels deep (line {line})"
            return SkillFormatError(path, "front matter", problem, "front_matter_too_deep", limit=MAX_DEPTH, line=line)
        case "alias":
            problem = f"must not use YAML aliases (line {line})"
            return SkillFormatError(path, "front matter", problem, "front_matter_alias", line=line)
        case "yaml" if line is None:
            return SkillFormatError(path, "front matter", "is not valid YAML", "front_matter_yaml")
        case "yaml":
            problem = f"is not valid YAML (line {line})"
            return SkillFormatError(path, "front matter", problem, "front_matter_yaml_at", line=line)


def _name(path: Path, data: dict[Any, Any], folder: str) -> str:
    name = data.get("name")
    if name is None:
        raise SkillFormatError(path, "name", "is missing", "missing")
    if not isinstance(name, str):
        raise SkillFormatError(path, "name", "must be a string", "not_string")
    if not _NAME.fullmatch(name):
        raise SkillFormatError(
            path, "name", f"must use only a-z, 0-9 and '-', got {name!r}", "name_chars", got=name
        )
    if len(name) > NAME_MAX:
        raise _too_long(path, "name", NAME_MAX, len(name))
    if name != folder:
        raise SkillFormatError(
            path,
            "name",
            f"must equal the folder name {folder!r}, got {name!r}",
            "name_folder",
            folder=folder,
            got=name,
        )
    return name


def _text(path: Path, data: dict[Any, Any], key: str, limit: int | None, *, required: bool) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise SkillFormatError(path, key, "is missing", "missing")
        return None
    if not isinstance(value, str):
        raise SkillFormatError(path, key, "must be a string", "not_string")
    value = value.strip()
    if required and not value:
        raise SkillFormatError(path, key, "is empty", "empty")
    if limit is not None and len(value) > limit:
        raise _too_long(path, key, limit, len(value))
    return value


def _too_long(path: Path, key: str, limit: int, length: int) -> SkillFormatError:
    problem = f"must be at most {limit} characters, got {length}"
    return SkillFormatError(path, key, problem, "too_long", limit=limit, got=length)


def _metadata(path: Path, data: dict[Any, Any]) -> dict[str, Any]:
    value = data.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SkillFormatError(path, "metadata", "must be a mapping", "not_mapping")
    return {str(k): v for k, v in value.items()}


def _allowed_tools(path: Path, data: dict[Any, Any]) -> tuple[str, ...]:
    value = data.get("allowed-tools")
    if value is None:
        return ()
    # The spec writes it as one space-separated string; a YAML list is accepted too.
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SkillFormatError(
        path, "allowed-tools", "must be a space-separated string or a list of strings", "allowed_tools_type"
    )
