"""Headless mode (contracts §10, contract): the same core, no Qt.

Exit status: 0 when the turn ended normally or was interrupted/rejected by
the user; 1 on an LLM or speech-recognition failure; 2 on bad configuration
(an unreadable or silent ``--audio-in``/``--approval-audio`` too). Errors are one line
on stderr, never a traceback. SIGINT interrupts the running turn exactly
like the window's interrupt button, writes the outputs, and exits; SIGTERM
and SIGHUP do the same (:mod:`.stop_signals`).

The package: :mod:`.terminal_io` (line input off the loop), :mod:`.view`
(the terminal's PlaybackView), :mod:`.events_file` (``--events-jsonl``),
:mod:`.voice` (recorded speech in and recorded approval answers), and here the
loop that runs turns.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from desktop_agent.cli import voice
from desktop_agent.cli.catalog import Unexpandable, expand_or_say, write_catalog
from desktop_agent.cli.events_file import EventsWriter
from desktop_agent.cli.saved_approvals import SavedApprovals
from desktop_agent.cli.speech_failure import SpeechFailureNotice
from desktop_agent.cli.stop_signals import StopSignals
from desktop_agent.cli.terminal_io import NOT_UTF8_NOTE, TerminalIO, valid_text
from desktop_agent.cli.view import TerminalView
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation, TurnOutcome
from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.mentions import ExpandedMessage
from desktop_agent.core.messages import TranscriptMessage
from desktop_agent.core.ports import LLMError, STTError
from desktop_agent.core.wire import WireProfile
from desktop_agent.mcp_engine import McpConfigError, ServerStatus
from desktop_agent.services import Services, build_services
from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.history_json import history_json
from desktop_agent.storage.settings import SettingsError, SettingsStore
from desktop_agent.texts import text_in
from desktop_agent.voice import SpeechNotice

__all__ = ["EXIT_CONFIG", "EXIT_LLM", "EXIT_OK", "TerminalIO", "TerminalView", "main", "run"]

log = logging.getLogger(__name__)

EXIT_OK, EXIT_LLM, EXIT_CONFIG = 0, 1, 2


async def _run_turn(
    conversation: Conversation,
    text: str,
    view: TerminalView,
    approve: str,
    jsonl: EventsWriter | None,
    signals: StopSignals,
    transcript: TranscriptMessage | None = None,
    speech_failure: SpeechFailureNotice | None = None,
    expanded: ExpandedMessage | None = None,
    saved: SavedApprovals | None = None,
) -> TurnOutcome:
    """``saved``: the settings' standing answers (None: only the flag's).
    ``transcript``: the recognised speech ``text`` came from, the turn's
    first message; ``expanded``: ``text`` with its MCP mentions expanded.
    A stop signal meanwhile is the interrupt button."""

    def on_bus(bus: SessionMessageBus) -> None:
        if jsonl is not None:
            jsonl.attach(bus)
        if speech_failure is not None:
            speech_failure.attach(bus)
        view.bus = bus
        if transcript is not None:
            bus.push(transcript)

    view.conversation = conversation
    turn = asyncio.ensure_future(
        conversation.run_turn(
            text, view,
            auto_approve=saved.auto if saved else (lambda _name: "headless_flag" if approve == "all" else None),
            approve_call=saved.call if saved else (lambda _message: None),
            on_bus=on_bus, expanded=expanded,
        )
    )
    signals.interrupt = conversation.interrupt
    try:
        return await turn
    finally:
        signals.interrupt = None


async def run(args: argparse.Namespace, stdin: IO[str], out: IO[str], err: IO[str]) -> int:
    signals = StopSignals(asyncio.get_running_loop(), asyncio.current_task())
    try:
        return await _run(args, stdin, out, err, signals)
    except asyncio.CancelledError:
        if not signals.uncancel():
            raise
        return EXIT_OK  # stopped while starting: nothing to write yet
    finally:
        signals.close()


async def _run(args: argparse.Namespace, stdin: IO[str], out: IO[str], err: IO[str], signals: StopSignals) -> int:
    try:
        voice.check_flags(args)
    except voice.VoiceConfigError as exc:
        _say(err, f"error: {exc}")
        return EXIT_CONFIG
    terminal = _TerminalListener(err)
    try:
        services = await build_services(
            base_url=args.base_url, model=args.model, api_key=args.api_key,
            mcp_config=args.mcp_config, tts=args.tts, tts_voice=args.tts_voice, max_steps=args.max_steps,
            approval_timeout_s=args.approval_timeout, start_mcp=True,
            max_tokens=args.max_tokens, request_timeout_s=args.request_timeout, skills=args.skills,
            listener=terminal,
            audit_log=args.audit_log, keep_conversations=True,
        )
    except (LLMError, McpConfigError, SettingsError, ValueError) as exc:
        _say(err, f"error: {exc}")
        return EXIT_CONFIG
    terminal.settings_store = services.settings_store
    try:
        try:
            return await _main(services, args, stdin, out, err, signals)
        except asyncio.CancelledError:
            if not signals.uncancel():
                raise
            return EXIT_OK
    finally:
        await services.aclose()


async def _main(
    services: Services, args: argparse.Namespace, stdin: IO[str], out: IO[str], err: IO[str], signals: StopSignals
) -> int:
    for warning in services.startup_warnings:
        _say(err, f"warning: {warning}")
    if args.sign_in:
        failed = await services.mcp.sign_in(args.sign_in) if services.mcp is not None else "no MCP servers"
        if failed is not None:
            _say(err, f"error: {failed}")
            return EXIT_CONFIG
        _say(err, f'signed in to "{args.sign_in}"')
        if not (args.prompt or args.audio_in or args.list_tools):
            return EXIT_OK
    if args.list_tools:
        for spec in services.router.specs():
            where = f"mcp:{spec.server}" if spec.server else "built-in"
            approval = "no approval" if spec.skip_approval and not spec.server else "needs approval"
            out.write(f"{spec.name}\t{where}\t{approval}\n")
        out.flush()
        return EXIT_OK
    if args.list_prompts or args.list_resources:
        write_catalog(services.mcp, out, prompts=args.list_prompts, resources=args.list_resources)
        return EXIT_OK
    if services.llm.is_demo:
        _say(err, f"model: demo. {services.demo_notice}")
    else:
        _say(err, f"model: {services.llm.model}")

    message_audio = answer_audio = None
    try:
        if args.audio_in:
            message_audio = voice.recording(args, services.settings, args.audio_in, answers=False)
        if args.approval_audio:
            answer_audio = voice.recording(
                args, services.settings, args.approval_audio, answers=True, share=message_audio
            )
    except STTError as exc:
        _say(err, f"error: {exc}")
        if message_audio is not None:
            await message_audio.aclose()
        return EXIT_CONFIG
    voice.report_downloads((message_audio, answer_audio), err)
    _report_voice_downloads(services, err)
    try:
        return await _session(services, args, stdin, out, err, signals, message_audio, answer_audio)
    finally:
        for rec in (message_audio, answer_audio):
            if rec is not None:
                await rec.aclose()


async def _session(
    services: Services,
    args: argparse.Namespace,
    stdin: IO[str],
    out: IO[str],
    err: IO[str],
    signals: StopSignals,
    message_audio: voice.Recording | None,
    answer_audio: voice.Recording | None,
) -> int:
    conversation = services.new_conversation()
    io = TerminalIO(stdin, err)
    view = TerminalView(
        io, services.forms, args.approve, out, err,
        server_of=services.tool_server, annotations_of=services.tool_annotations, elicit=args.elicit,
    )
    view.listen = answer_audio.recognise if answer_audio is not None else None
    saved = SavedApprovals(args.approve, lambda: services.settings, services.tool_server, services.tool_annotations)
    speech_failure = SpeechFailureNotice(lambda line: _say(err, line))
    transcript: TranscriptMessage | None = None
    if message_audio is not None:
        try:
            transcript = await voice.recognise_message(message_audio)
        except STTError as exc:
            _say(err, f"error: {exc}")
            return EXIT_LLM
        _say(err, f"[heard] {transcript.text} ({transcript.engine})")
    jsonl = EventsWriter(args.events_jsonl) if args.events_jsonl else None
    status = EXIT_OK
    # From here a stop signal never cancels: the clean-up below must run whole.
    signals.cancel_main = False
    try:
        if signals.stopping:
            pass
        elif args.prompt is not None or transcript is not None:
            text = transcript.text if transcript is not None else args.prompt
            text, replaced = valid_text(text)
            if replaced:
                _say(err, NOT_UTF8_NOTE)
            expanded = await expand_or_say(services, text, conversation.conversation_id, err)
            if isinstance(expanded, Unexpandable):
                status = EXIT_CONFIG
            else:
                outcome = await _run_turn(
                    conversation, text, view, args.approve, jsonl, signals, transcript, speech_failure, expanded,
                    saved,
                )
                status = EXIT_LLM if outcome.status == "error" else EXIT_OK
        else:
            while True:
                line = await _ask_unless_stopped(io, signals)
                if line is None or line.strip() in ("/quit", "/exit"):
                    break
                if line.strip():
                    expanded = await expand_or_say(services, line, conversation.conversation_id, err)
                    if isinstance(expanded, Unexpandable):
                        continue  # said on stderr; the next line may fix it
                    await _run_turn(
                        conversation, line, view, args.approve, jsonl, signals, None, speech_failure, expanded,
                        saved,
                    )
                    services.save_conversation(conversation)
                    signals.rearm()
                    if signals.stopping:
                        break
    finally:
        # This run's own conversation (never one another process has open),
        # in the data folder's database, so the window lists it too.
        services.save_conversation(conversation)
        if jsonl is not None:
            jsonl.close()
        if args.history_json:
            _write_history(args.history_json, history_json(conversation.history), err)
        await services.close_conversation(conversation.conversation_id)
    return status


async def _ask_unless_stopped(io: TerminalIO, signals: StopSignals) -> str | None:
    """The next line, or None at the end of input or on a stop signal."""
    ask = asyncio.ensure_future(io.ask("you> "))
    stop = asyncio.ensure_future(signals.stopped.wait())
    try:
        await asyncio.wait((ask, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (ask, stop):
            task.cancel()  # ``ask`` keeps its read pending for a later question
    return ask.result() if ask.done() and not ask.cancelled() else None


def _write_history(path: Path, history: Sequence[JSONMapping], err: IO[str]) -> None:
    try:
        atomic_write_text(path, json.dumps(history, ensure_ascii=False, indent=2))
    except NotADirectoryError as exc:
        _say(err, f"error: cannot write history to {path}: {exc.filename} is a file, not a folder")
    except OSError as exc:
        _say(err, f"error: cannot write history to {path}: {exc.strerror}")


class _TerminalListener:
    """What the running services say, on stderr (in English: the terminal
    has no language setting; a speech notice's reason is in the log)."""

    def __init__(self, err: IO[str]) -> None:
        self._err = err
        self.settings_store: SettingsStore | None = None
        """Where a wire profile is remembered: the services' store, once built."""

    def notice(self, text: str) -> None:
        _say(self._err, f"notice: {text}")

    def speech_notice(self, kind: SpeechNotice) -> None:
        _say(self._err, f"notice: {text_in('en', kind)}")

    def wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        """Write the profile into the settings file as it is on disk: the
        settings in use hold this run's command-line overrides, which are not
        to be saved."""
        store = self.settings_store
        if store is None:
            return
        try:
            store.save(store.load().settings.with_wire_profile(endpoint, profile.name))
        except (OSError, SettingsError) as exc:
            _say(self._err, f"warning: cannot remember the wire profile of {endpoint}: {exc}")

    def mcp_status(self, status: ServerStatus) -> None:
        """Nothing: the headless run waits for the servers before its turns."""


def _report_voice_downloads(services: Services, err: IO[str]) -> None:
    """A Piper voice fetched at its first segment shows its progress on the
    terminal, as a recognition model's does (``--tts piper`` with a named
    voice not on disk yet; ``auto`` never downloads mid-reply)."""
    from desktop_agent.cli.model_progress import ModelProgressPrinter
    from desktop_agent.voice.piper import PiperEngine

    engine = services.tts
    if isinstance(engine, PiperEngine) and engine.on_progress is None:
        engine.on_progress = ModelProgressPrinter(err, engine.store.root)


def _say(stream: IO[str], line: str) -> None:
    stream.write(line + "\n")
    stream.flush()


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(run(args, sys.stdin, sys.stdout, sys.stderr))
    except KeyboardInterrupt:  # Windows: no signal handlers on the loop
        return EXIT_OK
