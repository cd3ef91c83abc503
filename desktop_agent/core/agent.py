"""AgentClient: one user turn as an async generator (contracts §2).

Planning round (the tools shown, ``tool_choice: "none"``) → intent tag →
continuation round (``<no_tool>``) or the tool loop (``<need_tool>``, no tag,
or a tool call the model made in the planning round anyway). Every round of
a turn carries the same tools, so its prompt prefix is the same and a local
server reuses its prompt cache (contracts §2a). The generator suspends at
``approval_required``; the chat handler resumes it only when the call was
approved, and otherwise closes it, so nothing of a rejected call runs.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, replace

from desktop_agent.core import prompts
from desktop_agent.core.budget import Budget, cut_result, fit_request
from desktop_agent.core.events import (
    LLMChunk,
    NoticeChunk,
    RoundEndChunk,
    SegmentChunk,
    ToolCallChunk,
    ToolCallInfo,
)
from desktop_agent.core.history import NO_TRUNCATE_TOOLS
from desktop_agent.core.history_items import (
    AssistantMessage,
    ToolAnswer,
    ToolCall,
    UserMessage,
)
from desktop_agent.core.hooks import Hook, HookNote, hook_notes, persistent
from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.ports import (
    AnswerTimedOut,
    LLMError,
    LLMProvider,
    SubAgentStopped,
    TextDelta,
    ToolContext,
    ToolResult,
)
from desktop_agent.core.skill_blocks import SkillPrompts, insert_skill_blocks
from desktop_agent.core.stream_parser import StreamParser, detect_intent, strip_intent_tags
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import history_messages, tool_answer
from desktop_agent.core.working_items import (
    Instruction,
    WorkingItem,
    answered_ids,
    drop_once,
    role_of,
    without_intent_tags,
)

log = logging.getLogger(__name__)

ContextFactory = Callable[[str], ToolContext]
"""Builds the ToolContext of one call from its tool_call_id."""


@dataclass
class _PendingCall:
    index: int
    id: str
    name: str = ""
    arguments: str = ""
    announced: bool = False


@dataclass
class _RoundReport:
    """What one round's stream said besides its text and calls."""

    finish_reason: str | None = None
    stray_call: bool = False
    """A tool call in a round that must not call tools (planning)."""

    def finished(self, reason: str) -> None:
        self.finish_reason = reason


class _RoundFailed(Exception):
    def __init__(self, notice: NoticeChunk) -> None:
        self.notice = notice


class AgentClient:
    def __init__(
        self,
        llm: LLMProvider,
        router: ToolRouter,
        *,
        max_steps: int = 10,
        speak_every_reply: bool = False,
        system_prompt: str | None = prompts.SYSTEM_PROMPT,
        skills: SkillPrompts | None = None,
        hooks: Sequence[Hook] = (),
        budget: Budget | None = None,
    ) -> None:
        self.llm = llm
        self.router = router
        self.max_steps = max_steps
        self.speak_every_reply = speak_every_reply
        self.system_prompt = system_prompt
        self.skills = skills
        """The skills catalogue and ``/<skill-name>`` blocks (contracts §9);
        None (a sub-agent): no skills."""
        self.hooks: tuple[Hook, ...] = tuple(hooks)
        """Enabled prompt hooks (contracts §9), in file order; an agent built
        without them (a sub-agent) has none."""
        self.budget = budget or Budget()
        """What a request may hold (the model's context): every tool result
        is cut to its share, and every request fitted, before it is sent."""
        self._task_ids = itertools.count(1)
        self._call_ids = itertools.count(1)

    async def chat_stream(
        self, messages: Sequence[WorkingItem], context_factory: ContextFactory
    ) -> AsyncGenerator[LLMChunk, None]:
        working: list[WorkingItem] = list(messages)
        if self.system_prompt and not (working and role_of(working[0]) == "system"):
            working.insert(0, Instruction("system", self.system_prompt))
        if self.skills is not None:
            insert_skill_blocks(working, self.skills)
        try:
            # Round 0: planning, the tools shown but not to be called (the
            # prompt prefix of every round the same), temporary planning
            # prompt at the end.
            planning = Instruction("planning", prompts.PLANNING_PROMPT)
            working.append(planning)
            parser = self._parser()
            report = _RoundReport()
            planning_round = self._stream_round(working, parser, tools=self._tools(), report=report)
            async with aclosing(planning_round) as planning_stream:
                async for segment_chunk in planning_stream:
                    yield segment_chunk
            full = parser.full_raw_text
            # A call the model made anyway says a tool is needed, whatever the tag.
            skip_agent_loop = detect_intent(full) is True and not report.stray_call
            before = [] if skip_agent_loop else hook_notes(self.hooks, "before_tool_round")
            yield RoundEndChunk(0, "planning", persistent(before))
            _remove_exact(working, planning)
            if full.strip():
                working.append(AssistantMessage(full))
                working.append(UserMessage(prompts.CONTINUE_MESSAGE))
            working[:] = map(without_intent_tags, working)  # history's stay as they are

            rest = (
                self._continuation(working)
                if skip_agent_loop
                else self._tool_loop(working, context_factory, before)
            )
            async with aclosing(rest) as stream:
                async for chunk in stream:
                    yield chunk
        except _RoundFailed as failed:
            yield failed.notice

    async def tool_loop_stream(
        self, messages: Sequence[WorkingItem], context_factory: ContextFactory
    ) -> AsyncGenerator[LLMChunk, None]:
        """The tool loop alone, with no planning round (a sub-agent, contracts §9)."""
        working: list[WorkingItem] = list(messages)
        if self.system_prompt:
            working.insert(0, Instruction("system", self.system_prompt))
        try:
            async with aclosing(self._tool_loop(working, context_factory)) as stream:
                async for chunk in stream:
                    yield chunk
        except _RoundFailed as failed:
            yield failed.notice

    def _parser(self) -> StreamParser:
        return StreamParser(speak_everything=self.speak_every_reply)

    def _tools(self) -> list[JSONObject] | None:
        """The tools every round of a turn carries (the tool loop's)."""
        return self.router.openai_tools() or None

    async def _stream_round(
        self,
        working: list[WorkingItem],
        parser: StreamParser,
        *,
        tools: list[JSONObject] | None = None,
        calls: dict[int, _PendingCall] | None = None,
        report: _RoundReport | None = None,
    ) -> AsyncGenerator[SegmentChunk | ToolCallChunk | NoticeChunk, None]:
        """One LLM call: text becomes segments; with ``calls`` given, tool-call
        deltas accumulate there and each call is announced (``start``) once
        its name is known, after every segment of the text before it. Without
        it (rounds that must not call tools: ``tools`` are sent with
        ``tool_choice: "none"``) stray tool calls are only noted in
        ``report``. A reply cut at ``max_tokens`` ends with a warning. A
        failure flushes the text so far, then ends the turn with an error
        notice."""
        text_pending = False
        report = report or _RoundReport()
        fitted = fit_request(working, self.budget.messages_bytes(tools))
        if fitted.changed:
            log.info("%d messages shortened or left out to fit the model's context", fitted.changed)
        stream = self.llm.stream(
            history_messages(fitted.items),  # the request's JSON, made as it is sent
            tools=tools,
            tool_choice="auto" if calls is not None else "none",
            on_finish=report.finished,
        )
        try:
            async with aclosing(stream) as deltas:
                async for delta in deltas:
                    if isinstance(delta, TextDelta):
                        for segment in parser.feed(delta.text):
                            yield SegmentChunk(segment)
                        text_pending = True
                        continue
                    if calls is None:
                        report.stray_call = True
                        continue
                    if text_pending:
                        # The round switched from text to a tool call: the
                        # narration before it goes on the bus first (contracts §6).
                        text_pending = False
                        for segment in parser.flush():
                            yield SegmentChunk(segment)
                    call = calls.get(delta.index)
                    if call is None:
                        call = calls[delta.index] = _PendingCall(
                            delta.index, self._fresh_id(delta.id, working, calls)
                        )
                    if delta.name:
                        call.name += delta.name
                    call.arguments += delta.arguments
                    if call.name and not call.announced:
                        call.announced = True
                        yield ToolCallChunk(ToolCallInfo(call.id, call.name, "start"))
        except LLMError as exc:
            for segment in parser.flush():
                yield SegmentChunk(segment)
            raise _RoundFailed(NoticeChunk("error", exc.message, exc.code)) from exc
        finally:
            drop_once(working)  # non-persistent hooks go with one request only
        for segment in parser.flush():
            yield SegmentChunk(segment)
        if report.finish_reason == "length":
            yield NoticeChunk("warning", prompts.MAX_TOKENS_WARNING, "max_tokens")

    def _fresh_id(self, wanted: str | None, working: list[WorkingItem], calls: dict[int, _PendingCall]) -> str:
        """``wanted`` unless it is missing or already taken in this round or
        the conversation: a model that repeats an id would otherwise have one
        of the two calls lost from history, and the API refuses a request with
        the same id twice."""
        taken = {c.id for c in calls.values()} | answered_ids(working)
        call_id = wanted
        while not call_id or call_id in taken:
            call_id = f"call_{next(self._call_ids)}"
        if wanted and call_id != wanted:
            log.info("the model reused the tool-call id %r; the call is %r here", wanted, call_id)
        return call_id

    async def _continuation(self, working: list[WorkingItem]) -> AsyncGenerator[LLMChunk, None]:
        prompt = Instruction("continuation", prompts.CONTINUATION_PROMPT)
        working.append(prompt)
        async with aclosing(self._stream_round(working, self._parser(), tools=self._tools())) as stream:
            async for chunk in stream:
                yield chunk
        yield RoundEndChunk(1, "continuation")
        _remove_exact(working, prompt)

    async def _tool_loop(
        self,
        working: list[WorkingItem],
        context_factory: ContextFactory,
        before: list[HookNote] | None = None,
    ) -> AsyncGenerator[LLMChunk, None]:
        """``before``: the first round's ``before_tool_round`` hook notes,
        when the caller already handed their persistent part to history."""
        tools = self._tools()
        if before is None:
            before = hook_notes(self.hooks, "before_tool_round")
        for step in range(1, self.max_steps + 1):
            working.extend(before)
            parser = self._parser()
            calls: dict[int, _PendingCall] = {}
            async with aclosing(self._stream_round(working, parser, tools=tools, calls=calls)) as stream:
                async for chunk in stream:
                    yield chunk
            if not calls:
                yield RoundEndChunk(step, "tools")
                return

            ordered = [calls[i] for i in sorted(calls)]
            text = strip_intent_tags(parser.full_raw_text)
            working.append(
                AssistantMessage(
                    text if text.strip() else None,
                    tuple(ToolCall(c.id, c.name, c.arguments or "{}") for c in ordered),
                )
            )
            for call in ordered:
                if not call.announced:
                    yield ToolCallChunk(ToolCallInfo(call.id, call.name or "(no name)", "start"))
                result: ToolResult | None = None
                async with aclosing(self._run_call(call, context_factory)) as run:
                    async for chunk in run:
                        yield chunk
                        if chunk.call.state == "result":
                            result = chunk.call.result
                assert result is not None
                working.append(ToolAnswer(call.id, tool_answer(result.text, is_error=result.is_error)))
            # After the round's last tool message, never between two of them.
            after = hook_notes(self.hooks, "after_tool_result")
            working.extend(after)
            before = hook_notes(self.hooks, "before_tool_round") if step < self.max_steps else []
            yield RoundEndChunk(step, "tools", persistent([*after, *before]))
        yield NoticeChunk(
            "warning", prompts.MAX_STEPS_WARNING.format(steps=self.max_steps), "max_steps"
        )

    async def _run_call(
        self, call: _PendingCall, context_factory: ContextFactory
    ) -> AsyncGenerator[ToolCallChunk, None]:
        name = call.name or "(no name)"
        arguments, problem = _parse_arguments(call.arguments)
        route = self.router.lookup(call.name) if call.name else None
        if problem is None and route is None:
            known = ", ".join(s.name for s in self.router.specs()) or "none"
            problem = f"unknown tool {name!r}; available tools: {known}"
        if problem is not None or route is None or arguments is None:
            result = ToolResult(f"Error: {problem}. The tool was not run.", is_error=True)
            yield ToolCallChunk(ToolCallInfo(call.id, name, "result", arguments, result=result))
            return
        if not route.skip_approval:
            task_id = f"t{next(self._task_ids)}"
            yield ToolCallChunk(
                ToolCallInfo(call.id, name, "approval_required", arguments, task_id=task_id)
            )
        follow_up = route.post_executing(call.id, arguments)
        yield ToolCallChunk(ToolCallInfo(call.id, name, "executing", arguments, follow_up=follow_up))
        try:
            result = await route.run(arguments, context_factory(call.id))
        except (AnswerTimedOut, SubAgentStopped):
            raise  # the user never answered, or refused a sub-agent's call: the handler ends the turn
        except Exception as exc:  # a broken tool must not end the turn
            log.exception("tool %s failed", name)
            result = ToolResult(f"Error: tool {name!r} failed: {exc}", is_error=True)
        yield ToolCallChunk(ToolCallInfo(call.id, name, "result", arguments, result=self._bounded(name, result)))

    def _bounded(self, name: str, result: ToolResult) -> ToolResult:
        """``result`` cut to its share of the request, here where it is
        produced, so the bus, the card, history and the saved conversation
        hold what the model gets. Skills (``get_skill``) are exempt, as from
        the history cut: the request fitting still bounds them."""
        if name in NO_TRUNCATE_TOOLS:
            return result
        text = cut_result(result.text, self.budget)
        if text is result.text:
            return result
        log.info("the result of %s was cut from %d to %d characters to fit the model's context",
                 name, len(result.text), len(text))
        return replace(result, text=text)


def _remove_exact(working: list[WorkingItem], prompt: Instruction) -> None:
    """Remove this very prompt (a temporary one)."""
    for index in range(len(working) - 1, -1, -1):
        if working[index] is prompt:
            del working[index]
            return


TOO_DEEP = f"the arguments are nested too deeply to be tool arguments (at most {MAX_ARGUMENT_DEPTH} levels)"


def _parse_arguments(raw: str) -> tuple[JSONObject | None, str | None]:
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}): {raw[:200]!r}"
    except RecursionError:  # the json module recurses once per nesting level
        return None, TOO_DEEP
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, got {type(value).__name__}"
    if nests_deeper_than(value, MAX_ARGUMENT_DEPTH):
        # Refused here, where they are parsed: redaction, the audit record,
        # the bus, history and the wire never see arguments this deep.
        return None, TOO_DEEP
    return value, None
