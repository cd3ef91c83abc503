"""A keyring backend kept in memory, so tests run the real keyring calls
without touching the user's keyring (or needing D-Bus).

``with memory_keyring() as ring:`` installs it with ``keyring.set_keyring``
and puts the previous backend back after; ``ring.entries`` is what was
stored, ``ring.reads`` what was read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's own __init__ is untyped
        self.entries: dict[tuple[str, str], str] = {}
        self.reads: list[str] = []
        """The usernames asked for, in order."""

    def get_password(self, service: str, username: str) -> str | None:
        self.reads.append(username)
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@contextmanager
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    try:
        yield ring
    finally:
        keyring.set_keyring(previous)
