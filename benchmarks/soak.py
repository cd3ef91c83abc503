"""Soak: many turns in one process, and what each turn leaves behind (a
long session must not grow beyond its history).

One conversation runs ``--turns`` turns the way the headless mode does
(``build_services`` → ``Services.new_conversation`` → ``Conversation.run_turn``
with a :class:`TerminalView`, ``--approve all`` and an ``--events-jsonl``
writer), against the scripted server in its own process (so its request log
is not counted here) through the real openai SDK. Every turn plans, calls
``run_command`` with ``echo`` (auto-approved: a child is spawned and must be
reaped) and answers.

After each turn (collected until nothing more is freed: see :func:`settle`)
it samples RSS, tracemalloc's traced memory and its peak during the turn, open
fds, threads, live children, and the history's size as JSON and as Python
objects; it prints them at the start, middle and end, and the slopes per
turn (least squares over the turns after ``--warmup``). RSS is noisy
(allocator arenas, page granularity), the traced slope exact.

How to read the slopes: a process that keeps nothing but its conversation
has a traced slope near "history in memory" (its typed items and strings,
``core/history_items.py``) plus "display log in memory" (the packed turns,
``core/packed_log.py``). The rule (``tests/faults/test_memory.py``): what a
turn leaves behind, the traced slope, is at most twice the conversation's
own growth, history and display log together (``retained_per_conversation``,
printed as "retained / conversation"). Measured against the history alone
(``retained_per_history``) the yardstick moved when the history became typed
items: they take half the memory its dicts did, so the display log, about
as large, no longer hides in its shadow. RSS follows the *peak* instead:
every request copies the whole history (the agent's working list, the wire
form, the SDK's own copy, the JSON body), so the most memory in use during a
turn, and with it the allocator's high-water mark, grows by several copies
of a turn's history per turn without anything being kept.

``--diagnose``: tracemalloc snapshots at the end of the warm-up and at the
end, compared by traceback (where the growth was allocated), and the gc
object counts by type that grew.

Run: ``.venv/bin/python benchmarks/soak.py [--turns 300] [--warmup N] [--diagnose [--frames N]]
[--progress N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from array import array
from collections import Counter
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from desktop_agent.core.packed_log import PackedLog
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply

PAGE = os.sysconf("SC_PAGE_SIZE")
ANSWER = "The command printed its line, so the shell works. Anything else you want me to run?"


@dataclass(frozen=True)
class Sample:
    turn: int
    rss: int
    """Bytes resident (``/proc/self/statm``)."""
    traced: int
    """Bytes tracemalloc sees allocated by Python."""
    peak: int
    """The most bytes traced at once during the turn."""
    fds: int
    threads: int
    children: int
    """Live or zombie child processes (the scripted server excluded)."""
    turn_s: float
    history: int
    """Bytes of the history as JSON."""
    history_mem: int
    """Bytes of the history as Python objects (its items, tuples, strings)."""
    log_mem: int
    """Bytes of the display log as Python objects (its packed turns and the open one)."""


class SampleTable:
    """The samples as numbers in one array sized for every turn at the start:
    kept as objects in a list, the benchmark's own records would count as
    memory each turn left behind."""

    def __init__(self, turns: int) -> None:
        self._fields = fields(Sample)
        self._values = array("d", bytes(8 * len(self._fields) * turns))
        self._count = 0

    def put(self, taken: Sample) -> None:
        width = len(self._fields)
        for i, f in enumerate(self._fields):
            self._values[self._count * width + i] = getattr(taken, f.name)
        self._count += 1

    def samples(self) -> list[Sample]:
        width = len(self._fields)
        out: list[Sample] = []
        for n in range(self._count):
            row = self._values[n * width:(n + 1) * width]
            values: list[Any] = [float(v) if f.type == "float" else int(v)
                                 for f, v in zip(self._fields, row, strict=True)]
            out.append(Sample(*values))
        return out


def script(turns: int) -> list[Reply]:
    replies: list[Reply] = []
    for n in range(turns):
        replies += [
            text_reply("<voice>On it.</voice><need_tool>"),
            tool_reply("run_command", {"command": f"echo soak-{n}"}),
            text_reply(ANSWER),
        ]
    return replies


def start_server(turns: int, folder: Path) -> tuple[subprocess.Popen[str], str]:
    path = folder / "replies.json"
    path.write_text(json.dumps([asdict(r) for r in script(turns)]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent.testing.scripted_server", "--script", str(path)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    import desktop_agent.services  # noqa: F401  (while the server starts: the two imports overlap)

    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"scripted server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def children(exclude: int) -> int:
    me, count = str(os.getpid()).encode(), 0
    # Bytes paths and raw reads: a ``str`` path (``open``, and pathlib even
    # more, which interns every part) leaves a few bytes behind for each new
    # pid, and each turn's command is a new pid: the soak would count its own
    # bookkeeping as memory the turns kept.
    for entry in os.listdir(b"/proc"):
        if not entry.isdigit() or int(entry) == exclude:
            continue
        try:
            fd = os.open(b"/proc/" + entry + b"/stat", os.O_RDONLY)
        except OSError:
            continue  # gone meanwhile
        try:
            stat = os.read(fd, 4096)
        except OSError:
            continue
        finally:
            os.close(fd)
        if stat.rsplit(b")", 1)[1].split()[1] == me:  # the field after the state is the parent
            count += 1
    return count


async def settle() -> None:
    """Collect, let the finalizers that scheduled run, and again, until two
    rounds in a row find nothing to collect and no task running. An SDK
    stream's async generators are closed by tasks, one nested generator after
    the other, and the last of them holds the turn's last request (its whole
    JSON body) until it runs: sampled before that, one request, which grows
    with the history, would read as memory each turn kept."""
    before = asyncio.all_tasks()
    quiet = 0
    for _ in range(50):  # three or four rounds in practice
        busy = gc.collect() > 0
        for _ in range(3):
            await asyncio.sleep(0)
            busy = busy or not asyncio.all_tasks() <= before
        quiet = 0 if busy else quiet + 1
        if quiet == 2:
            return


def deep_size(obj: object, seen: set[int]) -> int:
    """Bytes of ``obj`` and of the dicts, lists, history items and strings inside it, each once."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple):
        size += sum(deep_size(v, seen) for v in obj)
    elif is_dataclass(obj):  # a typed history item (slots: getsizeof counts only its own fields' pointers)
        size += sum(deep_size(getattr(obj, f.name), seen) for f in fields(obj))
    elif isinstance(obj, PackedLog):  # its lists of packed turns (its packer is shared, counted once)
        size += sum(deep_size(v, seen) for v in vars(obj).values())
    return size


def sample(turn: int, turn_s: float, peak: int, history: list[Any], log: PackedLog, server_pid: int) -> Sample:
    with open("/proc/self/statm", encoding="ascii") as f:
        rss = int(f.read().split()[1]) * PAGE
    traced = tracemalloc.get_traced_memory()[0]
    return Sample(
        turn, rss, traced, peak, len(os.listdir("/proc/self/fd")), len(os.listdir("/proc/self/task")),
        children(server_pid), turn_s, len(json.dumps(history_json(history), ensure_ascii=False).encode()),
        deep_size(history, set()), deep_size(log, set()),
    )


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs."""
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0


def type_counts() -> Counter[str]:
    return Counter(type(o).__qualname__ for o in gc.get_objects())


async def soak(args: argparse.Namespace, base_url: str, server_pid: int, folder: Path) -> dict[str, Any]:
    # Imported here: DESKTOP_AGENT_HOME is set first (no user settings read or written).
    from desktop_agent.cli.events_file import EventsWriter
    from desktop_agent.cli.terminal_io import TerminalIO
    from desktop_agent.cli.view import TerminalView
    from desktop_agent.core.bus import SessionMessageBus
    from desktop_agent.services import build_services

    mcp = folder / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    services = await build_services(
        base_url=base_url, model="scripted", api_key="soak", mcp_config=mcp, tts="none", start_mcp=True
    )
    # Traced from here: the imports and start-up are not what a turn leaves;
    # frozen, they are not walked by the collection before each sample.
    gc.collect()
    gc.freeze()
    tracemalloc.start(args.frames or (25 if args.diagnose else 1))
    conversation = services.new_conversation()
    sink = open(os.devnull, "w", encoding="utf-8")  # the terminal's output, not kept
    view = TerminalView(TerminalIO(io.StringIO(), sink), services.forms, "all", sink, sink)
    events = EventsWriter(Path(os.devnull))
    table = SampleTable(args.turns)
    snapshot: tracemalloc.Snapshot | None = None
    counts: Counter[str] = Counter()
    try:
        for n in range(1, args.turns + 1):

            def on_bus(bus: SessionMessageBus) -> None:
                events.attach(bus)
                view.bus = bus

            view.conversation = conversation
            tracemalloc.reset_peak()
            start = time.perf_counter()
            outcome = await conversation.run_turn(
                f"turn {n}: run echo", view, auto_approve=lambda _name: True, on_bus=on_bus
            )
            elapsed = time.perf_counter() - start
            peak = tracemalloc.get_traced_memory()[1]
            if outcome.status != "completed":
                raise SystemExit(f"turn {n} ended {outcome.status}: {outcome}")
            await settle()
            taken = sample(n, elapsed, peak, conversation.history, conversation.events, server_pid)
            table.put(taken)
            if args.progress and n % args.progress == 0:
                print(f"turn {n}: {taken}", file=sys.stderr, flush=True)
            del taken
            if n == args.warmup and args.diagnose:
                snapshot = tracemalloc.take_snapshot()
                counts = type_counts()
        diagnosis = diagnose(snapshot, counts, args.turns - args.warmup) if snapshot is not None else {}
        samples = table.samples()
    finally:
        events.close()
        sink.close()
        await services.close_conversation(conversation.conversation_id)
        await services.aclose()
        tracemalloc.stop()
    return report(samples, args.warmup, diagnosis)


def diagnose(before: tracemalloc.Snapshot, counts: Counter[str], turns: int) -> dict[str, object]:
    grown = type_counts() - counts  # before the comparison's own objects exist
    after = tracemalloc.take_snapshot()
    filters = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    stats = after.filter_traces(filters).compare_to(before.filter_traces(filters), "traceback")
    top = []
    for stat in stats[:8]:
        if stat.size_diff <= 0:
            break
        frames = [f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback]
        top.append({"bytes_per_turn": stat.size_diff / turns, "blocks_per_turn": stat.count_diff / turns,
                    "traceback": frames})
    return {"traced_growth": top, "objects_per_turn": {k: v / turns for k, v in grown.most_common(12)}}


def report(samples: list[Sample], warmup: int, diagnosis: dict[str, object]) -> dict[str, Any]:
    after = [s for s in samples if s.turn > warmup] or samples
    xs = [float(s.turn) for s in after]
    points = {"start": samples[0], "middle": samples[len(samples) // 2], "end": samples[-1]}

    def window(s: Sample) -> float:
        """Mean time per turn over up to 10 turns ending at ``s``."""
        near = [t.turn_s for t in samples if s.turn - 10 < t.turn <= s.turn]
        return sum(near) / len(near)

    traced = slope(xs, [float(s.traced) for s in after])
    history_mem = slope(xs, [float(s.history_mem) for s in after])
    log_mem = slope(xs, [float(s.log_mem) for s in after])
    return {
        "turns": len(samples),
        "warmup": warmup,
        "points": {name: {**asdict(s), "turn_s": window(s)} for name, s in points.items()},
        "rss_slope_bytes_per_turn": slope(xs, [float(s.rss) for s in after]),
        "traced_slope_bytes_per_turn": traced,
        "peak_slope_bytes_per_turn": slope(xs, [float(s.peak) for s in after]),
        "history_slope_bytes_per_turn": slope(xs, [float(s.history) for s in after]),
        "history_mem_slope_bytes_per_turn": history_mem,
        "log_mem_slope_bytes_per_turn": log_mem,
        "retained_per_history": traced / history_mem if history_mem > 0 else None,
        "retained_per_conversation": traced / (history_mem + log_mem) if history_mem + log_mem > 0 else None,
        "fds_growth": samples[-1].fds - samples[0].fds,
        "threads_growth": samples[-1].threads - samples[0].threads,
        "children_end": samples[-1].children,
        **diagnosis,
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"{'':7} {'turn':>5} {'RSS MiB':>8} {'traced MiB':>10} {'peak MiB':>8} {'fds':>4} {'threads':>7} "
          f"{'children':>8} {'ms/turn':>8} {'history KB':>10} {'in memory':>9}")
    for name, p in result["points"].items():
        print(f"{name:7} {p['turn']:5d} {p['rss'] / 2**20:8.1f} {p['traced'] / 2**20:10.2f} "
              f"{p['peak'] / 2**20:8.2f} {p['fds']:4d} {p['threads']:7d} {p['children']:8d} "
              f"{p['turn_s'] * 1000:8.1f} {p['history'] / 1000:10.1f} {p['history_mem'] / 1000:9.1f}")
    print(f"slopes per turn over turns {result['warmup'] + 1}..{result['turns']} (least squares):")
    for label, key in (("RSS", "rss"), ("traced", "traced"), ("peak in a turn", "peak"),
                       ("history (JSON)", "history"), ("history in memory", "history_mem"),
                       ("display log in mem", "log_mem")):
        print(f"  {label:18} {result[key + '_slope_bytes_per_turn'] / 1000:8.2f} KB/turn")
    ratio = result["retained_per_history"]
    if ratio is not None:
        print(f"  retained / history {ratio:8.2f} x (traced over history in memory)")
    ratio = result["retained_per_conversation"]
    if ratio is not None:
        print(f"  retained / conversation {ratio:5.2f} x (traced over history and display log; the rule: at most 2)")
    for entry in result.get("traced_growth", []):
        print(f"  +{entry['bytes_per_turn']:8.0f} B/turn {entry['blocks_per_turn']:5.1f} blocks/turn  "
              + " <- ".join(reversed(entry["traceback"][-6:])))
    grown = result.get("objects_per_turn", {})
    if grown:
        print("  objects per turn: " + ", ".join(f"{k} {v:.2f}" for k, v in grown.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--warmup", type=int, help="turns left out of the slopes (default: a sixth)")
    parser.add_argument("--diagnose", action="store_true", help="compare tracemalloc snapshots and gc counts")
    parser.add_argument("--frames", type=int, help="traceback depth traced (default 1; with --diagnose 25)")
    parser.add_argument("--progress", type=int, default=0, metavar="N", help="a line on stderr every N turns")
    parser.add_argument("--json", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args()
    if args.turns < 1:
        parser.error("--turns must be at least 1")
    args.warmup = min(args.turns - 1, args.turns // 6 if args.warmup is None else args.warmup)
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    os.environ["DESKTOP_AGENT_HOME"] = str(folder / "home")
    os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    os.environ.pop("OPENAI_API_KEY", None)
    proc, base_url = start_server(args.turns, folder)
    try:
        result = asyncio.run(soak(args, base_url, proc.pid, folder))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print_table(result)
    line = json.dumps(result)
    if args.json is not None:
        args.json.write_text(line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
