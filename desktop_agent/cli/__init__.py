"""Headless mode (DESIGN §10, contract): the same core, no Qt.

Exit status: 0 when the turn ended normally or was interrupted/rejected by
the user; 1 on an LLM failure; 2 on bad configuration. Errors are one line
on stderr, never a traceback. SIGINT interrupts the running turn exactly
like the window's interrupt button, writes the outputs, and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import IO, Any

from desktop_agent.core.bus import BusItem, SessionMessageBus
from desktop_agent.core.conversation import Conversation, TurnOutcome
from desktop_agent.core.forms import FormAnswerError, FormManager
from desktop_agent.core.ports import LLMError
from desktop_agent.mcp_engine import McpConfigError
from desktop_agent.services import Services, build_services
from desktop_agent.storage.settings import SettingsError

log = logging.getLogger(__name__)

EXIT_OK, EXIT_LLM, EXIT_CONFIG = 0, 1, 2

JSONDict = dict[str, Any]


class TerminalIO:
    """Line input that does not block the loop (stdin read on a thread).

    At most one read is in flight: a question abandoned mid-read (the turn
    ended, the approval timed out) leaves its read pending, and the next
    question takes that line instead of a second thread stealing it.
    """

    def __init__(self, stdin: IO[str], out: IO[str]) -> None:
        self._stdin = stdin
        self._out = out
        self._pending: asyncio.Future[str] | None = None
        self.eof = False

    def _read_line(self) -> asyncio.Future[str]:
        if self._pending is not None:
            return self._pending
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        self._pending = future

        def read() -> None:
            try:
                text = self._stdin.readline()
            except (OSError, ValueError):
                text = ""

            def deliver() -> None:
                if not future.done():
                    future.set_result(text)

            loop.call_soon_threadsafe(deliver)

        # A daemon thread, not the default executor: a read still blocked on
        # the terminal must not hold up the process exit.
        threading.Thread(target=read, name="stdin-reader", daemon=True).start()
        return future

    async def ask(self, prompt: str) -> str | None:
        if self.eof:
            return None
        self._out.write(prompt)
        self._out.flush()
        future = self._read_line()
        line = await asyncio.shield(future)
        self._pending = None
        if not line:
            self.eof = True
            return None
        return line.rstrip("\n")


class TerminalView:
    """PlaybackView for the terminal: text to stdout, tool activity to stderr."""

    def __init__(self, io: TerminalIO, forms: FormManager, approve: str, out: IO[str], err: IO[str]) -> None:
        self._io = io
        self._forms = forms
        self._approve = approve
        self._out = out
        self._err = err
        self.conversation: Conversation | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._line_open = False

    def _status(self, text: str) -> None:
        if self._line_open:
            self._out.write("\n")
            self._out.flush()
            self._line_open = False
        self._err.write(text + "\n")
        self._err.flush()

    def show_text(self, message: JSONDict) -> None:
        self._out.write(("" if not self._line_open else " ") + str(message["text"]))
        self._out.flush()
        self._line_open = True

    def tool_event(self, item: BusItem) -> None:
        m = item.message
        kind = m["type"]
        if kind == "tool_call":
            state = m["state"]
            if state == "approval_required":
                self._status(f"[tool] {m['tool_name']} auto-approved")
            elif state == "executing":
                self._status(f"[tool] {m['tool_name']} running {json.dumps(m['arguments'], ensure_ascii=False)}")
            elif state == "result":
                first = str(m.get("result", "")).strip().splitlines()[:1]
                mark = "failed" if m.get("is_error") else "done"
                self._status(f"[tool] {m['tool_name']} {mark}: {first[0][:200] if first else ''}")
        elif kind == "tool_progress":
            total = f"/{m['total']:g}" if m.get("total") else ""
            eta = f", about {m['eta_s']:g}s left" if m.get("eta_s") is not None else ""
            self._status(f"[tool] progress {m['progress']:g}{total} {m.get('message') or ''}{eta}")
        elif kind == "card":
            card = m["card"]
            self._status(f"[card] {card.get('title', '')}: {card.get('body', '')}")
        elif kind == "form_request":
            self._spawn(self._answer_form(m))
        elif kind == "tool_rejected":
            self._status(f"[tool] {m['tool_name']} stopped: {m['reason']}")

    def approval_needed(self, message: JSONDict) -> None:
        self._spawn(self._ask_approval(message))

    def notice(self, message: JSONDict) -> None:
        self._status(f"{message['type']}: {message['message']}")

    def interrupted(self, message: JSONDict) -> None:
        text = {
            "user": "Conversation interrupted.",
            "rejected": "Session interrupted.",
            "approval_timeout": "Tool approval timed out; the call was rejected and the session interrupted.",
        }.get(str(message["reason"]), "Turn interrupted.")
        self._status(text)

    def turn_ended(self, message: JSONDict) -> None:
        if self._line_open:
            self._out.write("\n")
            self._out.flush()
            self._line_open = False
        for task in self._tasks:
            task.cancel()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ask_approval(self, message: JSONDict) -> None:
        assert self.conversation is not None
        task_id = str(message["task_id"])
        if self._approve == "none":
            self._status(f"[tool] {message['tool_name']} rejected (--approve none)")
            self.conversation.answer_approval(task_id, False)
            return
        args = json.dumps(message.get("arguments"), ensure_ascii=False)
        self._status(f"[approval] {message['tool_name']} {args}")
        answer = await self._io.ask("Approve? [y/N] ")
        self.conversation.answer_approval(task_id, (answer or "").strip().lower() in ("y", "yes"))

    async def _answer_form(self, message: JSONDict) -> None:
        form_id = str(message["form_id"])
        if message.get("title"):
            self._status(f"[form] {message['title']}")
        answers: dict[str, Any] = {}
        for q in message["questions"]:
            options = list(q.get("options") or [])
            hint = "".join(f"\n  {i}. {o}" for i, o in enumerate(options, 1))
            line = await self._io.ask(f"{q['question']}{hint}\n> ")
            if line is None:
                self._forms.respond(form_id, None)
                return
            line = line.strip()
            if options:
                picks = [options[int(p) - 1] if p.isdigit() and 0 < int(p) <= len(options) else p
                         for p in line.replace(",", " ").split()]
                answers[q["id"]] = picks if q.get("type") == "multi_choice" else (picks[0] if picks else "")
            elif line:
                answers[q["id"]] = line
        try:
            self._forms.respond(form_id, answers)
        except FormAnswerError as exc:
            self._status(f"[form] {exc}; the form was cancelled")
            self._forms.respond(form_id, None)


class _Jsonl:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def attach(self, bus: SessionMessageBus) -> None:
        bus.add_listener(self.write)

    def write(self, item: BusItem) -> None:
        self._fh.write(json.dumps(item.message, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


async def _run_turn(
    conversation: Conversation, text: str, view: TerminalView, approve: str, jsonl: _Jsonl | None
) -> TurnOutcome:
    loop = asyncio.get_running_loop()

    def on_bus(bus: SessionMessageBus) -> None:
        if jsonl is not None:
            jsonl.attach(bus)

    view.conversation = conversation
    turn = asyncio.ensure_future(
        conversation.run_turn(
            text, view, auto_approve=(lambda _name: True) if approve == "all" else (lambda _name: False),
            on_bus=on_bus,
        )
    )
    try:
        loop.add_signal_handler(signal.SIGINT, conversation.interrupt)
    except (NotImplementedError, RuntimeError):  # Windows: KeyboardInterrupt instead
        pass
    try:
        return await turn
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


async def run(args: argparse.Namespace, stdin: IO[str], out: IO[str], err: IO[str]) -> int:
    try:
        services = await build_services(
            base_url=args.base_url, model=args.model, api_key=args.api_key,
            mcp_config=args.mcp_config, tts=args.tts, max_steps=args.max_steps,
            approval_timeout_s=args.approval_timeout, start_mcp=True,
            on_notice=lambda line: _say(err, f"notice: {line}"),
        )
    except (LLMError, McpConfigError, SettingsError, ValueError) as exc:
        _say(err, f"error: {exc}")
        return EXIT_CONFIG
    try:
        return await _main(services, args, stdin, out, err)
    finally:
        await services.aclose()


async def _main(services: Services, args: argparse.Namespace, stdin: IO[str], out: IO[str], err: IO[str]) -> int:
    for warning in services.startup_warnings:
        _say(err, f"warning: {warning}")
    if args.list_tools:
        for spec in services.router.specs():
            where = f"mcp:{spec.server}" if spec.server else "built-in"
            approval = "no approval" if spec.skip_approval and not spec.server else "needs approval"
            out.write(f"{spec.name}\t{where}\t{approval}\n")
        out.flush()
        return EXIT_OK
    if services.llm.is_demo:
        _say(err, f"model: demo. {services.demo_notice}")
    else:
        _say(err, f"model: {services.llm.model}")

    conversation = services.new_conversation()
    io = TerminalIO(stdin, err)
    view = TerminalView(io, services.forms, args.approve, out, err)
    jsonl = _Jsonl(args.events_jsonl) if args.events_jsonl else None
    status = EXIT_OK
    try:
        if args.prompt is not None:
            outcome = await _run_turn(conversation, args.prompt, view, args.approve, jsonl)
            status = EXIT_LLM if outcome.status == "error" else EXIT_OK
        else:
            while True:
                line = await io.ask("you> ")
                if line is None or line.strip() in ("/quit", "/exit"):
                    break
                if line.strip():
                    await _run_turn(conversation, line, view, args.approve, jsonl)
    finally:
        if jsonl is not None:
            jsonl.close()
        if args.history_json:
            _write_history(args.history_json, conversation.history, err)
        await services.close_conversation(conversation.conversation_id)
    return status


def _write_history(path: Path, history: list[JSONDict], err: IO[str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(history, ensure_ascii=False, indent=2), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        _say(err, f"error: cannot write history to {path}: {exc.strerror}")


def _say(stream: IO[str], line: str) -> None:
    stream.write(line + "\n")
    stream.flush()


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(run(args, sys.stdin, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return EXIT_OK
