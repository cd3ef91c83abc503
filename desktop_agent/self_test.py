"""``desktop-agent --self-test``: does this installation work?

Seven checks, one line each on stdout (``ok``/``FAIL``, the check, what was
seen), exit 0 only when all hold:

- ``mcp``: a headless demo turn ("what time is it?") calls ``get_current_time``
  on the MCP time server and gets a time back. It runs the headless mode as
  a child process (the bundle's own executable when frozen, so the bundled
  server is what answers), in a fresh data folder, with the default servers
  file unless ``--mcp-config`` names another: a file whose ``time`` server
  cannot start makes this check fail (the tests do so).
- ``window``: an offscreen window renders a tool card and a visual card.
- ``audio``: QtMultimedia has a backend (its media plugins, listed) and a
  short WAV clip plays to its end through it; output devices are counted,
  not required (a server has none, and a player there still plays).
- ``espeak-ng``: found and speaking, or reported missing (offline speech is
  then unavailable; that is said, not failed).
- ``piper``: "ready" when a Piper voice is on disk (it is loaded and speaks
  a few words), "needs a voice" with the download size when none is; it
  fails only when a voice that is here cannot speak.
- ``speech input``: each offline recogniser's library loads (Whisper's
  CTranslate2 and OpenCC, SenseVoice's sherpa-onnx, pocketsphinx), and one
  whose model is here hears silence as nothing; a missing model is
  reported with its size ("needs a model"), not failed.
- ``translations``: Qt's Chinese catalogue loads, so Qt's own buttons and
  menus follow the app into Chinese (``ui/common/qt_translations.py``).

The window check and the demo turn run at the same time (the turn is a child
process). Qt's own messages are kept out of the output.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TURN_TIMEOUT_S = 90.0
PROMPT = "what time is it?"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome: one line of the report."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def own_command() -> list[str]:
    """How to start this app again: the bundle's executable, or this Python
    with ``-m desktop_agent``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "desktop_agent"]


# --------------------------------------------------------------- the turn


def start_demo_turn(home: Path, mcp_config: Path | None) -> subprocess.Popen[str]:
    events = home / "events.jsonl"
    command = [*own_command(), "--cli", "--model", "demo", "--tts", "none", "--approve", "all",
               "--prompt", PROMPT, "--events-jsonl", str(events)]
    if mcp_config is not None:
        command += ["--mcp-config", str(mcp_config)]
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home / "data")}
    return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def finish_demo_turn(proc: subprocess.Popen[str], home: Path, started: float) -> CheckResult:
    try:
        output, _ = proc.communicate(timeout=max(1.0, TURN_TIMEOUT_S - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return CheckResult("mcp", False, f"the demo turn did not end within {TURN_TIMEOUT_S:g} s")
    took = time.monotonic() - started
    result = _time_result(home / "events.jsonl")
    if proc.returncode == 0 and result is not None:
        return CheckResult("mcp", True, f"demo turn called get_current_time on the time server: {result} "
                                        f"({took:.1f} s)")
    last = [line for line in output.splitlines() if line.strip()][-1:] or ["no output"]
    return CheckResult("mcp", False, f"the demo turn got no time from the time server (exit "
                                     f"{proc.returncode}; last line: {last[0][:160]})")


def _time_result(events: Path) -> str | None:
    """The datetime the time server returned in the turn, or None."""
    try:
        lines = events.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        message = json.loads(line)
        if (message.get("type") == "tool_call" and message.get("state") == "result"
                and message.get("tool_name") == "get_current_time" and not message.get("is_error")):
            try:
                value = json.loads(message.get("result") or "")
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict) and isinstance(value.get("datetime"), str):
                return str(value["datetime"])
    return None


# -------------------------------------------------------------- Qt checks


def check_window() -> CheckResult:
    from PySide6.QtWidgets import QApplication

    from desktop_agent.core.messages import Card, CardField
    from desktop_agent.ui.cards.phase import CardPhase
    from desktop_agent.ui.cards.state import ToolCardState
    from desktop_agent.ui.cards.tool_card import ToolCardWidget
    from desktop_agent.ui.cards.visual_card import VisualCardWidget
    from desktop_agent.ui.shell.main_window import MainWindow

    window = MainWindow(tray=False)
    try:
        window.resize(880, 760)
        window.show()
        tool = ToolCardWidget(ToolCardState(
            "self_test_1", "get_current_time", phase=CardPhase.DONE, arguments={"timezone": "UTC"},
            result='{"timezone": "UTC", "datetime": "2026-01-01T00:00:00+00:00"}', server="time",
        ), window.chat.texts)
        visual = VisualCardWidget(Card(title="Self-test", body="Rendered **offscreen**.",
                                       fields=(CardField("check", "window"),)), window.chat.texts)
        window.chat.add_card(tool)
        window.chat.add_card(visual)
        for _ in range(5):
            QApplication.processEvents()
        shots = {"tool card": tool.grab().toImage(), "visual card": visual.grab().toImage()}
        for name, image in shots.items():
            if image.isNull() or image.width() < 50 or image.height() < 20:
                return CheckResult("window", False, f"the {name} did not render ({image.width()}×{image.height()})")
            if len(_colours(image)) < 3:
                return CheckResult("window", False, f"the {name} rendered blank")
        platform = QApplication.platformName()
        sizes = ", ".join(f"{name} {image.width()}×{image.height()}" for name, image in shots.items())
        return CheckResult("window", True, f"{platform} window rendered a {sizes}")
    finally:
        window.close()
        window.deleteLater()


def _colours(image: object) -> set[int]:
    from PySide6.QtGui import QImage

    assert isinstance(image, QImage)
    step_x, step_y = max(1, image.width() // 40), max(1, image.height() // 20)
    return {image.pixel(x, y) for x in range(0, image.width(), step_x) for y in range(0, image.height(), step_y)}


def check_audio(folder: Path) -> CheckResult:
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer, QUrl
    from PySide6.QtMultimedia import QAudioOutput, QMediaDevices, QMediaFormat, QMediaPlayer

    from desktop_agent.voice.wav import tone_wav

    backends = sorted({
        path.name.removeprefix("lib").split("mediaplugin")[0]
        for folder_name in QCoreApplication.libraryPaths()
        for path in (Path(folder_name) / "multimedia").glob("*mediaplugin*")
    })
    decodes = QMediaFormat().supportedFileFormats(QMediaFormat.ConversionMode.Decode)
    outputs = len(QMediaDevices.audioOutputs())
    seen = (f"backend {', '.join(backends) or 'none'}, decodes {len(decodes)} formats, "
            f"{outputs} output device{'s' if outputs != 1 else ''}")
    if not backends:
        return CheckResult("audio", False, f"{seen}: no QtMultimedia backend")
    # A short clip played to its end (without a device it still plays, in real time).
    clip = folder / "tone.wav"
    clip.write_bytes(tone_wav(0.2))
    player, output, loop = QMediaPlayer(), QAudioOutput(), QEventLoop()
    player.setAudioOutput(output)
    outcome: list[str] = []

    def status(value: QMediaPlayer.MediaStatus) -> None:
        if value in (QMediaPlayer.MediaStatus.EndOfMedia, QMediaPlayer.MediaStatus.InvalidMedia):
            outcome.append(value.name)
            loop.quit()

    def error(_error: QMediaPlayer.Error, text: str) -> None:
        outcome.append(f"error {text}")
        loop.quit()

    player.mediaStatusChanged.connect(status)
    player.errorOccurred.connect(error)
    QTimer.singleShot(10_000, loop.quit)
    player.setSource(QUrl.fromLocalFile(str(clip)))
    player.play()
    loop.exec()
    player.stop()
    if outcome[:1] != ["EndOfMedia"]:
        return CheckResult("audio", False, f"{seen}; a WAV clip did not play: {outcome[:1] or ['timed out']}")
    return CheckResult("audio", True, f"{seen}; a WAV clip played to its end")


def check_espeak() -> CheckResult:
    path = shutil.which("espeak-ng")
    if path is None:
        return CheckResult("espeak-ng", True, "not found: offline speech is unavailable until espeak-ng is "
                                              "installed (reported, not required)")
    try:
        done = subprocess.run([path, "-v", "en", "--stdout", "self test"], capture_output=True, timeout=20,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CheckResult("espeak-ng", False, f"{path} did not run: {exc}")
    if done.returncode != 0 or not done.stdout.startswith(b"RIFF"):
        reason = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no WAV on stdout"]
        return CheckResult("espeak-ng", False, f"{path} failed (exit {done.returncode}): {reason[0][:160]}")
    return CheckResult("espeak-ng", True, f"{path} speaks ({len(done.stdout)} bytes of WAV)")


# ------------------------------------------------------------------- main


def check_piper() -> CheckResult:
    from desktop_agent.storage.settings import SettingsStore
    from desktop_agent.voice.piper_check import piper_report

    settings = SettingsStore().load().settings
    works, detail = piper_report(settings.piper_voice_en, settings.piper_voice_zh)
    return CheckResult("piper", works, detail)


def check_speech_input() -> CheckResult:
    from desktop_agent.voice.stt.check import stt_report

    works, detail = stt_report()
    return CheckResult("speech input", works, detail)


def check_translations() -> CheckResult:
    """Qt's Chinese catalogue is where Qt looks (the bundle must carry it)."""
    from PySide6.QtCore import QCoreApplication

    from desktop_agent.ui.common.qt_translations import CATALOGUES, apply_qt_language

    name = CATALOGUES["zh"]
    try:
        if not apply_qt_language("zh"):
            return CheckResult("translations", False, f"Qt's {name} catalogue could not be loaded")
        cancel = QCoreApplication.translate("QPlatformTheme", "Cancel")
    finally:
        apply_qt_language("en")
    if cancel == "Cancel":
        return CheckResult("translations", False, f"Qt's {name} catalogue loaded but translates nothing")
    return CheckResult("translations", True, f"Qt's {name} catalogue loads (Cancel: {cancel})")


def run(args: argparse.Namespace) -> int:
    """Run every check, print one line each; 0 when all hold, else 1."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    # Qt lists the optional media libraries it could not load, and FFmpeg
    # describes the clip the audio check plays: noise here.
    os.environ.setdefault("QT_LOGGING_RULES", "qt.multimedia.ffmpeg*=false;qt.multimedia.symbolsresolver=false")
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    mcp_config = getattr(args, "mcp_config", None)
    with tempfile.TemporaryDirectory(prefix="desktop-agent-self-test-") as folder:
        home = Path(folder)
        started = time.monotonic()
        turn = start_demo_turn(home, Path(mcp_config).resolve() if mcp_config else None)
        qInstallMessageHandler(lambda *_: None)
        app = QApplication.instance() or QApplication(sys.argv[:1])
        try:
            results = [_guarded("window", check_window), _guarded("audio", lambda: check_audio(home)),
                       _guarded("espeak-ng", check_espeak), _guarded("piper", check_piper),
                       _guarded("speech input", check_speech_input),
                       _guarded("translations", check_translations)]
            results.insert(0, finish_demo_turn(turn, home, started))
        finally:
            if turn.poll() is None:
                turn.kill()
                turn.communicate()
            qInstallMessageHandler(None)
        del app
    for result in results:
        print(result.line(), flush=True)
    return 0 if all(r.ok for r in results) else 1


def _guarded(name: str, check: Callable[[], CheckResult]) -> CheckResult:
    """A check that raised is a failed check, in one line."""
    try:
        return check()
    except Exception as exc:  # the report must still come out, one line per check
        return CheckResult(name, False, f"{type(exc).__name__}: {exc}")
