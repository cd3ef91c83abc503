"""PackedLog: the display log with finished turns packed reads and changes
exactly as the list of items it stands for (packed by the store's packer,
their saved JSON)."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.packed_log import PackedLog
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import DisplayItem, FormAnswered, WindowNotice, scan_kind
from desktop_agent.storage.conversation_events import JSON_PACKER, items_of
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply
from desktop_agent.testing.views import NullView


def turn(n: int) -> list[DisplayItem]:
    """One turn's items, read back from the events the store keeps."""
    return items_of(turn_events(n))


def turn_events(n: int) -> list[JSONDict]:
    """One turn's saved events."""
    session = f"s{n:011d}"
    return [
        {"type": "user", "text": f"turn {n}", "approval_timeout_s": 300.0},
        {"type": "text", "session_id": session, "seq": 1, "segment_id": 1, "text": "Ok.", "raw_text": "Ok.",
         "voice": False},
        {"type": "auto_approved", "by": "always_allow", "message": {
            "type": "tool_call", "session_id": session, "seq": 2, "state": "approval_required",
            "tool_call_id": f"c{n}", "tool_name": "run_command", "arguments": {"command": f"echo 你好 {n}"},
            "task_id": f"t{n}", "_tool": {"server": None, "annotations": {"destructiveHint": True}}}},
        {"type": "tool_call", "session_id": session, "seq": 3, "state": "result", "tool_call_id": f"c{n}",
         "tool_name": "run_command", "arguments": None, "result": "exit code 0", "is_error": False},
        {"type": "turn_end", "session_id": session, "seq": 4},
    ]


def packed_turns(count: int) -> tuple[PackedLog, list[DisplayItem]]:
    """A log of ``count`` turns packed one by one, and the same as a list."""
    log, plain = PackedLog(packer=JSON_PACKER), []
    for n in range(count):
        log.extend(turn(n))
        plain.extend(turn(n))
        log.pack()
    return log, plain


def test_a_packed_log_reads_back_every_event_as_the_list_does() -> None:
    log, plain = packed_turns(4)
    log.append(WindowNotice("warning", "still open"))
    plain.append(WindowNotice("warning", "still open"))
    assert log.packed == 20 and len(log) == 21
    assert list(log) == plain and list(reversed(log)) == plain[::-1]
    assert [log[i] for i in range(-len(plain), len(plain))] == plain + plain
    for start in range(-3, 23, 2):
        for stop in (None, -1, 0, 4, 5, 11, 20, 21, 30):
            assert log[start:stop] == plain[start:stop], (start, stop)
    assert log[::3] == plain[::3] and log[::-2] == plain[::-2]
    assert log == plain and log != plain[:-1]
    with pytest.raises(IndexError):
        log[21]


def test_changing_a_packed_log_anywhere_changes_it_as_a_list() -> None:
    rng = random.Random(7)
    log, plain = packed_turns(6)
    for step in range(300):
        event = WindowNotice("warning", f"step {step}")
        size = len(plain)
        at = rng.randrange(-size - 2, size + 2) if size else 0
        cut = slice(rng.randrange(-size - 1, size + 1), rng.randrange(-size - 1, size + 1)) if size else slice(0)
        choice = rng.randrange(8)
        operations: list[tuple[str, Any]] = [
            ("insert", lambda s, e=event, i=at: s.insert(i, e)),
            ("del slice", lambda s, c=cut: s.__delitem__(c)),
            ("set slice", lambda s, c=cut, e=event: s.__setitem__(c, [e, e])),
            ("append", lambda s, e=event: s.append(e)),
            ("pack", lambda s: s.pack() if isinstance(s, PackedLog) else None),
            ("del index", lambda s, i=at: s.__delitem__(i)),
            ("set index", lambda s, i=at, e=event: s.__setitem__(i, e)),
            ("del step", lambda s: s.__delitem__(slice(None, None, 3))),
        ]
        name, operation = operations[choice]
        outcomes = []
        for target in (log, plain):
            try:
                operation(target)
                outcomes.append("ok")
            except IndexError:
                outcomes.append("IndexError")
        assert outcomes[0] == outcomes[1], (step, name)
        assert list(log) == plain, (step, name)


def test_a_log_given_whole_is_packed_a_turn_at_a_time_and_reads_back_the_same() -> None:
    plain: list[DisplayItem] = [WindowNotice("info", "before any turn")]
    for n in range(5):
        plain.extend(turn(n))
    log = PackedLog(plain, JSON_PACKER)
    assert log.packed == len(plain) and list(log) == plain
    del log[11:]  # taking back all but the first turn unpacks only what it cuts
    assert list(log) == plain[:11] and log.packed == 11


def test_a_packed_item_read_back_is_a_new_equal_one() -> None:
    log, plain = packed_turns(2)
    assert log[3] == plain[3] and log[3] is not log[3]


def test_a_packed_log_tells_each_items_scan_kind_without_unpacking(monkeypatch: pytest.MonkeyPatch) -> None:
    log, plain = packed_turns(3)
    log.append(WindowNotice("warning", "still open"))
    plain.append(WindowNotice("warning", "still open"))
    monkeypatch.setattr(JSON_PACKER, "unpack", lambda _packed: pytest.fail("unpacked"))
    assert log.kinds() == [scan_kind(item) for item in plain]
    assert log.kinds()[:5] == ["user", "text", None, None, None]


def test_a_copy_keeps_what_the_log_was() -> None:
    log, plain = packed_turns(2)
    copy = log.copy()
    log.append(WindowNotice("info", "later"))
    del log[2]
    assert list(copy) == plain and copy.kinds() == [scan_kind(item) for item in plain]


def test_without_a_packer_nothing_is_packed() -> None:
    log = PackedLog(turn(0))
    log.pack()
    assert log.packed == 0 and list(log) == turn(0)


def test_items_that_are_not_json_stay_unpacked_and_the_log_says_why(caplog: pytest.LogCaptureFixture) -> None:
    log = PackedLog(turn(0), JSON_PACKER)
    answers: JSONDict = {"sizes": {1, 2}}
    odd = FormAnswered("f1", answers)
    log.append(odd)
    with caplog.at_level(logging.WARNING, logger="desktop_agent.core.packed_log"):
        log.pack()
    assert [r.getMessage() for r in caplog.records] == [
        "display events kept unpacked: Object of type set is not JSON serializable"]
    assert log.packed == 5 and log[5] is odd and list(log) == [*turn(0), odd]


async def test_a_finished_turn_is_packed_and_a_taken_back_one_leaves_the_rest_packed() -> None:
    llm = ScriptedLLM([text_reply("One."), text_reply("Two.")])
    conv = Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None), packer=JSON_PACKER)
    async with asyncio.timeout(5):
        await conv.run_turn("a", NullView())
        first = list(conv.events)
        await conv.run_turn("b", NullView())
    assert conv.events.packed == len(conv.events) > len(first)
    assert conv.take_back_last_exchange() == "b"
    assert list(conv.events) == first and conv.events.packed == len(first)
