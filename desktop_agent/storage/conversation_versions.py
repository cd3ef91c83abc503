"""The JSON form of a conversation's kept versions
(:class:`~desktop_agent.core.versions.Versions`), one row per conversation in
the ``versions`` table (schema version 4).

The row is a list of sets, each ``{"turn": n, "current": i, "tails": [...]}``;
a tail is ``null`` at ``current`` (the version shown is the conversation's
own history and display log, stored as ever) and otherwise
``{"history": [OpenAI messages], "events": [display events], "later": [sets]}``,
the events in ``storage/conversation_events.py``'s form. Search reads only
the version shown; a version that cannot be read back is dropped (logged)
and the conversation opens as it is shown.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from desktop_agent.core.json_types import JSONObject, JSONValue
from desktop_agent.core.versions import Tail, Versions, VersionSet
from desktop_agent.storage.conversation_events import event_json, items_of
from desktop_agent.storage.history_json import history_items, history_json

log = logging.getLogger(__name__)


def versions_json(versions: Versions) -> str | None:
    """The row's body; None when nothing is kept (no row)."""
    if not versions.sets:
        return None
    return json.dumps(_sets_json(versions.sets), ensure_ascii=False)


def _sets_json(sets: Mapping[int, VersionSet]) -> list[JSONObject]:
    return [{"turn": turn, "current": s.current, "tails": [None if t is None else _tail_json(t) for t in s.tails]}
            for turn, s in sorted(sets.items())]


def _tail_json(tail: Tail) -> JSONObject:
    history: list[JSONValue] = [*history_json(tail.history)]
    events: list[JSONValue] = [event_json(e) for e in tail.events]
    later: list[JSONValue] = [*_sets_json(tail.later)]
    return {"history": history, "events": events, "later": later}


def versions_from(body: str | None) -> Versions:
    """The versions a row holds; none for no row or one that cannot be read."""
    if not body:
        return Versions()
    try:
        return Versions(_sets(json.loads(body)))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("the kept versions of a conversation could not be read (%s); it opens as it is shown", exc)
        return Versions()


def _sets(data: object) -> dict[int, VersionSet]:
    if not isinstance(data, list):
        raise TypeError("versions are not a list")
    out: dict[int, VersionSet] = {}
    for entry in data:
        tails = [None if t is None else _tail(t) for t in entry["tails"]]
        current = int(entry["current"])
        if not 0 <= current < len(tails) or tails[current] is not None or len(tails) < 2:
            raise ValueError("a version set without its shown version")
        out[int(entry["turn"])] = VersionSet(tails, current)
    return out


def _tail(data: Mapping[str, object]) -> Tail:
    history, events = data["history"], data["events"]
    if not isinstance(history, list) or not isinstance(events, list):
        raise TypeError("a version's history or events are not lists")
    if not all(isinstance(m, dict) for m in history) or not all(isinstance(e, dict) for e in events):
        raise TypeError("a version holds a message or event that is not an object")
    return Tail(history_items(history), items_of(events), _sets(data.get("later", [])))


__all__ = ["versions_from", "versions_json"]
