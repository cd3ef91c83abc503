"""TerminalView: the headless mode's :class:`PlaybackView`: reply text to
stdout, tool activity to stderr, approvals and forms asked on the terminal."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import IO, Any, assert_never

from desktop_agent.cli.elicit import ElicitMode, answer_elicitation
from desktop_agent.cli.terminal_io import TerminalIO
from desktop_agent.core.budget import result_cut
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormAnswerError, FormManager
from desktop_agent.core.messages import (
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TranscriptMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import ToolEvent
from desktop_agent.core.ports import STTError
from desktop_agent.core.risk import AutoDecider, ToolAnnotations, call_annotations
from desktop_agent.core.sub_agent import SUB_AGENT
from desktop_agent.core.voice_answer import VOICE_APPROVAL_PROMPT, parse_answer
from desktop_agent.mcp_engine.sampling import SamplingView, sampling_view
from desktop_agent.texts import INTERRUPTED_TEXT, text_in

NESTED_INDENT = "  "
"""Before each line about a sub-agent's calls and text."""
NO_ANSWER = (
    "No answer: standard input ended, so {tool} was not run "
    "(answer y or n on a terminal, or pass --approve all to approve every call)."
)
"""What the terminal says when the input ends at an approval prompt."""


def tool_origin(server: str | None, annotations: ToolAnnotations | None) -> str:
    """Who offers a tool and what it says of its risk, for the approval
    line: ``(MCP server "files"; may change or delete data · reaches outside
    this computer)`` or ``(built-in)``. A server's tool named like a
    built-in one (``Run_Command``) then reads as what it is. The risk words
    are the card's (ui/card_wording.risk_text), in English."""
    origin = "built-in" if server is None else f"MCP server {json.dumps(server, ensure_ascii=False)}"
    risks = []
    if annotations is not None and annotations.is_destructive:
        risks.append(text_in("en", "card_risk_destructive"))
    if annotations is not None and annotations.reaches_outside:
        risks.append(text_in("en", "card_risk_open_world"))
    said = " · ".join(risk[:1].lower() + risk[1:] for risk in risks)
    return f"({origin}; {said})" if said else f"({origin})"


def sampling_line(view: SamplingView) -> str:
    """A server's sampling request in one line: who asks, the limit, each
    message as ``role: "text"``."""
    asks = text_in("en", "card_sampling_approval", server=json.dumps(view.server, ensure_ascii=False))
    limit = (text_in("en", "card_sampling_limit", n=view.max_tokens) if view.max_tokens is not None
             else text_in("en", "card_sampling_limit_unknown"))
    said = " | ".join(f"{m.role}: {json.dumps(m.text, ensure_ascii=False)}" for m in view.messages)
    return f"{asks} ({limit.lower()}): {said}"


class TerminalView:
    """PlaybackView for the terminal: text to stdout, tool activity to stderr."""

    def __init__(
        self,
        io: TerminalIO,
        forms: FormManager,
        approve: str,
        out: IO[str],
        err: IO[str],
        *,
        server_of: Callable[[str], str | None] | None = None,
        annotations_of: Callable[[str], ToolAnnotations | None] | None = None,
        elicit: ElicitMode = "decline",
    ) -> None:
        """``elicit``: how an MCP server's form is answered (``--elicit``).
        ``server_of`` / ``annotations_of``: the MCP server offering a tool
        (None: built-in) and what it says of its risk, for the approval line;
        without them every tool reads as a built-in one that says nothing."""
        self._server_of = server_of
        self._annotations_of = annotations_of
        self._io = io
        self._forms = forms
        self._approve = approve
        self._elicit: ElicitMode = elicit
        self._out = out
        self._err = err
        self.conversation: Conversation | None = None
        self.bus: SessionMessageBus | None = None
        """The running turn's bus (``--approve voice`` pushes its transcripts)."""
        self.listen: Callable[[], Awaitable[TranscriptMessage]] | None = None
        """``--approve voice``: recognise the recorded answer."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._line_open = False
        self._fresh = True
        """Nothing of the reply printed since the last status line."""
        self._new_round = False
        self._sub_agents: set[str] = set()
        """The turn's sub_agent calls: their progress is the sub-agent's text."""

    def _status(self, text: str) -> None:
        if self._line_open:
            self._out.write("\n")
            self._out.flush()
            self._line_open = False
        self._fresh = True
        self._err.write(text + "\n")
        self._err.flush()

    def show_text(self, message: TextMessage) -> None:
        text = message.text
        if self._fresh:
            text = text.lstrip()
        elif self._new_round and not text[:1].isspace():
            text = " " + text
        self._new_round = False
        if text:
            self._out.write(text)
            self._out.flush()
            self._fresh = False
            self._line_open = not text.endswith("\n")

    def round_ended(self, message: RoundEndMessage) -> None:
        self._new_round = True

    def tool_event(self, message: ToolEvent) -> None:
        # A sub-agent's calls (parent_tool_call_id) are indented under its call.
        pad = NESTED_INDENT if getattr(message, "parent_tool_call_id", None) else ""
        match message:
            case ToolCallMessage():
                self._tool_call(message, pad)
            case ToolProgressMessage() if message.tool_call_id in self._sub_agents:
                self._status(f"{NESTED_INDENT}[sub-agent] {message.message or ''}")
            case ToolProgressMessage():
                total = f"/{message.total:g}" if message.total else ""
                eta = f", about {message.eta_s:g}s left" if message.eta_s is not None else ""
                self._status(f"{pad}[tool] progress {message.progress:g}{total} {message.message or ''}{eta}")
            case ToolOutputMessage():
                for line in message.text.splitlines():
                    self._status(f"{pad}    {line}")
            case CardMessage():
                self._status(f"[card] {message.card.title}: {message.card.body}")
            case FormRequestMessage() if message.source is not None:
                answer_elicitation(message, self._elicit, self._forms, self._status)
            case FormRequestMessage():
                self._spawn(self._answer_form(message))
            case ToolRejectedMessage():
                self._status(f"{pad}[tool] {message.tool_name} stopped: {message.reason}")
            case _:
                assert_never(message)

    def _tool_call(self, message: ToolCallMessage, pad: str = "") -> None:
        if message.tool_name == SUB_AGENT and not message.parent_tool_call_id:
            self._sub_agents.add(message.tool_call_id)
        match message.state:
            case "executing":
                args = json.dumps(message.arguments, ensure_ascii=False)
                self._status(f"{pad}[tool] {message.tool_name} running {args}")
            case "result":
                # One line: white space folded (a JSON result's first line is "{").
                summary = " ".join((message.result or "").split())
                summary = summary if len(summary) <= 200 else summary[:199] + "…"
                mark = "failed" if message.is_error else "done"
                left = result_cut(message.result)
                cut = f" (cut to fit the model's context: {left} characters left out)" if left else ""
                self._status(f"{pad}[tool] {message.tool_name} {mark}{cut}: {summary}")
            case "start" | "approval_required":
                pass

    def approval_needed(self, message: ToolCallMessage) -> None:
        self._spawn(self._ask_approval(message))

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        pad = NESTED_INDENT if message.parent_tool_call_id else ""
        how = " (read-only, allowed by your setting)" if by == "read_only_setting" else ""
        self._status(f"{pad}[tool] {message.tool_name} auto-approved{how}")

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        self._status(f"{message.type}: {message.message}")

    def interrupted(self, message: InterruptedMessage) -> None:
        key = INTERRUPTED_TEXT[message.reason]
        self._status(f"{text_in('en', key)}." if key else "Turn interrupted.")

    def turn_ended(self, message: TurnEndMessage) -> None:
        if self._line_open:
            self._out.write("\n")
            self._out.flush()
            self._line_open = False
        self._fresh = True
        self._new_round = False
        self._sub_agents.clear()
        for task in self._tasks:
            task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ask_approval(self, message: ToolCallMessage) -> None:
        assert self.conversation is not None
        task_id = message.task_id
        assert task_id is not None
        pad = NESTED_INDENT if message.parent_tool_call_id else ""
        if self._approve == "none":
            self._status(f"{pad}[tool] {message.tool_name} rejected (--approve none)")
            self.conversation.answer_approval(task_id, False, by="headless_flag")
            return
        sampling = sampling_view(message.tool_name, message.parent_tool_call_id, message.arguments)
        if sampling is not None:  # a server asks the model (contracts §10)
            self._status(f"{pad}[approval] {sampling_line(sampling)}")
        else:
            args = json.dumps(message.arguments, ensure_ascii=False)
            who = "sub-agent wants to run " if message.parent_tool_call_id else ""
            name = message.tool_name
            server = self._server_of(name) if self._server_of is not None else None
            annotations = self._annotations_of(name) if self._annotations_of is not None else None
            annotations = call_annotations(name, server, annotations, message.arguments)  # a command: its own
            self._status(f"{pad}[approval] {who}{name} {tool_origin(server, annotations)} {args}")
        if self._approve == "voice":
            await self._answer_by_voice(message, task_id, pad)
            return
        answer = await self._io.ask("Approve? [y/N] ")
        if answer is None:
            # The end of input is nobody's "no": the call is not run, and the
            # turn stops as an interrupt would (recorded "interrupted").
            self._status(f"\n{pad}[approval] {NO_ANSWER.format(tool=message.tool_name)}")
            self.conversation.interrupt()
            return
        self.conversation.answer_approval(task_id, answer.strip().lower() in ("y", "yes"))

    async def _answer_by_voice(self, message: ToolCallMessage, task_id: str, pad: str) -> None:
        """A clear yes approves; a clear no, anything unclear, or a failed
        recognition rejects (one recording: nothing to ask again)."""
        assert self.conversation is not None and self.listen is not None
        self._status(f"{pad}[approval] {VOICE_APPROVAL_PROMPT['en'].format(tool=message.tool_name)}")
        try:
            transcript = await self.listen()
        except STTError as exc:
            self._status(f"{pad}[approval] rejected: {exc}")
            self.conversation.answer_approval(task_id, False, by="voice")
            return
        if self.bus is not None:
            self.bus.push(transcript)
        answer = parse_answer(transcript.text)
        verdict = {"yes": "approved by voice", "no": "rejected by voice"}.get(answer or "", "not a clear yes or no: rejected")
        self._status(f'{pad}[approval] heard "{transcript.text}": {verdict}')
        self.conversation.answer_approval(task_id, answer == "yes", by="voice")

    async def _answer_form(self, message: FormRequestMessage) -> None:
        form_id = message.form_id
        if message.title:
            self._status(f"[form] {message.title}")
        answers: dict[str, Any] = {}
        for q in message.questions:
            options = list(q.options)
            hint = "".join(f"\n  {i}. {o}" for i, o in enumerate(options, 1))
            line = await self._io.ask(f"{q.question}{hint}\n> ")
            if line is None:
                self._forms.respond(form_id, None)
                return
            line = line.strip()
            if options:
                picks = [options[int(p) - 1] if p.isdigit() and 0 < int(p) <= len(options) else p
                         for p in line.replace(",", " ").split()]
                answers[q.id] = picks if q.type == "multi_choice" else (picks[0] if picks else "")
            elif line:
                answers[q.id] = line
        try:
            self._forms.respond(form_id, answers)
        except FormAnswerError as exc:
            self._status(f"[form] {exc}; the form was cancelled")
            self._forms.respond(form_id, None)
