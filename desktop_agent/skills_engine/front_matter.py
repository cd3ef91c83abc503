"""YAML front matter read so that no SKILL.md can stop the app from starting.

A skill folder is anyone's download, and ``yaml.safe_load`` is safe only in
what it *constructs*, not in what it costs:

- nesting recurses in PyYAML's composer, so ``[[[[…`` or a deep block
  mapping a few thousand levels down raises ``RecursionError`` (a 2,999-line
  traceback at start-up). Depth is counted as nodes are composed and
  refused past :data:`MAX_DEPTH`, long before Python's own limit;
- aliases (``*name``) share one node between many places, so a "billion
  laughs" document of a few kilobytes is a graph that anything walking it
  (printing the metadata, dumping it to JSON) expands into billions of
  values. The format's fields are a few strings and a flat ``metadata``
  mapping that never need one, so an alias is refused outright instead of
  counting how far it would expand;
- a bad value inside otherwise valid YAML raises plain Python errors from
  the constructor (``2001-13-45`` is a ``ValueError``, so is a 5,000-digit
  ``!!int``), which are caught here with PyYAML's own.

Every refusal is a :class:`FrontMatterError`; ``skill_file`` turns it into
the skill's one warning.
"""

from __future__ import annotations

from typing import Literal

import yaml
from yaml.events import AliasEvent, Event
from yaml.nodes import Node

MAX_DEPTH = 32
"""Levels of nesting allowed; real front matter uses two or three."""

FrontMatterProblem = Literal["yaml", "too_deep", "alias"]


class FrontMatterError(ValueError):
    """Front matter that was not read: ``kind`` says why, ``line`` (0-based
    within the front matter) where, when PyYAML knows it."""

    def __init__(self, kind: FrontMatterProblem, line: int | None = None) -> None:
        super().__init__(kind if line is None else f"{kind} at line {line}")
        self.kind: FrontMatterProblem = kind
        self.line = line


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses aliases and nesting past :data:`MAX_DEPTH`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        event: Event = self.peek_event()  # type: ignore[no-untyped-call]  # untyped in types-PyYAML
        line = event.start_mark.line if event.start_mark is not None else None
        if isinstance(event, AliasEvent):
            raise FrontMatterError("alias", line)
        if self._depth >= MAX_DEPTH:
            raise FrontMatterError("too_deep", line)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_front_matter(text: str) -> object:
    """The front matter's data, or :class:`FrontMatterError` (never another
    exception, whatever the text holds)."""
    loader: _BoundedLoader | None = None
    try:
        loader = _BoundedLoader(text)  # the reader refuses control characters here already
        return loader.get_single_data()
    except FrontMatterError:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise FrontMatterError("yaml", None if mark is None else mark.line) from None
    except (ValueError, TypeError, OverflowError, RecursionError):
        raise FrontMatterError("yaml") from None
    finally:
        if loader is not None:
            loader.dispose()


__all__ = ["MAX_DEPTH", "FrontMatterError", "FrontMatterProblem", "load_front_matter"]
