"""The approval audit file: ``<data>/approvals.jsonl``, 0600,
one JSON line per decision, appended and never rewritten; a torn last line
is skipped when read and never glued to the next record."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from desktop_agent.core.audit import ApprovalRecord
from desktop_agent.storage.audit_log import AUDIT_FILE, AuditRead, JsonlAuditLog, audit_log_path, read_audit


def record(n: int, decision: str = "approved") -> ApprovalRecord:
    return ApprovalRecord(
        f"2026-12-01T01:0{n}:00.000+00:00", "conv", "s1", f"c{n}", "echo", None, '{"text": "x"}', "ab" * 32,
        decision, "user", 1.5,  # type: ignore[arg-type]
    )


def test_the_log_lives_in_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(tmp_path / "home"))
    assert audit_log_path() == tmp_path / "home" / AUDIT_FILE


def test_records_are_appended_one_json_line_each_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    log = JsonlAuditLog(path)

    log.record(record(1))
    first = path.read_bytes()
    log.record(record(2, "rejected"))

    assert path.read_bytes().startswith(first)  # appended, the first line untouched
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["tool_call_id"] for line in lines] == ["c1", "c2"]
    assert read_audit(path) == AuditRead((record(1), record(2, "rejected")))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_file_is_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    old = os.umask(0)
    try:
        JsonlAuditLog(path).record(record(1))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_an_existing_file_keeps_the_mode_the_user_gave_it(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    path.write_text("")
    path.chmod(0o640)
    JsonlAuditLog(path).record(record(1))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_torn_last_line_is_skipped_and_the_next_record_starts_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    log = JsonlAuditLog(path)
    log.record(record(1))
    whole = json.dumps(record(2).to_json())
    with path.open("a", encoding="utf-8") as fh:
        fh.write(whole[: len(whole) // 2])  # the process died mid-write

    assert read_audit(path) == AuditRead((record(1),), skipped=1)

    log.record(record(3))
    assert read_audit(path) == AuditRead((record(1), record(3)), skipped=1)


def test_lines_that_are_not_records_are_counted_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    good = json.dumps(record(1).to_json())
    path.write_bytes(b"\n".join([b"[1, 2]", good.encode(), b"\xff\xfe", b'{"tool_name": "x"}', b""]))
    assert read_audit(path) == AuditRead((record(1),), skipped=3)


def test_a_missing_file_has_no_records(tmp_path: Path) -> None:
    assert read_audit(tmp_path / "nothing.jsonl") == AuditRead(())


def test_a_write_that_fails_is_logged_not_raised(tmp_path: Path) -> None:
    log = JsonlAuditLog(tmp_path / "no-such-folder" / AUDIT_FILE)
    log.record(record(1))  # an approval never fails for its record
    assert log.failed
    (tmp_path / "a-file").write_text("")
    with pytest.raises(OSError):  # --audit-log checks its file up front, and says why
        JsonlAuditLog(tmp_path / "a-file" / "x.jsonl").check()
