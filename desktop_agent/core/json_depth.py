"""How deeply a JSON-like value nests, measured without recursion.

Why: ``json.loads`` accepts values nested about a thousand levels deep, and
every recursive walk after it (redaction, cuts, ``json.dumps``, Qt's
summaries) fails far earlier, with a ``RecursionError`` that ended the turn.
Tool arguments are measured once, where they are parsed, against
:data:`MAX_ARGUMENT_DEPTH`; deeper ones are refused there, so nothing
downstream ever walks them. The walk here keeps its own stack, so it is
safe on any depth ``json.loads`` can return.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_ARGUMENT_DEPTH = 64
"""Objects and lists inside one another that tool arguments may have. Real
tool schemas nest a handful of levels; 64 leaves room for any of them and
keeps every recursive consumer (about two frames a level) far from
Python's limit of 1,000."""


def nests_deeper_than(value: object, limit: int) -> bool:
    """Whether ``value`` has more than ``limit`` containers (dicts, lists,
    tuples) inside one another; ``{}`` is one level, ``{"a": [1]}`` two."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
