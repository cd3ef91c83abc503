"""Reads ``hooks.json`` and its prompt files (contracts §9).

Both folders — the bundled ``hooks/`` and ``<data>/hooks/`` — are read once,
when the services are built (off the event loop: ``build_services`` runs
this in a thread), prompts included; a turn never touches the disk for a
hook. A hook of the user's folder replaces a bundled one of the same name.

Nothing here raises for a bad file: a ``hooks.json`` that cannot be read or
parsed, an entry with a wrong field, a prompt file that is missing or empty
— each gives one warning naming the file (and the field), and everything
else loads. A folder with no ``hooks.json`` simply has no hooks.

Every file is read through :func:`~desktop_agent.storage.user_files.read_user_text`:
``hooks.json`` must be a regular file of at most 1 MB, and a prompt file a
regular file of at most 64 KB that resolves (symlinks followed) inside the
folder holding its ``hooks.json``. A ``prompt_file`` is written by whoever
wrote the hooks file, so ``"../secrets.json"`` or ``/etc/passwd`` would
otherwise be sent to the model with every request, and a named pipe would
hang start-up where no signal stops it.

A file of many broken entries does not bury the other warnings: the first
:data:`~desktop_agent.core.notice.SHOWN_PROBLEMS` of each ``hooks.json`` are warned about, then one line
counts the rest (the Settings page still lists every entry).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

from desktop_agent.core.hooks import CHECKPOINTS, HOOK_ROLES, Checkpoint, Hook, HookRole
from desktop_agent.core.notice import Notice, first_problems
from desktop_agent.storage.paths import bundled_dir, data_dir
from desktop_agent.storage.user_files import UserFileError, read_user_text

HookSource = Literal["bundled", "user"]
HOOKS_FILE = "hooks.json"
HOOKS_FILE_LIMIT = 1 << 20
"""Bytes: a ``hooks.json`` is a short list; more is not a hooks file."""
PROMPT_LIMIT = 64 << 10
"""Bytes: a prompt is resent with the requests of its checkpoint, so it stays small."""
"""Warnings per ``hooks.json`` before the rest are counted in one line."""

HookProblemCode = Literal[
    "duplicate",
    "checkpoint",
    "role",
    "not_bool",
    "prompt_file",
    "prompt_missing",
    "prompt_outside",
    "prompt_not_regular",
    "prompt_too_large",
    "prompt_unreadable",
    "prompt_not_utf8",
    "prompt_empty",
]
"""Each kind of problem a listed hook can have; the window words one as
``hook_problem_<code>`` in its own language (the warning stays English)."""


@dataclass(frozen=True, slots=True)
class HookInfo:
    """One hook as the Settings page lists it."""

    name: str
    checkpoint: str
    role: str
    persistent: bool
    enabled: bool
    """The file's ``enabled``, or the user's choice where they made one;
    always False for a broken hook."""
    source: HookSource
    problem: Notice | None = None
    """Why the hook cannot be used (it then never runs): the English warning,
    worded in the window by ``hook_problem_<code>`` with its fields (always
    ``file`` and ``name``; then ``field``, ``choices``, ``got``, ``prompt``
    ``error``, ``folder`` or ``limit`` as the code needs)."""


@dataclass(frozen=True, slots=True)
class HookCatalog:
    """Every hook found, in order (bundled first, then the user's), with the
    loaded prompt of each usable one."""

    entries: tuple[tuple[HookInfo, Hook | None], ...] = ()
    warnings: tuple[str, ...] = ()
    """One line per broken file or entry, each naming the file."""

    def infos(self, choices: Mapping[str, bool] | None = None) -> tuple[HookInfo, ...]:
        """Each hook, ``enabled`` as ``choices`` (name → on) override the file."""
        return tuple(_chosen(info, choices or {}) for info, _hook in self.entries)

    def enabled(self, choices: Mapping[str, bool] | None = None) -> tuple[Hook, ...]:
        """The hooks a turn uses, in file order."""
        return tuple(
            hook
            for info, hook in self.entries
            if hook is not None and _chosen(info, choices or {}).enabled
        )


def _chosen(info: HookInfo, choices: Mapping[str, bool]) -> HookInfo:
    if info.problem is not None:
        return replace(info, enabled=False)
    return replace(info, enabled=choices.get(info.name, info.enabled))


def bundled_hooks_dir() -> Path:
    """The hooks shipped with the app (``hooks/``; see ``bundled_dir``)."""
    return bundled_dir("hooks")


def user_hooks_dir() -> Path:
    return data_dir() / "hooks"


def load_hooks(bundled: Path | None = None, user: Path | None = None) -> HookCatalog:
    """Read both folders (defaults: :func:`bundled_hooks_dir`,
    :func:`user_hooks_dir`); never raises."""
    found: dict[str, tuple[HookInfo, Hook | None]] = {}
    warnings: list[str] = []
    roots: tuple[tuple[HookSource, Path], ...] = (
        ("bundled", bundled or bundled_hooks_dir()),
        ("user", user or user_hooks_dir()),
    )
    for source, root in roots:
        for index, (info, hook) in enumerate(_read_folder(root, source, warnings)):
            # A name's second entry in one file is listed broken beside the first, never in its place.
            duplicate = info.problem is not None and info.problem.key == "hook_problem_duplicate"
            key = f"\0{source} #{index}" if duplicate else info.name
            found.pop(key, None)  # the user's replaces the bundled one, and goes last
            found[key] = (info, hook)
    return HookCatalog(tuple(found.values()), tuple(warnings))


def _read_folder(
    root: Path, source: HookSource, warnings: list[str]
) -> list[tuple[HookInfo, Hook | None]]:
    path = root / HOOKS_FILE
    try:
        raw = read_user_text(path, limit=HOOKS_FILE_LIMIT)
    except UserFileError as exc:
        if exc.code != "missing":
            warnings.append(_file_notice(path, exc))
        return []
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        warnings.append(
            Notice(
                f"hooks file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}); "
                "its hooks are not used",
                "notice_hooks_not_json",
                {"file": str(path), "line": str(exc.lineno), "column": str(exc.colno)},
            )
        )
        return []
    except RecursionError:
        warnings.append(
            Notice(
                f"hooks file {path} is nested too deeply; its hooks are not used",
                "notice_hooks_too_deep",
                {"file": str(path)},
            )
        )
        return []
    if not isinstance(data, list):
        warnings.append(
            Notice(
                f"hooks file {path} must hold a JSON list of hooks; its hooks are not used",
                "notice_hooks_not_list",
                {"file": str(path)},
            )
        )
        return []
    out: list[tuple[HookInfo, Hook | None]] = []
    names: set[str] = set()
    problems: list[str] = []
    for index, entry in enumerate(data):
        item = _read_entry(entry, path, source, names)
        if item is None:
            problems.append(
                Notice(
                    f"hooks file {path}: hook #{index + 1} has no \"name\" (a non-empty string); skipped",
                    "notice_hooks_no_name",
                    {"file": str(path), "number": str(index + 1)},
                )
            )
            continue
        info, hook = item
        names.add(info.name)
        if info.problem is not None:
            problems.append(info.problem)
        out.append((info, hook))
    warnings.extend(
        first_problems(
            problems,
            lambda more: Notice(
                f"… and {more} more problem{'' if more == 1 else 's'} in hooks file {path}",
                "notice_hooks_more",
                {"file": str(path), "count": str(more)},
            ),
        )
    )
    return out


def _file_notice(path: Path, exc: UserFileError) -> Notice:
    """Why ``hooks.json`` itself was not read (never ``missing``: no file, no hooks)."""
    file = str(path)
    if exc.code == "not_regular":
        return Notice(
            f"hooks file {path} is not a regular file; its hooks are not used", "notice_hooks_not_regular", {"file": file}
        )
    if exc.code == "too_large":
        limit = exc.fields["limit"]
        return Notice(
            f"hooks file {path} is larger than {limit}; its hooks are not used",
            "notice_hooks_too_large",
            {"file": file, "limit": limit},
        )
    why = "not UTF-8 text" if exc.code == "not_utf8" else str(exc.fields.get("error", exc.reason))
    return Notice(
        f"hooks file {path} cannot be read ({why}); its hooks are not used",
        "notice_hooks_unreadable",
        {"file": file, "error": why, "errno": exc.fields.get("errno")},
    )


def _read_entry(
    entry: object, path: Path, source: HookSource, names: set[str]
) -> tuple[HookInfo, Hook | None] | None:
    """None for an entry with no usable name (warned about by the caller)."""
    if not isinstance(entry, dict) or not _is_name(entry.get("name")):
        return None
    fields = cast(dict[str, Any], entry)
    name = str(fields["name"]).strip()
    checkpoint, role = fields.get("checkpoint"), fields.get("role")
    persistent, enabled = fields.get("persistent", False), fields.get("enabled", True)
    info = HookInfo(
        name,
        str(checkpoint),
        str(role),
        persistent is True,
        enabled is True,
        source,
    )
    problem = _entry_problem(fields, path, name, names)
    if problem is None:
        prompt = _read_prompt(fields.get("prompt_file"), path, name)
        if isinstance(prompt, str):
            return info, Hook(name, cast(Checkpoint, checkpoint), cast(HookRole, role), persistent, prompt)
        problem = prompt
    text, code, values = problem
    values = {"file": str(path), "name": name, **values}
    return replace(info, enabled=False, problem=Notice(text, f"hook_problem_{code}", values)), None


_Problem = tuple[str, HookProblemCode, dict[str, object]]
"""The English line, its code and the values it quotes besides file and name."""


def _entry_problem(fields: dict[str, Any], path: Path, name: str, names: set[str]) -> _Problem | None:
    where = f"hooks file {path}: hook {name!r}"
    checkpoint, role = fields.get("checkpoint"), fields.get("role")
    if name in names:
        return f"{where} appears twice; the second one is not used", "duplicate", {}
    if checkpoint not in CHECKPOINTS:
        choices = ", ".join(CHECKPOINTS)
        text = f"{where}: \"checkpoint\" must be one of {choices}, got {checkpoint!r}"
        return text, "checkpoint", {"choices": choices, "got": checkpoint}
    if role not in HOOK_ROLES:
        choices = ", ".join(HOOK_ROLES)
        return f"{where}: \"role\" must be one of {choices}, got {role!r}", "role", {"choices": choices, "got": role}
    for key, default in (("persistent", False), ("enabled", True)):
        if not isinstance(fields.get(key, default), bool):
            return f"{where}: \"{key}\" must be true or false", "not_bool", {"field": key}
    return None


def _read_prompt(value: object, hooks_file: Path, name: str) -> str | _Problem:
    """The prompt's text, or why there is none. Only a regular file inside
    the hooks folder, and no more than :data:`PROMPT_LIMIT` of it, is read."""
    where = f"hooks file {hooks_file}: hook {name!r}"
    if not isinstance(value, str) or not value.strip() or "\0" in value:  # no OS takes a NUL in a name
        return f"{where}: \"prompt_file\" must name a file beside {HOOKS_FILE}", "prompt_file", {}
    path = hooks_file.parent / value
    prompt: dict[str, object] = {"prompt": str(path)}
    try:
        text = read_user_text(path, limit=PROMPT_LIMIT, within=hooks_file.parent)
    except UserFileError as exc:
        return _prompt_problem(where, path, exc)
    if not text.strip():
        return f"{where}: prompt file {path} is empty", "prompt_empty", prompt
    return text


def _prompt_problem(where: str, path: Path, exc: UserFileError) -> _Problem:
    prompt: dict[str, object] = {"prompt": str(path)}
    match exc.code:
        case "missing":
            return f"{where}: prompt file {path} is missing", "prompt_missing", prompt
        case "outside":
            folder = exc.fields["folder"]
            return f"{where}: prompt file {path} is outside {folder}", "prompt_outside", {**prompt, "folder": folder}
        case "not_regular":
            return f"{where}: prompt file {path} is not a regular file", "prompt_not_regular", prompt
        case "too_large":
            limit = exc.fields["limit"]
            return f"{where}: prompt file {path} is larger than {limit}", "prompt_too_large", {**prompt, "limit": limit}
        case "not_utf8":
            why = "not UTF-8 text"
            return f"{where}: prompt file {path} cannot be read ({why})", "prompt_not_utf8", {**prompt, "error": why}
        case "unreadable":
            why = str(exc.fields.get("error", exc.reason))
            values = {**prompt, "error": why, "errno": exc.fields.get("errno")}
            return f"{where}: prompt file {path} cannot be read ({why})", "prompt_unreadable", values


def _is_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())
