"""The display log: what the window showed of a conversation, in order, as
JSON, so a restored conversation looks as it did live. It is the saved form
of the transcript's items (``core/transcript.py``), one event per item
(:func:`event_json`; hook notes are not shown, so not logged), written here
as each item comes; ``storage/conversation_events.py`` reads the saved
events back into items.

Its events are the bus messages the playback queue consumed, in their
contract JSON form (the ``--events-jsonl`` form, contracts §5), plus a few of
our own for what the user did, which the bus never carries:

- ``user`` (``text``; ``approval_timeout_s``, for a card's "No answer in
  300 s", absent before it was kept): the user's message, opening each turn;
- ``auto_approved`` (``message``: the ``approval_required`` JSON; ``by``:
  the :data:`AutoDecider` that answered instead of the user, the
  always-allow list when absent);
- ``approval_answer`` (``tool_call_id``, ``approved``): a card's click;
- ``form_answer`` (``form_id``, ``answers`` or null when cancelled);
- ``interrupt_clicked``; ``notice`` (``level``, ``text``): the window's own
  lines (a lost approval, tools not ready).

Why record what was *consumed* and not the bus: a voice text interrupted
before its audio never showed, and the queue is the one place that knows.
The :class:`~desktop_agent.core.transcript.TranscriptRecorder` sits between
the queue and the view, so it sees exactly that, and keeps the bus's ``seq``
of each message.

Audio, transcripts and ``round_end``'s hooks are not part of the log
(``round_end`` itself is: it separates paragraphs).

A ``tool_call``/``tool_rejected`` event (the inner message of an
``auto_approved`` one too) may carry ``_tool`` (:data:`TOOL_KEY`, not a bus
field): the server that offered the tool and what the tool said of its risk
when the card was drawn (:class:`ToolFacts`), so a restored card names its
server and says it may change or delete data (in red), or reaches outside
this computer, as it did live, whether or not that server is still set up.
Events recorded before it have none and restore without marks.
"""

from __future__ import annotations

from typing import assert_never

from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import BusMessage, to_json
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    FormAnswered,
    InterruptClicked,
    Shown,
    ToolDescriber,
    ToolFacts,
    TranscriptItem,
    UserText,
    WindowNotice,
)

__all__ = [
    "APPROVAL_ANSWER", "AUTO_APPROVED", "FORM_ANSWER", "INTERRUPT_CLICKED", "NOTICE", "OWN_TYPES", "TOOL_KEY", "USER",
    "ToolDescriber", "ToolFacts", "event_json",
]

USER, AUTO_APPROVED, APPROVAL_ANSWER, FORM_ANSWER = "user", "auto_approved", "approval_answer", "form_answer"
INTERRUPT_CLICKED, NOTICE = "interrupt_clicked", "notice"
OWN_TYPES = frozenset({USER, AUTO_APPROVED, APPROVAL_ANSWER, FORM_ANSWER, INTERRUPT_CLICKED, NOTICE})
TOOL_KEY = "_tool"
"""The key of a tool event's :class:`ToolFacts` (underscored: not a bus field)."""


# ------------------------------------------------------------ writing


def event_json(item: TranscriptItem, session_id: str) -> JSONObject | None:
    """The saved event of a transcript item; None for a hook note (history
    keeps it, the window never showed it)."""
    match item:
        case UserText(text, timeout):
            user: JSONObject = {"type": USER, "text": text}
            if timeout is not None:
                user["approval_timeout_s"] = timeout
            return user
        case Shown(message, seq, facts):
            return _message_json(message, session_id, seq, facts)
        case AutoApproved(message, seq, by, facts):
            return {"type": AUTO_APPROVED, "by": by, "message": _message_json(message, session_id, seq, facts)}
        case ApprovalAnswer(tool_call_id, approved):
            return {"type": APPROVAL_ANSWER, "tool_call_id": tool_call_id, "approved": approved}
        case FormAnswered(form_id, answers):
            return {"type": FORM_ANSWER, "form_id": form_id, "answers": answers}
        case InterruptClicked():
            return {"type": INTERRUPT_CLICKED}
        case WindowNotice(level, text):
            return {"type": NOTICE, "level": level, "text": text}
        case HookNote():
            return None
        case _:
            assert_never(item)


def _message_json(message: BusMessage, session_id: str, seq: int, facts: ToolFacts | None) -> JSONObject:
    data = to_json(message, session_id=session_id, seq=seq)
    saved = facts.to_json() if facts is not None else None
    if saved is not None:
        data[TOOL_KEY] = saved
    return data
