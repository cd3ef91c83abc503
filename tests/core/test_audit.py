"""The approval audit: one record per decision, written where the
decision is made (the ApprovalManager), whoever made it — a click, a
spoken answer, the always-allow list, a headless flag, the read-only
setting, a timeout, an interrupt — and for a sub-agent's calls too."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, auto_decider
from desktop_agent.core.audit import (
    ApprovalRecord,
    ApprovalRequest,
    AuditSinks,
    arguments_preview,
    arguments_sha256,
)
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.playback import AutoApprove
from desktop_agent.core.ports import Tool, ToolSource
from desktop_agent.core.redaction import Redactor
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_tools import EchoTool, FakeServerSource
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.tools.sub_agent import SubAgentTool

PLAN = text_reply("Sure.<need_tool>")
ECHO = [PLAN, tool_reply("echo", {"text": "hi"}), text_reply("Done.")]
READ_ONLY = ToolAnnotations(read_only=True)


class Rig:
    def __init__(
        self,
        script: Sequence[Reply],
        tools: Sequence[Tool] = (),
        sources: Sequence[ToolSource] = (),
        *,
        timeout_s: float = 5.0,
        sub_agent: bool = False,
        redactor: Redactor | None = None,
        clock: FakeClock | None = None,
    ) -> None:
        """``clock``: measures the waits and runs the approval timeouts (None: the real ones)."""
        self.audit = RecordingAuditSink()
        builtins = list(tools)
        if sub_agent:
            tool = SubAgentTool()
            builtins.append(tool)
        self.router = ToolRouter(builtins, sources, redactor=redactor)
        if sub_agent:
            tool.bind(self.router)
        self.conv = Conversation(
            AgentClient(ScriptedLLM(script), self.router, system_prompt=None),
            approvals=ApprovalManager(audit=self.audit) if clock is None
            else ApprovalManager(audit=self.audit, clock=clock.now, timers=clock),
            conversation_id="conv-1",
            approval_timeout_s=timeout_s,
        )

    async def run(self, view: NullView, auto_approve: AutoApprove = lambda name: None) -> TurnOutcome:
        async with asyncio.timeout(10):
            return await self.conv.run_turn("go", view, auto_approve=auto_approve)


class Answering(NullView):
    """Answers each approval with ``answer`` as ``by`` (None: leaves it)."""

    def __init__(self, rig: Rig, answer: bool | None, by: str = "user") -> None:
        self.rig, self.answer, self.by = rig, answer, by
        self.asked: list[ToolCallMessage] = []
        self.auto: list[tuple[str, str]] = []

    def approval_needed(self, message: ToolCallMessage) -> None:
        self.asked.append(message)
        if self.answer is not None:
            assert message.task_id is not None
            assert self.rig.conv.answer_approval(message.task_id, self.answer, by=self.by)  # type: ignore[arg-type]

    def auto_approved(self, message: ToolCallMessage, by: str = "always_allow") -> None:
        self.auto.append((message.tool_name, by))


@pytest.mark.parametrize(
    ("answer", "by", "status", "decision"),
    [
        (True, "user", "completed", "approved"),
        (False, "user", "rejected", "rejected"),
        (True, "voice", "completed", "approved"),
        (False, "voice", "rejected", "rejected"),
        (False, "headless_flag", "rejected", "rejected"),
    ],
)
async def test_an_answered_approval_is_recorded_with_who_answered(
    answer: bool, by: str, status: str, decision: str
) -> None:
    rig = Rig(ECHO, [EchoTool()])

    outcome = await rig.run(Answering(rig, answer, by))

    assert outcome.status == status
    (record,) = rig.audit.records
    assert record == ApprovalRecord(
        time=record.time,
        conversation_id="conv-1",
        session_id=outcome.session_id,
        tool_call_id="call_1",
        tool_name="echo",
        server=None,
        arguments_preview='{"text": "hi"}',
        arguments_sha256=hashlib.sha256(b'{"text":"hi"}').hexdigest(),
        decision=decision,  # type: ignore[arg-type]
        decided_by=by,  # type: ignore[arg-type]
        waited_s=record.waited_s,
    )
    assert record.waited_s >= 0 and record.when.tzinfo is not None


@pytest.mark.parametrize(("auto", "by"), [(True, "always_allow"), ("headless_flag", "headless_flag")])
async def test_an_approval_answered_without_asking_is_recorded_too(auto: object, by: str) -> None:
    rig = Rig(ECHO, [EchoTool()])
    view = Answering(rig, None)

    outcome = await rig.run(view, auto_approve=lambda name: auto)  # type: ignore[arg-type,return-value]

    assert (outcome.status, view.asked, view.auto) == ("completed", [], [("echo", by)])
    assert rig.audit.decisions() == [("echo", "approved", by)]


async def test_an_unanswered_approval_is_recorded_as_timed_out() -> None:
    clock = FakeClock()
    rig = Rig(ECHO, [EchoTool()], timeout_s=300, clock=clock)

    turn = asyncio.ensure_future(rig.run(Answering(rig, None)))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()
    clock.advance(300)
    outcome = await turn

    assert outcome.status == "approval_timeout"
    assert rig.audit.decisions() == [("echo", "timed_out", "timeout")]
    assert rig.audit.records[0].waited_s == 300


async def test_an_interrupt_while_waiting_is_recorded_as_interrupted_once() -> None:
    rig = Rig(ECHO, [EchoTool()])
    view = Answering(rig, None)
    turn = asyncio.ensure_future(rig.run(view))
    async with asyncio.timeout(5):
        while not view.asked:
            await asyncio.sleep(0.01)

    assert rig.conv.interrupt()
    outcome = await turn

    assert outcome.status == "user"
    assert rig.audit.decisions() == [("echo", "interrupted", "interrupt")]


async def test_a_trusted_servers_read_only_tool_runs_without_asking_and_is_recorded() -> None:
    files = FakeServerSource("files", {"read_file": READ_ONLY, "delete_file": ToolAnnotations(destructive=True)})
    script = [PLAN, tool_reply("read_file", {"text": "a.txt"}), tool_reply("delete_file", {"text": "a.txt"}),
              text_reply("Done.")]
    rig = Rig(script, sources=[files])
    view = Answering(rig, True)

    def policy(name: str) -> object:
        routed = rig.router.lookup(name)
        assert routed is not None
        return auto_decider(name, routed.spec.server, routed.spec.annotations,
                            always_allow=(), trusted_read_only_servers=("files",))

    outcome = await rig.run(view, auto_approve=policy)  # type: ignore[arg-type]

    assert outcome.status == "completed"
    assert view.auto == [("read_file", "read_only_setting")]
    assert [m.tool_name for m in view.asked] == ["delete_file"]  # not read-only: asked
    assert files.calls == [("read_file", {"text": "a.txt"}), ("delete_file", {"text": "a.txt"})]
    assert rig.audit.decisions() == [("read_file", "approved", "read_only_setting"), ("delete_file", "approved", "user")]
    assert [(r.server, r.hints) for r in rig.audit.records] == [("files", ("read_only",)), ("files", ("destructive",))]


def test_read_only_trust_is_per_server_and_never_for_built_ins_or_unsure_claims() -> None:
    def decide(server: str | None, hints: ToolAnnotations | None, allow: Sequence[str] = ()) -> object:
        return auto_decider("t", server, hints, always_allow=allow, trusted_read_only_servers=["files"])

    assert decide("files", READ_ONLY) == "read_only_setting"
    assert decide("web", READ_ONLY) is None  # another server: not trusted
    assert decide(None, READ_ONLY) is None  # a built-in tool has no server to trust
    assert decide("files", None) is None  # says nothing
    assert decide("files", ToolAnnotations(read_only=True, destructive=True)) is None  # contradicts itself
    assert decide("files", ToolAnnotations(read_only=False)) is None
    assert decide("files", None, ["files/t"]) == "always_allow"


async def test_a_sub_agents_calls_are_recorded_with_their_parent_chain() -> None:
    script = [
        PLAN,
        tool_reply("sub_agent", {"task": "echo x", "allowed_tools": ["echo"]}),
        tool_reply("echo", {"text": "x"}),
        text_reply("It said x."),
        text_reply("Done."),
    ]
    rig = Rig(script, [EchoTool()], sub_agent=True)

    outcome = await rig.run(Answering(rig, True))

    assert outcome.status == "completed"
    assert [(r.tool_name, r.tool_call_id, r.parent_tool_call_ids, r.decision) for r in rig.audit.records] == [
        ("sub_agent", "call_1", (), "approved"),
        ("echo", "call_2", ("call_1",), "approved"),
    ]


async def test_a_rejected_nested_call_is_recorded_once_as_rejected() -> None:
    script = [PLAN, tool_reply("sub_agent", {"task": "echo x", "allowed_tools": ["echo"]}),
              tool_reply("echo", {"text": "x"})]
    rig = Rig(script, [EchoTool()], sub_agent=True)

    class RejectNested(Answering):
        def approval_needed(self, message: ToolCallMessage) -> None:
            self.answer = message.parent_tool_call_id is None
            super().approval_needed(message)

    outcome = await rig.run(RejectNested(rig, True))

    assert outcome.status == "rejected"
    assert [(r.tool_name, r.decision, r.decided_by, r.parent_tool_call_ids) for r in rig.audit.records] == [
        ("sub_agent", "approved", "user", ()),
        ("echo", "rejected", "user", ("call_1",)),
    ]


def test_the_first_decision_is_the_only_one_recorded() -> None:
    audit = RecordingAuditSink()
    clock = FakeClock()
    manager = ApprovalManager(audit=audit, clock=clock.now, wall_clock=lambda: 1_700_000_000.0)
    key = manager.register("s1", "t1", ApprovalRequest("echo", "c1", {"text": "x"}, "conv"))
    clock.advance(2.5)

    assert manager.respond(key, True, by="voice")
    assert not manager.respond(key, False)
    manager.cancel_session("s1")

    (record,) = audit.records
    assert (record.decision, record.decided_by, record.waited_s, record.time) == (
        "approved", "voice", 2.5, "2023-11-14T22:13:20.000+00:00"
    )


def test_an_approval_registered_without_a_request_is_not_recorded() -> None:
    audit = RecordingAuditSink()
    manager = ApprovalManager(audit=audit)
    manager.respond(manager.register("s1", "t1"), True)
    assert audit.records == []


def test_a_failing_sink_does_not_stop_the_others() -> None:
    class Broken:
        def record(self, entry: ApprovalRecord) -> None:
            raise OSError("disk full")

    kept = RecordingAuditSink()
    manager = ApprovalManager(audit=AuditSinks([Broken(), kept]))
    key = manager.register("s1", "t1", ApprovalRequest("echo", "c1", None))
    assert manager.respond(key, False)
    assert kept.decisions() == [("echo", "rejected", "user")]


def test_a_record_survives_its_json_line_and_the_hash_is_of_canonical_json() -> None:
    args: JSONObject = {"b": [1, 2], "a": "é"}
    record = ApprovalRecord(
        "2026-12-01T01:00:00.000+00:00", "conv", "s", "c2", "echo", "files", arguments_preview(args),
        arguments_sha256(args), "timed_out", "timeout", 300.0, ("c1",), ("read_only",),
    )
    line = json.dumps(record.to_json(), ensure_ascii=False)

    assert ApprovalRecord.from_json(json.loads(line)) == record
    assert record.arguments_sha256 == hashlib.sha256('{"a":"é","b":[1,2]}'.encode()).hexdigest()
    assert arguments_sha256({"a": "é", "b": [1, 2]}) == record.arguments_sha256  # key order does not matter
    assert len(arguments_preview({"text": "x" * 500})) == 200
    with pytest.raises(ValueError, match="not an approval record"):
        ApprovalRecord.from_json({"time": "2026-12-01T01:00:00+00:00", "tool_name": "x", "decision": "maybe",
                                  "decided_by": "user"})


async def test_the_apps_secrets_are_not_copied_into_the_record() -> None:
    secret = "sk-test-0123456789abcdef"
    rig = Rig([PLAN, tool_reply("echo", {"text": f"key={secret}"}), text_reply("Done.")], [EchoTool()],
              redactor=Redactor([secret]))

    await rig.run(Answering(rig, True))

    (record,) = rig.audit.records
    assert secret not in json.dumps(record.to_json())
    assert record.arguments_preview == '{"text": "key=[redacted]"}'
    assert record.arguments_sha256 == arguments_sha256({"text": "key=[redacted]"})
