"""An in-memory approval audit sink for tests: the records a run wrote,
without a file."""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_agent.core.audit import ApprovalRecord


@dataclass
class RecordingAuditSink:
    """Keeps every record it is given, in order."""

    records: list[ApprovalRecord] = field(default_factory=list)

    def record(self, entry: ApprovalRecord) -> None:
        self.records.append(entry)

    def decisions(self) -> list[tuple[str, str, str]]:
        """(tool, decision, decided_by) of each record."""
        return [(r.tool_name, r.decision, r.decided_by) for r in self.records]
