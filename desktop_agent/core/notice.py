"""A warning line that also says how the window words it (every visible
string is translated, the system lines included).

A :class:`Notice` *is* the English line (a ``str``): the headless mode, the
log and every caller that compares, joins or prints warnings keep the exact
text. Beside it, ``key`` and ``fields`` name the UI text (``desktop_agent/texts``)
that says the same in the window's language; ``frame`` is an outer UI text
whose ``{problem}`` is the inner one (a skill's problem inside "the skill is
skipped"); ``cause`` is an engine error the window words itself (an MCP
servers file's :class:`~desktop_agent.mcp_engine.config.McpConfigError`).
A plain ``str`` warning has no key: the window shows it as it is.

Why a ``str`` subclass and not a dataclass: the engines' warning lists are
``tuple[str, ...]`` read by many callers and tests as text; a subclass adds
the wording without changing what any of them sees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeAlias


class Notice(str):
    """One English warning line with the UI text that words it (frozen)."""

    key: str
    """The UI text for the line (``tr(key, **fields)``)."""
    fields: Mapping[str, object]
    """The values the UI text quotes."""
    frame: str | None
    """An outer UI text taking the inner one as ``{problem}`` (and ``fields``)."""
    cause: object
    """An error the front end words itself (None: ``key`` says it all)."""

    def __new__(
        cls,
        english: str,
        key: str,
        fields: Mapping[str, object] | None = None,
        *,
        frame: str | None = None,
        cause: object = None,
    ) -> Notice:
        self = super().__new__(cls, english)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "fields", MappingProxyType(dict(fields or {})))
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "cause", cause)
        return self

    @property
    def english(self) -> str:
        """The line as the log and the headless mode say it."""
        return str(self)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Notice is frozen: cannot set {name!r}")

    def __reduce__(self) -> tuple[Callable[..., Notice], _Parts]:  # copy and pickle: the mapping proxy cannot be
        return _rebuild, (str(self), self.key, dict(self.fields), self.frame, self.cause)

    def __repr__(self) -> str:
        return f"Notice({str(self)!r}, key={self.key!r})"


_Parts: TypeAlias = tuple[str, str, dict[str, object], str | None, object]
"""What :func:`_rebuild` takes: the line, its key, fields, frame and cause."""


def _rebuild(english: str, key: str, fields: dict[str, object], frame: str | None, cause: object) -> Notice:
    return Notice(english, key, fields, frame=frame, cause=cause)


__all__ = ["Notice"]


SHOWN_PROBLEMS = 5
"""How many problems of one file or folder are listed before the rest are counted."""


def first_problems(problems: list[str], the_rest: Callable[[int], Notice]) -> list[str]:
    """The first :data:`SHOWN_PROBLEMS` of ``problems``, then ``the_rest(n)``
    for the ``n`` left out (nothing when none is)."""
    shown = problems[:SHOWN_PROBLEMS]
    more = len(problems) - SHOWN_PROBLEMS
    if more > 0:
        shown.append(the_rest(more))
    return shown
