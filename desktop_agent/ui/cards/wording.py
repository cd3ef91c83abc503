"""What a tool card says, in the user's language: titles, outcome words,
progress and elapsed captions, the live output's last lines, the argument
summary. Pure functions of a :class:`ToolCardState` (no Qt), next to the
reducer in :mod:`card_state` that decides the state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from desktop_agent.core.budget import result_cut
from desktop_agent.core.command_risk import RUN_COMMAND
from desktop_agent.core.command_rules import offered_prefix
from desktop_agent.texts import Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import Progress, ToolCardState
from desktop_agent.ui.common.error_wording import form_refusals, tool_error_words, worded_error


def format_eta(texts: Texts, seconds: float) -> str:
    """``12 s``, ``3 min``, ``1 h 5 min`` (rounded up, never "0 s")."""
    whole = max(1, int(seconds + 0.999))
    if whole < 60:
        return texts.tr("seconds", n=whole)
    minutes = (whole + 59) // 60
    if minutes < 60:
        return texts.tr("minutes", n=minutes)
    if minutes % 60 == 0:
        return texts.tr("hours_only", n=minutes // 60)
    return texts.tr("hours", n=minutes // 60, m=minutes % 60)


def progress_caption(texts: Texts, progress: Progress) -> str:
    """``42% · about 12 s left · copying`` (only what is known)."""
    parts: list[str] = []
    percent = progress.percent
    if percent is not None:
        parts.append(f"{percent}%")
    elif progress.progress:
        parts.append(f"{progress.progress:g}")
    if percent is not None and progress.eta_s is not None and progress.eta_s > 0:
        parts.append(texts.tr("progress_eta", eta=format_eta(texts, progress.eta_s)))
    if progress.message:
        parts.append(progress.message)
    return " · ".join(parts)


def elapsed_caption(texts: Texts, seconds: float, progress: Progress | None) -> str:
    """``running · 12 s`` for a call with no progress total, then whatever
    its progress says (``running · 2 min · 1500 · indexing``)."""
    parts = [texts.tr("card_running_for", elapsed=format_elapsed(texts, seconds))]
    if progress is not None:
        known = progress_caption(texts, progress)
        if known:
            parts.append(known)
    return " · ".join(parts)


def format_elapsed(texts: Texts, seconds: float) -> str:
    """``12 s``, ``2 min 5 s``, ``1 h 5 min`` (rounded down: time so far)."""
    whole = max(0, int(seconds))
    if whole < 60:
        return texts.tr("seconds", n=whole)
    if whole < 3600:
        return texts.tr("minutes_seconds", n=whole // 60, s=whole % 60)
    return texts.tr("hours", n=whole // 3600, m=whole % 3600 // 60)


def title_for(texts: Texts, state: ToolCardState) -> str:
    if state.phase == CardPhase.DONE:
        if state.outcome == "not_answered":
            key = "card_not_answered"
        else:
            key = "card_failed" if state.is_error else "card_done"
    elif state.outcome is not None and state.phase in (CardPhase.REJECTED, CardPhase.INVALIDATED):
        key = {
            "rejected": "card_rejected",
            "timed_out": "card_not_run",
            "no_answer": "card_not_answered",
            "step_timed_out": "card_stopped",
            "not_run": "card_not_run",
            "stopped": "card_stopped",
            "ended": "card_stopped",
            "not_answered": "card_not_answered",
        }[state.outcome]
    elif state.phase == CardPhase.APPROVAL and state.parent_tool_call_id is not None:
        key = "card_sub_approval"
    else:
        key = {
            CardPhase.PREPARING: "card_preparing",
            CardPhase.APPROVAL: "card_approval",
            CardPhase.EXECUTING: "card_executing",
            CardPhase.DONE: "card_done",
            CardPhase.REJECTED: "card_rejected",
            CardPhase.INVALIDATED: "card_not_run",
        }[state.phase]
    title = texts.tr(key, name=state.tool_name)
    if state.by_voice and state.phase != CardPhase.APPROVAL:
        title += " · " + texts.tr("rejected_by_voice" if state.outcome == "rejected" else "approved_by_voice")
    return title


def outcome_text(texts: Texts, state: ToolCardState) -> str:
    """What happened to a call that did not finish, in plain words
    ("Rejected by you", "No answer in 300 s — not run"…); empty when it
    finished as planned."""
    match state.outcome:
        case None:
            return ""
        case "timed_out" | "no_answer" | "step_timed_out":
            if state.approval_timeout_s is None:
                return texts.tr(f"outcome_{state.outcome}_unknown")
            return texts.tr(f"outcome_{state.outcome}", seconds=f"{state.approval_timeout_s:g}")
        case "rejected" | "stopped" | "not_run" | "ended" | "not_answered":
            return texts.tr(f"outcome_{state.outcome}")
        case _:
            assert_never(state.outcome)


def output_tail(state: ToolCardState, lines: int) -> str:
    """The last ``lines`` lines of the live output (without the final
    newline): what the card shows while the call runs."""
    text = state.output.rstrip("\n")
    start = len(text)
    for _ in range(lines):
        start = text.rfind("\n", 0, start)
        if start < 0:
            return text
    return text[start + 1 :]


def output_text(texts: Texts, state: ToolCardState) -> str:
    """The whole kept output, saying how much was dropped."""
    if not state.output_cut:
        return state.output
    return texts.tr("output_cut", n=state.output_cut) + "\n" + state.output


def arguments_text(arguments: Mapping[str, Any] | None) -> str:
    """Arguments as ``key: value`` lines (strings unquoted, the rest JSON)."""
    if not arguments:
        return ""
    lines = []
    for key, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)


def arguments_summary(arguments: Mapping[str, Any] | None, limit: int = 80) -> str:
    """One short line telling calls of the same tool apart: its arguments as
    ``key: value`` in the model's order (``command: ls -la · cwd: /tmp``),
    white space folded, cut to ``limit`` characters. Lists and objects (a
    form's questions) are left out when plain values are there to show."""
    if not arguments:
        return ""
    items = list(arguments.items())
    scalars = [(k, v) for k, v in items if not isinstance(v, Mapping | list | tuple)]
    parts = []
    for key, value in scalars or items:  # lists and objects only when nothing else tells calls apart
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}: {' '.join(shown.split())}")
    text = " · ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def partial_text(partial: Any) -> str:
    """A partial result as text: a string as is, a mapping as its non-empty
    fields (``stdout``, ``stderr``… of an interrupted command)."""
    if partial is None:
        return ""
    if isinstance(partial, str):
        return partial
    if isinstance(partial, Mapping):
        lines = []
        for key, value in partial.items():
            if value in ("", None, [], {}):
                continue
            if isinstance(value, list):
                value = "\n".join(map(str, value))
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"[{key}]\n{shown.rstrip()}")
        return "\n".join(lines)
    return json.dumps(partial, ensure_ascii=False)


def risk_text(texts: Texts, state: ToolCardState) -> str:
    """What the call may do, in one line: it may change or delete data (or,
    a command that is neither read-only nor destructive, may change
    things), it reaches outside this computer; empty when none holds."""
    parts = []
    if state.destructive:
        parts.append(texts.tr("card_risk_destructive"))
    elif state.cautious:
        parts.append(texts.tr("card_risk_changes"))
    if state.open_world:
        parts.append(texts.tr("card_risk_open_world"))
    return " · ".join(parts)


def cut_note(texts: Texts, state: ToolCardState) -> str:
    """That a finished call's result was cut to fit the model's context, and
    how much was left out (the marker inside the result says where); empty
    when it was not. The card, history and the model all have the cut text."""
    left = result_cut(state.result) if state.phase == CardPhase.DONE else None
    return texts.tr("card_result_cut", n=left) if left else ""


def output_notice(texts: Texts, state: ToolCardState) -> tuple[str, str]:
    """What a finished call's output says that the user should read without
    opening its details: a server's form that no form can show was declined
    (said in ``texts``' language), and the output's own lines for the
    tooltip (empty where the words are those lines)."""
    if state.pending:
        return "", ""
    raws = form_refusals(state.output)
    words = [worded_error(texts, raw)[0] for raw in raws]
    return "\n".join(words), ("\n".join(raws) if words != raws else "")


def result_heading(texts: Texts, state: ToolCardState) -> str:
    """The line above a result in the details: "Result", "Partial result",
    or, above a tool's error message, what kind of failure it is in the
    UI language (the message below is the tool's own words)."""
    if state.phase != CardPhase.DONE:
        return texts.tr("partial_result")
    if state.is_error and state.result:
        return tool_error_words(texts, state.result)
    return texts.tr("result")


def auto_badge(texts: Texts, state: ToolCardState) -> str:
    """Why a call runs without a click: the always-allow list, or the user's
    trust in its server's read-only tools."""
    return texts.tr("card_read_only_allowed") if state.auto_by == "read_only_setting" else texts.tr("auto_approved")



@dataclass(frozen=True, slots=True)
class AlwaysOffer:
    """What a waiting card offers to allow from now on."""

    tool: str | None
    """The "Always allow" box's words; None: no such box (a command that no
    one rule covers)."""
    server: str | None = None
    """The "Always allow read-only tools from SERVER" box's words; None: not offered."""
    confirm: str | None = None
    """The second question a destructive call's box asks (None: the usual one)."""


def always_offer(texts: Texts, state: ToolCardState) -> AlwaysOffer:
    """The always-allow choices of a waiting card: a ``run_command`` call
    offers its command's rule (``core/command_rules.py``), never the whole
    tool; a read-only tool of an MCP server also offers trusting that
    server's read-only tools."""
    if state.tool_name == RUN_COMMAND and state.server is None:
        command = (state.arguments or {}).get("command")
        prefix = offered_prefix(command) if isinstance(command, str) else None
        if prefix is None:
            return AlwaysOffer(None)
        return AlwaysOffer(
            texts.tr("card_always_prefix", prefix=prefix),
            confirm=texts.tr("card_confirm_prefix_text", prefix=prefix) if state.destructive else None,
        )
    annotations = state.call_annotations
    read_only = state.server is not None and annotations is not None and annotations.is_read_only
    server = texts.tr("card_always_read_only", server=state.server) if read_only else None
    return AlwaysOffer(texts.tr("always_allow"), server)
