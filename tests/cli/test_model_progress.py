"""The speech model's download on stderr: one line rewritten on a terminal
(at most five times a second), a line per 10 % step into a file."""

from __future__ import annotations

import io
from pathlib import Path

from desktop_agent.cli.model_progress import ModelProgressPrinter
from desktop_agent.voice.stt.models import DownloadProgress

FOLDER = Path("/data/models/fake")
TOTAL = 200 << 20


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _reports(count: int, seconds: float) -> list[DownloadProgress]:
    """``count`` reports evenly from 0 to 100 % over ``seconds``."""
    return [
        DownloadProgress("Fake model", "model.onnx", TOTAL * i // count, TOTAL, seconds * i / count)
        for i in range(count + 1)
    ]


def test_into_a_file_a_line_is_written_at_each_ten_percent_step() -> None:
    out = io.StringIO()
    printer = ModelProgressPrinter(out, FOLDER)
    for report in _reports(100, 100.0):
        printer(report)

    lines = out.getvalue().splitlines()
    assert lines[0] == f"note: downloading the speech model Fake model (200 MB) to {FOLDER} …"
    assert lines[1:3] == ["Fake model: 10 % · 20 of 200 MB · about 2 min left", "Fake model: 20 % · 40 of 200 MB · about 2 min left"]
    assert lines[-2:] == ["Fake model: 100 % · 200 of 200 MB", f"note: the speech model is ready in {FOLDER}"]
    assert (len(lines), "\r" in out.getvalue()) == (12, False)


def test_on_a_terminal_one_line_is_rewritten_at_most_five_times_a_second() -> None:
    out, clock = Terminal(), Clock()
    printer = ModelProgressPrinter(out, FOLDER, clock=clock)
    for report in _reports(100, 4.0):  # 25 reports a second
        clock.now = report.elapsed_s
        printer(report)

    first, progress, done, end = out.getvalue().split("\n")
    assert (first, done, end) == (f"note: downloading the speech model Fake model (200 MB) to {FOLDER} …", f"note: the speech model is ready in {FOLDER}", "")
    rewrites = progress.split("\r")[1:]
    assert 18 <= len(rewrites) <= 22, rewrites  # 4 s at 5 a second, and the last
    assert rewrites[0] == "Fake model: 0 % · 0 of 200 MB"
    assert rewrites[-1].rstrip() == "Fake model: 100 % · 200 of 200 MB"


def test_a_shorter_line_covers_what_was_left_of_a_longer_one() -> None:
    out, clock = Terminal(), Clock()
    printer = ModelProgressPrinter(out, FOLDER, clock=clock)
    printer(DownloadProgress("M", "f", 10 << 20, TOTAL, 20.0))
    clock.now = 1.0
    printer(DownloadProgress("M", "f", 20 << 20, TOTAL, 1.0))
    *_, longer, shorter = out.getvalue().split("\r")
    assert (longer, shorter) == ("M: 5 % · 10 of 200 MB · about 7 min left", "M: 10 % · 20 of 200 MB · about 9 s left".ljust(len(longer)))


def test_a_failed_download_ends_the_rewritten_line_first() -> None:
    out = Terminal()
    printer = ModelProgressPrinter(out, FOLDER)
    printer(DownloadProgress("M", "f", 10 << 20, TOTAL, 0.5))
    printer.end_line()
    out.write("error: could not download f: HTTP 404 from http://x/f\n")
    printer.end_line()  # nothing open: nothing written
    assert out.getvalue().split("\n")[1:] == ["\rM: 5 % · 10 of 200 MB", "error: could not download f: HTTP 404 from http://x/f", ""]


def test_a_second_download_says_again_what_and_where() -> None:
    out = io.StringIO()
    printer = ModelProgressPrinter(out, FOLDER)
    for _ in range(2):
        printer(DownloadProgress("M", "f", TOTAL, TOTAL, 3.0))
    assert out.getvalue().splitlines() == [
        f"note: downloading the speech model M (200 MB) to {FOLDER} …",
        "M: 100 % · 200 of 200 MB",
        f"note: the speech model is ready in {FOLDER}",
    ] * 2


def test_a_piper_voice_fetched_at_its_first_segment_shows_its_progress_on_the_terminal(tmp_path: Path) -> None:
    import io
    from types import SimpleNamespace

    from desktop_agent.cli import _report_voice_downloads
    from desktop_agent.voice.piper import PiperEngine
    from desktop_agent.voice.stt.models import ModelStore

    engine = PiperEngine("", "zh_CN-huayan-medium", store=ModelStore(tmp_path / "models"))
    err = io.StringIO()
    _report_voice_downloads(SimpleNamespace(tts=engine), err)  # type: ignore[arg-type]
    assert engine.on_progress is not None
    engine.on_progress(DownloadProgress("Piper voice zh_CN-huayan-medium", "x.onnx", 0, 63_206_116, 0.0))
    assert err.getvalue().startswith("note: downloading the speech model Piper voice zh_CN-huayan-medium (60 MB)")
