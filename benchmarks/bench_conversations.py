"""Saved conversations: how opening, searching and saving scale with a
conversation's length, every figure measured side by side in one run, so
ratios compare like with like:

1. Open: a conversation of ``--messages`` (2,000) messages against one of
   20, from the database to the window's chat as the window opens one (the
   conversation made with its saved history and packed display log,
   ``resume_conversation``, then the last turns drawn from that log, and
   its last user message read, as the window's Regenerate asks): time to first paint (loaded,
   drawn, painted once) and to fully interactive (every drawn message has
   measured its height and the event loop is idle). Reported as ms and as
   big/small ratios. The same opened at a search hit in its 4th turn (index
   3), as the sidebar opens one: a window around the hit, beside drawing
   from the hit to the end (the way before the window) for reference.
2. Search over ``--search-messages`` (10,000) messages in 50 conversations,
   English and Chinese: p50/p95 per query, trigram full-text (3+
   characters) and LIKE (shorter queries).
3. Save after a turn (4 messages, 14 display events) in a 2,000-message
   conversation against a 20-message one, alternating: medians and their
   ratio (target: close to 1). The first layout's way (the whole history as
   one JSON blob per save) is measured beside it for reference.

Run: ``.venv/bin/python benchmarks/bench_conversations.py [--messages 2000]
[--search-messages 10000] [--repeat 30] [--json]`` (offscreen).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.json_types import JSONObject
from desktop_agent.storage.history_json import history_items, history_json

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

EN = ("weather", "museum", "flight", "python", "invoice", "garden", "concert", "battery", "recipe", "station")
ZH = ("天气预报", "博物馆", "航班", "发票", "花园", "音乐会", "电池", "菜谱", "火车站", "会议")


def history(messages: int, seed: int = 0) -> list[HistoryItem]:
    """A conversation of about ``messages`` messages: exchanges of user and
    assistant, every third one with a tool call and its result."""
    return history_items(history_json_list(messages, seed))


def history_json_list(messages: int, seed: int = 0) -> list[dict[str, Any]]:
    """:func:`history` as its messages on disk."""
    out: list[dict[str, Any]] = []
    i = seed
    while len(out) < messages:
        en, zh = EN[i % len(EN)], ZH[(i * 7) % len(ZH)]
        out.append({"role": "user", "content": f"Question {i} about the {en} and {zh}?"})
        if i % 3 == 0:
            call = f"c{i}"
            out.append({"role": "assistant", "content": "Let me check.", "tool_calls": [
                {"id": call, "type": "function", "function": {"name": "run_command",
                                                              "arguments": json.dumps({"command": f"look {en}"})}}]})
            out.append({"role": "tool", "tool_call_id": call, "content": f"exit code 0\n{en} ok {i}"})
        out.append({"role": "assistant", "content": f"Answer {i}: the {en} is fine, {zh}没有问题。"})
        i += 1
    return out[:messages]


def turn_events(n: int) -> list[dict[str, Any]]:
    """One turn's display log as a live turn records it (14 events)."""
    s = {"session_id": f"s{n}"}
    args = {"command": "ls"}
    return [
        {"type": "user", "text": f"turn {n}"},
        {"type": "text", **s, "seq": 1, "segment_id": 1, "text": "Checking.", "raw_text": "Checking.", "voice": False},
        {"type": "round_end", **s, "seq": 2, "round": 0, "kind": "planning"},
        {"type": "tool_call", **s, "seq": 3, "state": "start", "tool_call_id": f"c{n}", "tool_name": "run_command",
         "arguments": None},
        {"type": "tool_call", **s, "seq": 4, "state": "approval_required", "tool_call_id": f"c{n}",
         "tool_name": "run_command", "arguments": args, "task_id": "t"},
        {"type": "approval_answer", "tool_call_id": f"c{n}", "approved": True},
        {"type": "tool_call", **s, "seq": 5, "state": "executing", "tool_call_id": f"c{n}",
         "tool_name": "run_command", "arguments": args},
        {"type": "tool_output", **s, "seq": 6, "tool_call_id": f"c{n}", "stream": "stdout", "text": "a\n"},
        {"type": "tool_call", **s, "seq": 7, "state": "result", "tool_call_id": f"c{n}", "tool_name": "run_command",
         "arguments": args, "result": "a", "is_error": False},
        {"type": "round_end", **s, "seq": 8, "round": 1, "kind": "tools"},
        {"type": "text", **s, "seq": 9, "segment_id": 2, "text": "Done.", "raw_text": "Done.", "voice": False},
        {"type": "round_end", **s, "seq": 10, "round": 2, "kind": "tools"},
        {"type": "turn_end", **s, "seq": 11},
        {"type": "notice", "level": "system", "text": "ok"},
    ]


def turn_messages(n: int) -> list[HistoryItem]:
    return history_items([
        {"role": "user", "content": f"turn {n}"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": "a"},
        {"role": "assistant", "content": "Done."},
    ])


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# -------------------------------------------------------------------- open


def _open_once(app: Any, draw: Any) -> tuple[float, float, int]:
    """Time one open into a fresh chat: ``draw(chat)`` loads and draws;
    returns (first paint, fully interactive, widgets drawn)."""
    from desktop_agent.texts import ENGLISH
    from desktop_agent.ui.chat.chat_view import ChatView

    chat = ChatView(ENGLISH)
    chat.resize(860, 640)
    chat.show()
    app.processEvents()
    start = time.perf_counter()
    draw(chat)
    chat.viewport().repaint()
    painted = time.perf_counter()
    slots = [w.parentWidget() for w in chat.items()]
    while not all(s is not None and s.height() > 0 for s in slots):
        app.processEvents()
    app.processEvents()  # idle: nothing left queued
    ready = time.perf_counter()
    chat.close()
    chat.deleteLater()
    app.processEvents()
    return painted - start, ready - start, len(slots)


def _medians(timings: dict[str, tuple[list[float], list[float], int]]) -> dict[str, Any]:
    return {name: {"first_paint": _ms(statistics.median(p)), "interactive": _ms(statistics.median(r)),
                   "widgets_drawn": n} for name, (p, r, n) in timings.items()}


def _ratios(out: dict[str, Any], big: str, small: str) -> dict[str, float]:
    return {f"ratio_{k}": round(out[big][k] / out[small][k], 2) for k in ("first_paint", "interactive")}


def bench_open(folder: Path, messages: int, repeat: int) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from desktop_agent.core.agent import AgentClient
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.tool_router import ToolRouter
    from desktop_agent.llm.demo import DemoModel
    from desktop_agent.storage.conversation_events import JSON_PACKER, events_from_history
    from desktop_agent.storage.conversations import ConversationStore
    from desktop_agent.ui.conversations.restore import restore

    app = QApplication.instance() or QApplication([])
    store = ConversationStore(folder / "open.sqlite3")
    for name, size in (("big", messages), ("small", 20)):
        h = history(size)
        store.save(name, h, events_from_history(h))

    def draw(name: str) -> Any:
        def run(chat: Any) -> None:  # as the window opens one (resume_conversation, then the glue's restore)
            stored = store.load(name)
            assert stored is not None
            log = JSON_PACKER.packed_log(stored.events or events_from_history(stored.messages))
            conversation = Conversation(AgentClient(DemoModel(), ToolRouter([])), conversation_id=stored.id,
                                        history=stored.messages, events=log, packer=JSON_PACKER)
            restore(chat, conversation.events.copy())
            assert conversation.last_user_text()  # what the window asks at once: is there one to regenerate?
        return run

    timings: dict[str, tuple[list[float], list[float], int]] = {n: ([], [], 0) for n in ("big", "small")}
    for _ in range(repeat):
        for name in ("big", "small"):
            paint, ready, drawn = _open_once(app, draw(name))
            timings[name][0].append(paint)
            timings[name][1].append(ready)
            timings[name] = (timings[name][0], timings[name][1], drawn)
    out = _medians(timings)
    out |= _ratios(out, "big", "small")
    store.close()
    return out


def bench_open_hit(folder: Path, messages: int, repeat: int, turn: int = 3) -> dict[str, Any]:
    """Open at a search hit in turn ``turn``, as the sidebar does
    (``ConversationsGlue.open``): a window around the hit when it is further
    back than an open shows, else the plain open. ``big_to_end`` is the way
    before the window (from the hit to the end), for reference."""
    from PySide6.QtWidgets import QApplication

    from desktop_agent.storage.conversation_events import StoredItems, events_from_history
    from desktop_agent.storage.conversations import ConversationStore
    from desktop_agent.ui.conversations.restore import hit_window, restore

    app = QApplication.instance() or QApplication([])
    store = ConversationStore(folder / "open_hit.sqlite3")
    for name, size in (("big", messages), ("small", 20)):
        h = history(size)
        store.save(name, h, events_from_history(h))

    def draw(name: str, *, windowed: bool = True) -> Any:
        def run(chat: Any) -> None:
            stored = store.load(name)
            assert stored is not None
            events = StoredItems(stored.events)
            from_turn, to_turn = hit_window(events, turn)  # as ConversationsGlue.open
            restore(chat, events, from_turn=from_turn, to_turn=to_turn if windowed else None)
        return run

    cases = {"big": draw("big"), "small": draw("small"), "big_to_end": draw("big", windowed=False)}
    timings: dict[str, tuple[list[float], list[float], int]] = {n: ([], [], 0) for n in cases}
    for n in range(repeat):
        for name, run in cases.items():
            if name == "big_to_end" and n >= max(1, repeat // 3):
                continue  # seconds each: a few are enough for reference
            paint, ready, drawn = _open_once(app, run)
            timings[name][0].append(paint)
            timings[name][1].append(ready)
            timings[name] = (timings[name][0], timings[name][1], drawn)
    out = _medians(timings)
    out |= _ratios(out, "big", "small")
    out["turn"] = turn
    store.close()
    return out


# ------------------------------------------------------------------ search


def bench_search(folder: Path, messages: int, repeat: int) -> dict[str, Any]:
    from desktop_agent.storage.conversations import ConversationStore

    store = ConversationStore(folder / "search.sqlite3")
    per = max(messages // 50, 2)
    for c in range(50):
        store.save(f"c{c}", history(per, seed=c * 1000))
    queries = {"fts_en": ["museum", "weather is fine", "Question 1234", "battery"],
               "fts_zh": ["天气预报", "没有问题", "音乐会"],
               "like_short": ["问题", "fi", "航班"]}
    out: dict[str, Any] = {"messages": per * 50, "fts": store.fts}
    every: list[float] = []
    for kind, words in queries.items():
        times: list[float] = []
        hits = 0
        for _ in range(repeat):
            for word in words:
                start = time.perf_counter()
                hits += len(store.search(word))
                times.append(time.perf_counter() - start)
        every += times
        out[kind] = {"p50_ms": _ms(percentile(times, 0.5)), "p95_ms": _ms(percentile(times, 0.95)),
                     "hits": hits // max(1, repeat)}
    out["all"] = {"p50_ms": _ms(percentile(every, 0.5)), "p95_ms": _ms(percentile(every, 0.95))}
    store.close()
    return out


# -------------------------------------------------------------------- save


def bench_save(folder: Path, messages: int, repeat: int) -> dict[str, Any]:
    from desktop_agent.storage.conversation_events import events_from_history
    from desktop_agent.storage.conversations import ConversationStore

    store = ConversationStore(folder / "save.sqlite3")
    sides: dict[str, tuple[list[HistoryItem], list[JSONObject]]] = {}
    for name, size in (("big", messages), ("small", 20)):
        h = history(size)
        sides[name] = (h, events_from_history(h))
        store.save(name, *sides[name])
    blob = sqlite3.connect(folder / "blob.sqlite3")
    blob.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT NOT NULL)")
    times: dict[str, list[float]] = {"big": [], "small": [], "blob_big": [], "blob_small": []}
    for n in range(repeat):
        for name in ("big", "small"):
            h, events = sides[name]
            h += turn_messages(n)
            events += turn_events(n)
            start = time.perf_counter()
            store.save(name, h, events)
            times[name].append(time.perf_counter() - start)
            start = time.perf_counter()
            with blob:  # the first layout: the whole history, every turn
                blob.execute("INSERT INTO conversations VALUES (?, ?) ON CONFLICT(id) DO UPDATE "
                             "SET messages = excluded.messages", (name, json.dumps(history_json(h), ensure_ascii=False)))
            times[f"blob_{name}"].append(time.perf_counter() - start)
    medians = {k: statistics.median(v) for k, v in times.items()}
    store.close()
    blob.close()
    return {
        "big_ms": _ms(medians["big"]), "small_ms": _ms(medians["small"]),
        "ratio": round(medians["big"] / medians["small"], 2),
        "blob_big_ms": _ms(medians["blob_big"]), "blob_small_ms": _ms(medians["blob_small"]),
        "blob_ratio": round(medians["blob_big"] / medians["blob_small"], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--search-messages", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DESKTOP_AGENT_HOME"] = tmp
        folder = Path(tmp)
        results = {
            "open": bench_open(folder, args.messages, max(1, args.repeat // 10)),
            "open_hit": bench_open_hit(folder, args.messages, max(1, args.repeat // 10)),
            "search": bench_search(folder, args.search_messages, max(1, args.repeat // 3)),
            "save": bench_save(folder, args.messages, args.repeat),
        }
    if args.json:
        print(json.dumps(results))
        return 0
    o, h, s, v = results["open"], results["open_hit"], results["search"], results["save"]
    print(f"open {args.messages} vs 20 messages: first paint {o['big']['first_paint']} vs "
          f"{o['small']['first_paint']} ms (×{o['ratio_first_paint']}), interactive "
          f"{o['big']['interactive']} vs {o['small']['interactive']} ms (×{o['ratio_interactive']}); "
          f"widgets drawn {o['big']['widgets_drawn']} vs {o['small']['widgets_drawn']}")
    print(f"open at a search hit in turn {h['turn'] + 1}, {args.messages} vs 20 messages: first paint "
          f"{h['big']['first_paint']} vs {h['small']['first_paint']} ms (×{h['ratio_first_paint']}), interactive "
          f"{h['big']['interactive']} vs {h['small']['interactive']} ms (×{h['ratio_interactive']}); widgets drawn "
          f"{h['big']['widgets_drawn']} vs {h['small']['widgets_drawn']}; drawing from the hit to the end instead: "
          f"{h['big_to_end']['first_paint']} / {h['big_to_end']['interactive']} ms, "
          f"{h['big_to_end']['widgets_drawn']} widgets")
    print(f"search over {s['messages']} messages (fts={s['fts']}): p50 {s['all']['p50_ms']} ms, "
          f"p95 {s['all']['p95_ms']} ms; " + ", ".join(
              f"{k} p50 {s[k]['p50_ms']}/p95 {s[k]['p95_ms']} ms" for k in ("fts_en", "fts_zh", "like_short")))
    print(f"save after a turn, {args.messages} vs 20 messages: {v['big_ms']} vs {v['small_ms']} ms "
          f"(×{v['ratio']}); the old whole-blob save: {v['blob_big_ms']} vs {v['blob_small_ms']} ms "
          f"(×{v['blob_ratio']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
