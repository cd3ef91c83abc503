"""A read-only sequence whose items are made as they are read
(:class:`LazySequence`): a saved history, a display log and its items
are read this way, so opening a long conversation makes only what it shows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class LazySequence(Sequence[T]):
    """Indexing, slicing and iteration over :meth:`_item` (item ``i`` of
    ``0 <= i < len(self)``, made or fetched when asked for); compared by
    content, like the list it stands for. A subclass gives ``__len__`` and
    ``_item``."""

    def _item(self, index: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        size = len(self)
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(size))]
        if not -size <= index < size:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._item(index % size)

    def __iter__(self) -> Iterator[T]:
        return map(self._item, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content, like a list
