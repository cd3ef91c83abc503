"""The Approval history page reads its file off the GUI thread:
with the qasync loop running a reload returns at once and says "Loading…",
a later reload overtakes an earlier one, a large file does not stall the
loop, and a later reload parses only what was appended (or everything
again when the file was cut)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop_agent.core.audit import ApprovalRecord
from desktop_agent.storage.audit_log import JsonlAuditLog, read_audit
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.settings.audit_page import AuditPage
from tests.ui.settings.test_audit_page import NOW, RECORDS, rec


async def _until(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    """Wait on the running (qasync) loop; qtbot.waitUntil would spin a nested one."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def _write(path: Path, records: list[ApprovalRecord], count: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(count):
            fh.write(json.dumps(records[i % len(records)].to_json(), ensure_ascii=False) + "\n")


def _page(qtbot: QtBot, path: Path) -> tuple[AuditPage, list[int]]:
    page = AuditPage(path, now=lambda: NOW, texts=ENGLISH)
    qtbot.add_widget(page)
    shown: list[int] = []
    page.loaded.connect(shown.append)
    return page, shown


async def test_a_reload_returns_at_once_says_loading_and_the_rows_arrive(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "approvals.jsonl"
    _write(path, RECORDS, 6)
    page, shown = _page(qtbot, path)  # built on the running loop: its first read is a task
    assert page.loading() and page.count_label.text() == ENGLISH.tr("audit_loading") and page.rows() == []
    await _until(lambda: not page.loading())
    assert shown == [6] and len(page.rows()) == 6 and page.count_label.text() == "6 of 6 decisions"

    JsonlAuditLog(path).record(rec(30, 1, "echo", None, {"text": "new"}, "approved", "user", 1.0))
    page.refresh_button.click()
    assert page.count_label.text() == ENGLISH.tr("audit_loading") and len(page.rows()) == 6  # the old rows stay meanwhile
    await _until(lambda: not page.loading())
    assert shown == [6, 7] and page.rows()[0][1] == "echo"


async def test_a_second_reload_during_the_first_wins(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "approvals.jsonl"
    _write(path, RECORDS, 6)
    page, shown = _page(qtbot, path)
    JsonlAuditLog(path).record(rec(30, 1, "echo", None, {"text": "new"}, "approved", "user", 1.0))
    page.reload()  # before the first read was shown
    await _until(lambda: not page.loading())
    assert shown == [7]  # the first read was dropped, not shown and then replaced
    assert page.count_label.text() == "7 of 7 decisions"


async def test_twenty_thousand_records_load_without_stalling_the_loop(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "approvals.jsonl"
    _write(path, RECORDS, 20_000)
    started = time.perf_counter()
    assert len(read_audit(path).records) == 20_000
    synchronous = time.perf_counter() - started  # what the GUI thread used to spend (and the table more)

    gaps: list[float] = []
    stop = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.ensure_future(tick())
    await asyncio.sleep(0.05)  # the ticker's baseline: it measures the real loop's gaps
    page, shown = _page(qtbot, path)
    page.resize(980, 400)
    page.show()
    await _until(lambda: not page.loading())
    await asyncio.sleep(0.1)  # the first paint of the new rows
    stop.set()
    await ticker
    assert shown == [20_000] and page.model.rowCount() == 20_000
    stall = max(gaps)
    assert stall < synchronous / 3, (stall, synchronous)


async def test_a_later_reload_parses_only_what_was_appended_and_a_cut_file_is_read_again(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "approvals.jsonl"
    _write(path, RECORDS, 600)
    page, shown = _page(qtbot, path)
    await _until(lambda: not page.loading())
    whole = path.stat().st_size
    assert page._reader.parsed_bytes == whole

    JsonlAuditLog(path).record(rec(30, 1, "echo", None, {"text": "new"}, "approved", "user", 1.0))
    page.reload()
    await _until(lambda: not page.loading())
    assert shown == [600, 601] and page.rows()[0][1] == "echo"
    assert page._reader.parsed_bytes == path.stat().st_size - whole  # the new line only

    _write(path, RECORDS[:2], 3)  # cut (rotated or emptied, then written again)
    page.reload()
    await _until(lambda: not page.loading())
    assert shown[-1] == 3 and page.count_label.text() == "3 of 3 decisions"
    assert sorted(r[1] for r in page.rows()) == ["read_file", "run_command", "run_command"]

    path.unlink()  # gone altogether
    page.reload()
    await _until(lambda: not page.loading())
    assert shown[-1] == 0 and page.count_label.text() == ENGLISH.tr("audit_empty")


async def test_a_file_that_cannot_be_read_says_so_in_one_line(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "approvals.jsonl"
    path.mkdir()  # a folder where the file should be
    page, shown = _page(qtbot, path)
    await _until(lambda: not page.loading())
    assert shown == [] and page.count_label.text().startswith(f"Could not read {path}: ")
    assert "\n" not in page.count_label.text()
