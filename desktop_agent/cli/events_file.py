"""The ``--events-jsonl`` writer: every bus message as one JSON line (the
contract's JSON form), flushed as it happens."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import BusItem


class EventsWriter:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def attach(self, bus: SessionMessageBus) -> None:
        bus.add_listener(self.write)

    def write(self, item: BusItem) -> None:
        self._fh.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()
