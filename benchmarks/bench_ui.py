"""The window's responsiveness and start-up.

1. Event-loop stalls. The real window (real Conversation, OpenAIProvider,
   qasync loop) already holds 500 messages; a reply of ``--tokens`` tokens
   streams into it at 200 tokens/s from the scripted server running in its
   own process (a real endpoint is remote too). A 2 ms ``QTimer``
   heartbeat records when the Qt event loop got round to it; the gaps
   between beats are the stalls. Reported: p50, p99 and max gap while the
   reply streams, quiet and loaded side by side (loaded: ``--burners``
   processes, one per core by default, spinning on the CPU for the run,
   started by the benchmark itself, as a build or a browser would).
   Target p99 ≤ 16 ms (one frame at 60 Hz) in both. Beside each, the
   window thread's own CPU time between beats (``cpu_gap``): what the app's
   code costs the loop, which other processes' load does not change, so a
   regression shows on a busy machine too.
2. Start-up. From process launch to the first window shown: a bare
   PySide6 ``QMainWindow`` (a ``QPlainTextEdit`` inside) against ``run_gui``
   (demo model, no speech, and an MCP servers file whose one server never
   answers), one run each in the same invocation (``--repeat`` for a
   median), as a ratio (target ≤ 1.5). Then the time to an input that
   accepts text (a key sent to the box lands in it) for both, as a ratio
   (the window never waits for an MCP server: the silent one must not hold
   it up), and when the app's
   services were attached (Settings opens from then). Also the window
   through ``python -m desktop_agent``'s argument parser (``entry``), and
   the idle memory (RSS) of each once the window is up and (for the app)
   the services are attached, as a ratio too (target: an idle window
   ≤ 150 MiB).
3. The bundle: when ``dist/desktop-agent`` (``packaging/``) is built, its start
   (process start to the window shown, services attached and closed)
   against the same from the source tree.

Run: ``.venv/bin/python benchmarks/bench_ui.py [--tokens 1000] [--messages 500] [--repeat 1] [--burners N]
[--stall-runs 3]`` (``--stall-runs``: quiet and loaded stall runs alternating, medians reported;
the machine is shared and noisy, one run is not a figure)
(offscreen by default; under Xvfb set ``DISPLAY`` and ``--platform xcb``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]


# ----------------------------------------------------------------- helpers


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def reply_chunks(tokens: int) -> list[str]:
    """Markdown-ish prose: sentences, a paragraph break every 40 tokens,
    a list item now and then, so segments and re-renders happen as in life."""
    chunks: list[str] = []
    for i in range(tokens):
        word = WORDS[i % len(WORDS)]
        if i % 40 == 39:
            word += "\n\n"
        elif i % 120 == 60:
            word = "\n- " + word.lstrip()
        chunks.append(word)
    return chunks


def start_server(script: list[dict[str, Any]]) -> tuple[subprocess.Popen[str], str]:
    path = Path(tempfile.mkdtemp()) / "replies.json"
    path.write_text(json.dumps(script))
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent.testing.scripted_server", "--script", str(path)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"scripted server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


# ------------------------------------------------------------ 1. stalls


BURN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
"""A CPU burner: a child that spins until killed (or for at most ``seconds``)."""


class Burners:
    """``count`` processes spinning on the CPU while in use: the loaded run."""

    def __init__(self, count: int, seconds: float = 600) -> None:
        self._count, self._seconds = count, seconds
        self._procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Burners:
        code = BURN.format(seconds=self._seconds)
        self._procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(self._count)]
        return self

    def __exit__(self, *_exc: object) -> None:
        for proc in self._procs:
            proc.kill()
        for proc in self._procs:
            proc.wait(timeout=10)


def populate(window: Any, messages: int) -> None:
    body = (
        "Here is **what I found**:\n\n- the first point, with `code`\n- the second point\n\n"
        "The quick brown fox jumps over the lazy dog. " * 3
    )
    for i in range(messages // 2):
        window.chat.add_user(f"Question number {i}: what about the fox?")
        window.chat.add_assistant_text(body)
        window.chat.end_bubble()


CHATTY_COMMAND = "for i in $(seq 1 20); do seq 1 10000; sleep 0.1; done"
"""200,000 short lines over about two seconds: a chatty command, whose
output must not stall the window's event loop."""


def bench_stalls(tokens: int, messages: int, rate: float, *, chatty: bool = False) -> dict[str, Any]:
    """The stall figures while a reply streams; with ``chatty`` the turn
    first runs :data:`CHATTY_COMMAND` (always allowed, so no click), its
    output live on the card, and the gaps while it runs are reported too."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_agent.core.agent import AgentClient
    from desktop_agent.core.approval import allow_key
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.tool_router import ToolRouter
    from desktop_agent.llm.openai_provider import OpenAIProvider
    from desktop_agent.storage.settings import SettingsStore
    from desktop_agent.testing.window_rig import SignalLog, build_window, run_on_qasync
    from desktop_agent.tools import builtin_tools
    from desktop_agent.ui.cards.tool_card import ToolCardWidget
    from desktop_agent.ui.shell.runtime import LAZY_IMPORTS, settle_memory, warm_imports

    app = QApplication.instance() or QApplication([])
    if chatty:
        call = {"name": "run_command", "arguments": json.dumps({"command": CHATTY_COMMAND})}
        script: list[dict[str, Any]] = [
            {"text": "Running it.<need_tool>", "chunk_size": 4},
            {"text": "Let me run it. ", "tool_calls": [call]},
            {"chunks": reply_chunks(tokens), "tokens_per_s": rate},
        ]
        store = SettingsStore()
        store.save(replace(store.load().settings, always_allow=(allow_key("run_command", None),)))
    else:
        script = [
            {"text": "Sure.<no_tool>", "chunk_size": 4},
            {"chunks": reply_chunks(tokens), "tokens_per_s": rate},
        ]
    proc, base_url = start_server(script)
    result: dict[str, Any] = {}

    async def main() -> None:
        forms = FormManager()
        provider = OpenAIProvider(base_url=base_url, api_key="bench", model="scripted")
        conversation = Conversation(AgentClient(provider, ToolRouter(builtin_tools(forms))))
        window, _ = build_window(conversation, forms)
        window.resize(900, 800)
        window.show()
        await warm_imports(*LAZY_IMPORTS, optional=True)  # what run_gui warms at attach (the SDK) and at the first key typed (Markdown)
        t0 = time.perf_counter()
        populate(window, messages)
        for _ in range(3):  # let the 500 messages lay out before measuring
            app.processEvents()
            await asyncio.sleep(0.2)
        settle_memory()  # what run_gui does after every turn
        result["populate_s"] = round(time.perf_counter() - t0, 3)
        turns = SignalLog(window.turn_finished)
        command_span: dict[str, float] = {}
        window.card_changed.connect(lambda _id, phase: command_span.setdefault(phase, time.perf_counter()))
        beats: list[float] = []
        cpu_beats: list[float] = []
        heartbeat = QTimer()
        heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
        heartbeat.setInterval(2)
        def beat() -> None:
            beats.append(time.perf_counter())
            cpu_beats.append(time.thread_time())

        heartbeat.timeout.connect(beat)
        heartbeat.start()
        started = time.perf_counter()
        cpu0 = time.process_time()
        window.send_text("Tell me about the fox.")
        status = await turns.wait_for(timeout=tokens / rate * 4 + 30)
        heartbeat.stop()
        elapsed = time.perf_counter() - started
        gaps = [(b - a) * 1000 for a, b in itertools.pairwise(beats)]
        cpu_gaps = [(b - a) * 1000 for a, b in itertools.pairwise(cpu_beats)]
        result.update(
            status=status[0],
            stream_s=round(elapsed, 2),
            cpu_s=round(time.process_time() - cpu0, 2),
            beats=len(beats),
            cpu_gap_p99_ms=round(percentile(cpu_gaps, 99), 2),
            cpu_gap_max_ms=round(max(cpu_gaps, default=float("nan")), 2),
            gap_p50_ms=round(percentile(gaps, 50), 2),
            gap_p99_ms=round(percentile(gaps, 99), 2),
            gap_max_ms=round(max(gaps, default=float("nan")), 2),
            widgets=len(window.chat.items()),
        )
        if chatty:
            start, end = command_span.get("executing", 0.0), command_span.get("done", 0.0)
            during = [(b - a) * 1000 for a, b in itertools.pairwise(beats) if start <= a and b <= end]
            cards = [w for w in window.chat.items() if isinstance(w, ToolCardWidget)]
            lines = sum(c.state.output.count("\n") for c in cards)
            result.update(
                command_s=round(end - start, 2),
                command_gap_p99_ms=round(percentile(during, 99), 2),
                command_gap_max_ms=round(max(during, default=float("nan")), 2),
                output_lines=lines,
            )
        window.close()
        await window.shutdown()
        await provider.aclose()
        window.deleteLater()

    try:
        run_on_qasync(main, timeout=tokens / rate * 4 + 120)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return result


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's figures, each number the median over ``runs`` (the first
    run's for the rest); ``p99_runs``: every run's p99, in order."""
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = round(statistics.median(r[key] for r in runs), 2)
    if len(runs) > 1:
        out["runs"] = len(runs)
        out["p99_runs"] = [r["gap_p99_ms"] for r in runs]
    return out


def runs_note(runs: list[dict[str, Any]]) -> str:
    """The note after the heading when there was more than one run: how
    many, and each run's p99."""
    if len(runs) < 2:
        return ""
    return f" (medians of {len(runs)} runs; p99 each: {', '.join(str(r['gap_p99_ms']) for r in runs)})"


# ----------------------------------------------------------- 2. start-up

_COMMON = """
import argparse, sys, time
from pathlib import Path
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication
def say(what):
    print(what, time.time(), flush=True)
def rss():
    line = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmRSS:")][0]
    print("RSS", int(line.split()[1]) / 1024, flush=True)
def accepts_text(edit):
    # A key typed into the box lands in it: enabled, shown, and the loop runs.
    if not (edit.isEnabled() and edit.isVisible()):
        return False
    before = edit.toPlainText()
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(edit, QKeyEvent(kind, Qt.Key.Key_X, Qt.KeyboardModifier.NoModifier, "x"))
    return edit.toPlainText() == before + "x"
def probe_input(edit):
    if accepts_text(edit):
        say("INPUT")
    else:
        QTimer.singleShot(5, lambda: probe_input(edit))
"""
"""What each child shares: it prints when its window was shown (SHOWN),
when its input first took a typed key (INPUT), then its idle RSS."""

_BARE_CHILD = _COMMON + """
from PySide6.QtWidgets import QMainWindow, QPlainTextEdit
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1100, 760)
window.setWindowTitle("bare")
edit = QPlainTextEdit(window)
window.setCentralWidget(edit)
def idle():
    rss()
    app.quit()
def shown():
    say("SHOWN")
    probe_input(edit)
    QTimer.singleShot(IDLE_MS, idle)
window.show()
QTimer.singleShot(0, shown)
app.exec()
"""

_APP_CHILD = _COMMON + """
from desktop_agent.app import run_gui
def idle():
    rss()
    for w in QApplication.topLevelWidgets():
        if w.isWindow() and w.isVisible():
            w.close()
def on_attached():
    say("ATTACHED")
    QTimer.singleShot(IDLE_MS, idle)
def shown():
    say("SHOWN")
    window = next(w for w in QApplication.topLevelWidgets() if hasattr(w, "attached"))
    window.attached.connect(on_attached)
    probe_input(window.input)
ARGS
args.on_window_shown = shown
sys.exit(run_gui(args))
"""

_DIRECT_ARGS = 'args = argparse.Namespace(model="demo", tts="none", mcp_config=MCP)'
_ENTRY_ARGS = (
    "from desktop_agent.options import build_parser\n"
    'args = build_parser().parse_args(["--model", "demo", "--tts", "none", "--mcp-config", MCP])'
)


def launch(code: str, env: dict[str, str]) -> dict[str, float]:
    started = time.time()
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"start-up child failed ({proc.returncode}):\n{proc.stderr}")
    values = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    out = {"shown_s": float(values["SHOWN"]) - started, "input_s": float(values["INPUT"]) - started,
           "rss_mib": float(values["RSS"])}
    if "ATTACHED" in values:
        out["attached_s"] = float(values["ATTACHED"]) - started
    return out


def bench_startup(platform: str, repeat: int, idle_ms: int) -> dict[str, Any]:
    """Start-up figures; the app's MCP servers file holds one server that
    never answers, which must hold up neither its input nor its services
    (the window never waits for a server)."""
    from desktop_agent.testing.mcp_servers import silent_entry

    home = tempfile.mkdtemp(prefix="bench-ui-home-")
    mcp = Path(home) / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"silent": silent_entry()}}))
    env = {**os.environ, "QT_QPA_PLATFORM": platform, "DESKTOP_AGENT_HOME": home, "PYTHONPATH": str(ROOT),
           # An installed app has its bytecode compiled; cache it outside the tree.
           "PYTHONPYCACHEPREFIX": str(Path(home) / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    codes = {
        "bare": _BARE_CHILD,
        "app": _APP_CHILD.replace("ARGS", _DIRECT_ARGS),
        "entry": _APP_CHILD.replace("ARGS", _ENTRY_ARGS),
    }
    codes = {name: code.replace("IDLE_MS", str(idle_ms)).replace("MCP", repr(str(mcp))) for name, code in codes.items()}
    for code in codes.values():
        launch(code, env)  # warm the file cache for all, unmeasured
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in codes}
    for i in range(repeat):
        order = list(codes) if i % 2 == 0 else list(reversed(codes))
        for name in order:
            runs[name].append(launch(codes[name], env))

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[name])

    return {
        "bare_shown_s": round(median("bare", "shown_s"), 3),
        "app_shown_s": round(median("app", "shown_s"), 3),
        "entry_shown_s": round(median("entry", "shown_s"), 3),
        "ratio": round(median("app", "shown_s") / median("bare", "shown_s"), 2),
        "entry_ratio": round(median("entry", "shown_s") / median("bare", "shown_s"), 2),
        "bare_input_s": round(median("bare", "input_s"), 3),
        "app_input_s": round(median("app", "input_s"), 3),
        "input_ratio": round(median("app", "input_s") / median("bare", "input_s"), 2),
        "app_attached_s": round(median("app", "attached_s"), 3),
        "bare_rss_mib": round(median("bare", "rss_mib"), 1),
        "app_rss_mib": round(median("app", "rss_mib"), 1),
        "rss_ratio": round(median("app", "rss_mib") / median("bare", "rss_mib"), 2),
        "runs": repeat,
    }


BUNDLE = ROOT / "dist" / "desktop-agent" / "desktop-agent"


def bench_bundle(platform: str, repeat: int) -> dict[str, Any] | None:
    """The PyInstaller bundle (scripts/build-bundle.sh) against the source
    tree, each launched the same way: from process start until it has shown
    the window, attached the services and closed (``--quit-after-ms 0``;
    no MCP servers, so only the app's own start counts). None when no
    bundle is built."""
    if not BUNDLE.is_file():
        return None
    home = tempfile.mkdtemp(prefix="bench-ui-bundle-")
    mcp = Path(home) / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    flags = ["--model", "demo", "--tts", "none", "--mcp-config", str(mcp), "--quit-after-ms", "0"]
    env = {**os.environ, "QT_QPA_PLATFORM": platform, "DESKTOP_AGENT_HOME": home,
           "PYTHONPYCACHEPREFIX": str(Path(home) / "pycache")}
    commands = {"bundle": [str(BUNDLE), *flags], "source": [sys.executable, "-m", "desktop_agent", *flags]}

    def once(command: list[str]) -> float:
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120, check=True)
        return time.perf_counter() - started

    for command in commands.values():
        once(command)  # warm the file cache, unmeasured
    runs: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(repeat):
        for name in (list(commands) if i % 2 == 0 else list(reversed(commands))):
            runs[name].append(once(commands[name]))
    bundle, source = statistics.median(runs["bundle"]), statistics.median(runs["source"])
    return {"bundle_s": round(bundle, 3), "source_s": round(source, 3), "ratio": round(bundle / source, 2),
            "runs": repeat}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--rate", type=float, default=200.0, help="tokens per second")
    parser.add_argument("--repeat", type=int, default=1, help="start-up runs of each (median)")
    parser.add_argument("--idle-ms", type=int, default=1500, help="idle time before reading RSS")
    parser.add_argument("--platform", default=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2,
                        help="CPU burners beside the loaded stall run (0: no loaded run)")
    parser.add_argument("--stall-runs", type=int, default=1,
                        help="stall runs of each, quiet and loaded alternating (medians, each run's p99 beside)")
    parser.add_argument("--skip", choices=("stalls", "chatty", "startup", "bundle"), action="append", default=[])
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", args.platform)
    os.environ.setdefault("DESKTOP_AGENT_HOME", tempfile.mkdtemp(prefix="bench-ui-"))
    report: dict[str, Any] = {}
    if "startup" not in args.skip:
        report["startup"] = bench_startup(args.platform, args.repeat, args.idle_ms)
        s = report["startup"]
        print(f"start-up to first window: bare {s['bare_shown_s']:.3f} s, run_gui {s['app_shown_s']:.3f} s "
              f"(ratio {s['ratio']}, target ≤ 1.5), via `python -m desktop_agent`'s parser "
              f"{s['entry_shown_s']:.3f} s (ratio {s['entry_ratio']}); idle RSS bare {s['bare_rss_mib']} MiB, "
              f"app {s['app_rss_mib']} MiB (ratio {s['rss_ratio']}; target ≤ 150 MiB)", flush=True)
        print(f"start-up to an input that accepts text (one MCP server that never answers): bare "
              f"{s['bare_input_s']:.3f} s, run_gui {s['app_input_s']:.3f} s (ratio {s['input_ratio']}); "
              f"services attached (Settings opens) after {s['app_attached_s']:.3f} s", flush=True)
    if "bundle" not in args.skip:
        bundle = bench_bundle(args.platform, args.repeat)
        if bundle is None:
            print("bundle: not built (bash scripts/build-bundle.sh); skipped", flush=True)
        else:
            report["bundle"] = bundle
            print(f"bundle start to services attached and closed: bundle {bundle['bundle_s']:.3f} s, source "
                  f"{bundle['source_s']:.3f} s (ratio {bundle['ratio']})", flush=True)
    if "stalls" not in args.skip:
        quiet_runs: list[dict[str, Any]] = []
        loaded_runs: list[dict[str, Any]] = []
        for _ in range(args.stall_runs):  # quiet and loaded alternate, so a busy spell hits both
            quiet_runs.append(bench_stalls(args.tokens, args.messages, args.rate))
            if args.burners > 0:
                with Burners(args.burners):
                    loaded_runs.append(bench_stalls(args.tokens, args.messages, args.rate))
        report["stalls"] = s = median_run(quiet_runs)
        line = (f"stalls: {args.tokens} tokens at {args.rate:g}/s into {args.messages} messages"
                f"{runs_note(quiet_runs)}: quiet "
                f"gap p50 {s['gap_p50_ms']} ms, p99 {s['gap_p99_ms']} ms, max {s['gap_max_ms']} ms "
                f"(window thread's CPU between beats: p99 {s['cpu_gap_p99_ms']} ms, max {s['cpu_gap_max_ms']} ms; "
                f"stream {s['stream_s']} s, cpu {s['cpu_s']} s)")
        if loaded_runs:
            report["stalls_loaded"] = loaded = median_run(loaded_runs)
            loaded["burners"] = args.burners
            line += (f" | loaded ({args.burners} CPU burners) gap p50 {loaded['gap_p50_ms']} ms, p99 "
                     f"{loaded['gap_p99_ms']} ms, max {loaded['gap_max_ms']} ms (CPU between beats: p99 "
                     f"{loaded['cpu_gap_p99_ms']} ms; stream {loaded['stream_s']} s)")
        print(line + f"; target p99 ≤ 16; status {s['status']}", flush=True)
    if "chatty" not in args.skip:
        report["chatty"] = bench_stalls(args.tokens, args.messages, args.rate, chatty=True)
        s = report["chatty"]
        print(f"stalls with a chatty command ({s['output_lines']} lines in {s['command_s']} s, then "
              f"{args.tokens} tokens): gap p99 {s['gap_p99_ms']} ms over the turn (target ≤ 16), "
              f"p99 {s['command_gap_p99_ms']} ms and max {s['command_gap_max_ms']} ms while the command "
              f"ran; status {s['status']}", flush=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
