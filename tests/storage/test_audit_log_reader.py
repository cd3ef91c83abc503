"""Reading the approval audit again and again: only what was
appended is parsed, a line still being written is read again next time,
and a file that was cut or replaced is read from the start."""

from __future__ import annotations

import json
import os
from pathlib import Path

from desktop_agent.storage.audit_log import AUDIT_FILE, AuditRead, AuditReader, JsonlAuditLog, read_audit
from tests.storage.test_audit_log import record


def test_a_later_read_parses_only_the_appended_lines(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    log, reader = JsonlAuditLog(path), AuditReader(path)
    log.record(record(1))
    assert reader.read() == AuditRead((record(1),))
    size = path.stat().st_size
    log.record(record(2))
    assert reader.read() == AuditRead((record(1), record(2)))
    assert reader.parsed_bytes == path.stat().st_size - size
    assert reader.read() == AuditRead((record(1), record(2))) and reader.parsed_bytes == 0


def test_a_line_being_written_counts_now_and_is_read_again_when_whole(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    reader = AuditReader(path)
    JsonlAuditLog(path).record(record(1))
    line = json.dumps(record(2).to_json()) + "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line[:40])
    assert reader.read() == AuditRead((record(1),), skipped=1)  # as read_audit says
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line[40:])
    assert reader.read() == AuditRead((record(1), record(2))) == read_audit(path)


def test_a_file_cut_or_replaced_is_read_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / AUDIT_FILE
    reader = AuditReader(path)
    for n in (1, 2, 3):
        JsonlAuditLog(path).record(record(n))
    assert len(reader.read().records) == 3

    with path.open("r+b") as fh:  # truncated in place (copy-truncate rotation)
        fh.truncate(0)
    JsonlAuditLog(path).record(record(4))
    assert reader.read() == AuditRead((record(4),))

    other = tmp_path / "new.jsonl"  # replaced by a longer file: same size or more, other bytes
    for n in (5, 6, 7, 8):
        JsonlAuditLog(other).record(record(n))
    os.replace(other, path)
    assert reader.read() == AuditRead(tuple(record(n) for n in (5, 6, 7, 8)))

    path.write_bytes(path.read_bytes().replace(b'"c5"', b'"c9"'))  # rewritten in place, same length
    with path.open("ab") as fh:
        fh.write(json.dumps(record(1).to_json()).encode() + b"\n")
    assert reader.read() == read_audit(path) and reader.read().records[0].tool_call_id == "c9"

    path.unlink()
    assert reader.read() == AuditRead(())


def test_every_history_page_of_one_file_shares_one_reader(tmp_path: Path) -> None:
    from desktop_agent.storage.audit_log import shared_reader

    path = tmp_path / AUDIT_FILE
    assert shared_reader(path) is shared_reader(tmp_path / AUDIT_FILE)
    assert shared_reader(path) is not shared_reader(tmp_path / "other.jsonl")
