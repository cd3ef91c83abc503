"""Choosing and exporting approval records: the pure half of
Settings → Approval history, so the page only lays out what this says.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from desktop_agent.core.approval import BUILTIN
from desktop_agent.core.audit import ApprovalRecord, Decision

CSV_COLUMNS = (
    "time", "tool_name", "server", "decision", "decided_by", "waited_s", "arguments_preview",
    "arguments_sha256", "conversation_id", "session_id", "tool_call_id", "parent_tool_call_ids", "hints",
)


@dataclass(frozen=True, slots=True)
class AuditFilter:
    """Which records to show; every field left empty lets all through."""

    tool: str = ""
    """Part of the tool's name, any case."""
    server: str | None = None
    """Exactly this server (``builtin`` for built-in tools); None: any."""
    decision: Decision | None = None
    since: datetime | None = None
    """Decided at or after this moment (aware)."""
    until: datetime | None = None
    """Decided before this moment (aware)."""

    def matches(self, record: ApprovalRecord) -> bool:
        if self.tool and self.tool.casefold() not in record.tool_name.casefold():
            return False
        if self.server is not None and server_of(record) != self.server:
            return False
        if self.decision is not None and record.decision != self.decision:
            return False
        when = record.when
        if self.since is not None and when < self.since:
            return False
        return self.until is None or when < self.until


def server_of(record: ApprovalRecord) -> str:
    """The record's server as the filter names it (``builtin`` for built-ins)."""
    return record.server or BUILTIN


def select(records: Iterable[ApprovalRecord], chosen: AuditFilter) -> list[ApprovalRecord]:
    """The matching records, newest first."""
    return sorted((r for r in records if chosen.matches(r)), key=lambda r: r.when, reverse=True)


def servers(records: Iterable[ApprovalRecord]) -> list[str]:
    """Every server named in ``records``, sorted."""
    return sorted({server_of(r) for r in records})


def to_csv(records: Iterable[ApprovalRecord]) -> str:
    """The records as CSV (a header row, then one row each); lists are
    joined with ``>`` (the parent chain) and ``,`` (hints)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for r in records:
        writer.writerow([
            r.time, r.tool_name, server_of(r), r.decision, r.decided_by, f"{r.waited_s:g}",
            r.arguments_preview, r.arguments_sha256, r.conversation_id, r.session_id, r.tool_call_id,
            ">".join(r.parent_tool_call_ids), ",".join(r.hints),
        ])
    return out.getvalue()
