"""Skill folders written on the fly, for tests and benchmarks (contracts §9)."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    folder: str,
    *,
    name: str | None = None,
    description: str = "Does a thing. Use when asked for the thing.",
    body: str = "# Steps\n\n1. Do the thing.\n",
    extra: str = "",
    front: str | None = None,
) -> Path:
    """``root/folder/SKILL.md`` with a front matter of ``name`` (default: the
    folder name), ``description`` and ``extra`` lines, or exactly ``front``
    when given. Returns the skill's folder."""
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    if front is None:
        front = f"name: {name if name is not None else folder}\ndescription: {description}\n{extra}"
    (path / "SKILL.md").write_text(f"---\n{front.rstrip()}\n---\n\n{body}", encoding="utf-8")
    return path
