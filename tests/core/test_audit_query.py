"""Choosing and exporting approval records: the filters of the
Approval history page and its CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from desktop_agent.core.audit import ApprovalRecord
from desktop_agent.core.audit_query import CSV_COLUMNS, AuditFilter, select, servers, to_csv


def rec(tool: str, server: str | None, decision: str, day: int, parents: tuple[str, ...] = ()) -> ApprovalRecord:
    return ApprovalRecord(
        f"2026-11-{day:02d}T10:00:00.000+00:00", "conv", "s", f"{tool}-{day}", tool, server, "{}", "0" * 64,
        decision, "user", 0.25, parents, ("destructive",) if tool == "run_command" else (),  # type: ignore[arg-type]
    )


RECORDS = [
    rec("run_command", None, "approved", 1),
    rec("read_file", "files", "approved", 20),
    rec("delete_file", "files", "rejected", 25),
    rec("run_command", None, "timed_out", 28, ("call_1",)),
]


def ids(records: list[ApprovalRecord]) -> list[str]:
    return [r.tool_call_id for r in records]


def test_no_filter_shows_everything_newest_first() -> None:
    assert ids(select(RECORDS, AuditFilter())) == ["run_command-28", "delete_file-25", "read_file-20", "run_command-1"]


def test_each_filter_narrows_and_they_combine() -> None:
    assert ids(select(RECORDS, AuditFilter(tool="FILE"))) == ["delete_file-25", "read_file-20"]
    assert ids(select(RECORDS, AuditFilter(server="builtin"))) == ["run_command-28", "run_command-1"]
    assert ids(select(RECORDS, AuditFilter(server="files", decision="rejected"))) == ["delete_file-25"]
    since = datetime(2026, 11, 21, tzinfo=UTC)
    assert ids(select(RECORDS, AuditFilter(since=since))) == ["run_command-28", "delete_file-25"]
    assert ids(select(RECORDS, AuditFilter(since=since, until=datetime(2026, 11, 26, tzinfo=UTC)))) == ["delete_file-25"]
    assert servers(RECORDS) == ["builtin", "files"]


def test_the_csv_has_a_header_and_one_row_per_record() -> None:
    rows = list(csv.reader(io.StringIO(to_csv(select(RECORDS, AuditFilter(tool="run"))))))
    assert rows[0] == list(CSV_COLUMNS)
    assert [dict(zip(CSV_COLUMNS, row, strict=True)) for row in rows[1:]] == [
        {"time": "2026-11-28T10:00:00.000+00:00", "tool_name": "run_command", "server": "builtin",
         "decision": "timed_out", "decided_by": "user", "waited_s": "0.25", "arguments_preview": "{}",
         "arguments_sha256": "0" * 64, "conversation_id": "conv", "session_id": "s",
         "tool_call_id": "run_command-28", "parent_tool_call_ids": "call_1", "hints": "destructive"},
        {"time": "2026-11-01T10:00:00.000+00:00", "tool_name": "run_command", "server": "builtin",
         "decision": "approved", "decided_by": "user", "waited_s": "0.25", "arguments_preview": "{}",
         "arguments_sha256": "0" * 64, "conversation_id": "conv", "session_id": "s",
         "tool_call_id": "run_command-1", "parent_tool_call_ids": "", "hints": "destructive"},
    ]
