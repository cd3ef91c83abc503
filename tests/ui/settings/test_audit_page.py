"""Settings → Approval history, built directly as the Settings
dialog will hold it: the records of the audit file, newest first, filtered
by tool, server, decision and date, exported as CSV; screenshots in English
and Chinese (tests/artifacts/audit_history_*.png)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.core.audit import ApprovalRecord, arguments_preview, arguments_sha256
from desktop_agent.core.audit_query import CSV_COLUMNS
from desktop_agent.storage.audit_log import JsonlAuditLog
from desktop_agent.texts import CHINESE, ENGLISH, keys
from desktop_agent.ui.common.theme import apply_theme
from desktop_agent.ui.settings.audit_page import AuditPage

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def rec(
    minute: int, day: int, tool: str, server: str | None, args: dict[str, object], decision: str, by: str,
    waited: float, parents: tuple[str, ...] = (), hints: tuple[str, ...] = (),
) -> ApprovalRecord:
    return ApprovalRecord(
        f"2026-{'12' if day <= 1 else '11'}-{day:02d}T09:{minute:02d}:00.000+00:00", "conv-1", "s1", f"call_{minute}",
        tool, server, arguments_preview(args), arguments_sha256(args), decision, by, waited, parents, hints,  # type: ignore[arg-type]
    )


RECORDS = [
    rec(1, 2, "run_command", None, {"command": "rm -rf build/"}, "rejected", "user", 12.4, hints=("destructive",)),
    rec(5, 20, "read_file", "files", {"path": "notes.md"}, "approved", "read_only_setting", 0.0, hints=("read_only",)),
    rec(7, 28, "get_current_time", "time", {"timezone": "Asia/Tokyo"}, "approved", "always_allow", 0.0),
    rec(9, 1, "sub_agent", None, {"task": "check the disk", "allowed_tools": ["run_command"]}, "approved", "voice", 3.2),
    rec(10, 1, "run_command", None, {"command": "df -h"}, "timed_out", "timeout", 300.0, ("call_9",), ("destructive",)),
    rec(12, 1, "delete_file", "files", {"path": "old.log"}, "interrupted", "interrupt", 4.0, hints=("destructive",)),
]


@pytest.fixture
def audit_file(tmp_path: Path) -> Path:
    path = tmp_path / "approvals.jsonl"
    log = JsonlAuditLog(path)
    for record in RECORDS:
        log.record(record)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"time": "2026-12-01T09:13')  # a torn last line
    return path


@pytest.fixture
def page(qtbot: QtBot, audit_file: Path) -> AuditPage:
    page = AuditPage(audit_file, now=lambda: NOW, texts=ENGLISH)
    qtbot.add_widget(page)
    return page


def local(record: ApprovalRecord) -> str:
    return record.when.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def column(page: AuditPage, index: int) -> list[str]:
    return [row[index] for row in page.rows()]


def test_every_record_shows_newest_first_and_the_torn_line_is_counted(page: AuditPage) -> None:
    assert page.rows()[:2] == [
        (local(RECORDS[5]), "delete_file", "files", "Interrupted", "Interrupt", "4.0 s", '{"path": "old.log"}'),
        (local(RECORDS[4]), "↳ run_command", "built-in", "Timed out", "Nobody (timed out)", "300.0 s",
         '{"command": "df -h"}'),
    ]
    assert column(page, 1) == ["delete_file", "↳ run_command", "sub_agent", "get_current_time", "read_file",
                               "run_command"]
    assert page.model.index(1, 1).data(Qt.ItemDataRole.ToolTipRole) == "Asked by the sub-agent of call call_9"
    assert page.count_label.text() == "6 of 6 decisions · unreadable line skipped: 1"


def test_the_filters_narrow_by_tool_server_decision_and_date(page: AuditPage) -> None:
    page.tool_filter.setText("FILE")
    assert column(page, 1) == ["delete_file", "read_file"]
    page.tool_filter.clear()

    page.server_filter.setCurrentIndex(page.server_filter.findData("builtin"))
    assert column(page, 1) == ["↳ run_command", "sub_agent", "run_command"]
    page.decision_filter.setCurrentIndex(page.decision_filter.findData("approved"))
    assert column(page, 1) == ["sub_agent"]
    assert page.count_label.text().startswith("1 of 6 decisions")

    page.server_filter.setCurrentIndex(0)
    page.decision_filter.setCurrentIndex(0)
    page.period_filter.setCurrentIndex(page.period_filter.findData("week"))
    assert column(page, 1) == ["delete_file", "↳ run_command", "sub_agent", "get_current_time"]
    page.period_filter.setCurrentIndex(page.period_filter.findData("month"))
    assert len(page.rows()) == 6
    assert [page.server_filter.itemText(i) for i in range(page.server_filter.count())] == [
        "All servers", "built-in", "files", "time"]


def test_export_writes_the_shown_records_as_csv(page: AuditPage, tmp_path: Path) -> None:
    page.decision_filter.setCurrentIndex(page.decision_filter.findData("approved"))
    out = tmp_path / "export" / "approvals.csv"

    assert page.export_csv(out)

    assert out.read_bytes().startswith(b"\xef\xbb\xbf")  # the BOM: Excel then reads it as UTF-8
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [(r["tool_name"], r["server"], r["decided_by"]) for r in rows] == [
        ("sub_agent", "builtin", "voice"),
        ("get_current_time", "time", "always_allow"),
        ("read_file", "files", "read_only_setting"),
    ]
    assert rows[0]["arguments_sha256"] == RECORDS[3].arguments_sha256
    assert page.count_label.text() == f"Saved {out}"


def test_export_keeps_chinese_readable_by_excel_and_by_python_csv(qtbot: QtBot, tmp_path: Path) -> None:
    audit = tmp_path / "zh.jsonl"
    JsonlAuditLog(audit).record(rec(3, 1, "echo", None, {"text": "你好"}, "approved", "user", 1.0))
    page = AuditPage(audit, now=lambda: NOW, texts=ENGLISH)
    qtbot.add_widget(page)
    out = tmp_path / "zh.csv"

    assert page.export_csv(out)

    assert out.read_bytes().startswith("\ufeff".encode())
    with out.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["tool_name"], r["arguments_preview"]) for r in rows] == [("echo", '{"text": "你好"}')]


def test_refresh_shows_decisions_recorded_since_the_page_opened(page: AuditPage, audit_file: Path) -> None:
    JsonlAuditLog(audit_file).record(rec(30, 1, "echo", None, {"text": "new"}, "approved", "user", 1.0))
    assert len(page.rows()) == 6
    page.refresh_button.click()
    assert column(page, 1)[0] == "echo"
    assert page.count_label.text() == "7 of 7 decisions · unreadable line skipped: 1"


def test_an_empty_history_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    page = AuditPage(tmp_path / "none.jsonl", texts=ENGLISH)
    qtbot.add_widget(page)
    assert (page.rows(), page.count_label.text(), page.export_button.isEnabled()) == (
        [], "No approval decisions recorded yet.", False)


def _screenshot(page: AuditPage, qtbot: QtBot, name: str) -> None:
    apply_theme(page)
    page.resize(980, 360)
    page.show()
    qtbot.wait_exposed(page)
    for _ in range(5):
        QApplication.processEvents()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert page.grab().toImage().save(str(ARTIFACTS / f"{name}.png"))


def test_screenshot_of_the_history_in_english(page: AuditPage, qtbot: QtBot) -> None:
    _screenshot(page, qtbot, "audit_history_en")
    assert [page.model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)] == [
        "Time", "Tool", "Server", "Decision", "Decided by", "Waited", "Arguments"]
    assert column(page, 4) == ["Interrupt", "Nobody (timed out)", "Your voice", "Always-allow list",
                               "Read-only setting", "You"]
    assert page.export_button.text() == "Export CSV…" and page.export_button.isEnabled()


def test_screenshot_of_the_history_in_chinese(qtbot: QtBot, audit_file: Path) -> None:
    page = AuditPage(audit_file, now=lambda: NOW, texts=CHINESE)
    qtbot.add_widget(page)
    _screenshot(page, qtbot, "audit_history_zh")
    assert [page.model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)] == [
        "时间", "工具", "服务器", "结果", "决定方", "等待", "参数"]
    assert column(page, 3) == ["已中断", "已超时", "已批准", "已批准", "已批准", "已拒绝"]
    assert column(page, 2) == ["files", "内置", "内置", "time", "files", "内置"]
    assert column(page, 5)[:2] == ["4.0 秒", "300.0 秒"]
    assert page.count_label.text() == "显示 6 条，共 6 条 · 跳过了 1 行无法读取的记录"


def test_every_decision_and_decider_has_words_in_both_languages() -> None:
    from desktop_agent.core.audit import DECIDERS, DECISIONS

    wanted = [f"audit_decision_{d}" for d in DECISIONS] + [f"audit_by_{d}" for d in DECIDERS]
    assert all(key in keys() for key in wanted), [k for k in wanted if k not in keys()]


def test_a_failed_export_says_why_in_the_ui_language(page: AuditPage, tmp_path: Path) -> None:
    page.retranslate(CHINESE)
    folder = tmp_path / "approvals.csv"
    folder.mkdir()
    assert not page.export_csv(folder)
    assert page.count_label.text() == f"无法保存 {folder}：这是一个文件夹"
