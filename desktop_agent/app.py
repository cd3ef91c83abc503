"""Composition root of the window: QApplication, the window, the qasync
loop, the services, the speaker and the :class:`WindowDeps` that connects
them to the window; and a clean shut-down when the window closes.

Start-up order is the point of this module: the window is on screen
*before* asyncio, qasync, the core, openai and mcp are imported (they are
imported inside the functions below, the heavy ones in a worker thread by
:func:`desktop_agent.ui.shell.runtime.warm_imports`), so the services are built
while the user already sees the window, and its input already takes text
(held until the services are attached). It is shown as the user left it:
the saved theme and language from its first paint, at its saved size and
place (:func:`first_window`). The MCP servers then start in the
background: no server, however slow, holds up the input or Settings.
Closing it during a turn interrupts the turn (a running command's process
group is killed), waits for it to end, then closes the services; SIGINT,
SIGTERM and SIGHUP close it the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

# PySide6 before qasync (qasync picks the Qt binding already imported);
# qasync comes later, after the window is shown.
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop_agent.app_speech import deferred_sink, no_audio_output, speech_recognizers, voice_preview
from desktop_agent.storage.paths import SETTINGS_FILE, data_dir
from desktop_agent.ui.chat.turn_deps import ConversationKeeper, SettingsFeature
from desktop_agent.ui.chat.turn_events import NoticeLevel
from desktop_agent.ui.common.fonts import prefer_chinese_sans
from desktop_agent.ui.common.painting import paint_on_one_thread
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell import single_instance
from desktop_agent.ui.shell.first_look import apply_saved_look
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.window_deps import WindowDeps
from desktop_agent.ui.shell.window_place import place_path, remember_place, restore_place
from desktop_agent.ui.voice.feature import VoiceFeature

if TYPE_CHECKING:
    import asyncio

    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.core.wire import WireProfile
    from desktop_agent.mcp_engine import ServerStatus
    from desktop_agent.mcp_engine.catalog import ResourceContent
    from desktop_agent.mcp_engine.server_log import LogLine
    from desktop_agent.services import Services
    from desktop_agent.voice import SpeechNotice

EXIT_OK, EXIT_CONFIG = 0, 2

ICON = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1])) / "resources" / "icon.svg"


def run_gui(args: argparse.Namespace) -> int:
    """Open the window and run until it is closed; the exit status
    (0, or 2 with a one-line error on stderr for a bad configuration).

    Reads from ``args``: ``base_url``, ``model``, ``api_key``,
    ``mcp_config``, ``tts``, ``max_steps``, ``approval_timeout``,
    ``max_tokens``, ``request_timeout``,
    ``screenshot`` (save a PNG of the window), ``quit_after_ms`` (close the
    window after that long; with ``screenshot``, the shot is taken just
    before) and, for the start-up benchmark, ``on_window_shown`` (called once
    the window is painted). Missing attributes count as not given.
    """
    # Qt lists every optional media library it could not load (pipewire,
    # VA-API) at start-up; that is noise for a user, not a fault.
    os.environ.setdefault("QT_LOGGING_RULES", "qt.multimedia.symbolsresolver=false")
    paint_on_one_thread()  # a busy machine kept Qt's paint threads waiting, and the window with them
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("desktop-agent")
    prefer_chinese_sans(app)  # Chinese in SC forms, not whatever CJK face fontconfig falls back to
    app.setQuitOnLastWindowClosed(False)  # the coroutine decides when to stop
    # One window per data folder: a second launch hands its command line to
    # the first and exits (two windows saved over each other's turns).
    folder = data_dir()
    where = single_instance.socket_path(folder)
    held = single_instance.claim(folder)
    if held is None:
        argv: list[str] = list(getattr(args, "argv", None) or sys.argv[1:])
        if single_instance.forward(where, argv):
            print("desktop-agent: the window for this data folder is already open; brought it forward",
                  file=sys.stderr)
            return EXIT_OK
        print(f"desktop-agent: error: another desktop-agent window is using {folder} but does not answer",
              file=sys.stderr)
        return EXIT_CONFIG
    try:
        return _run_window(app, args, single_instance.InstanceServer(where))
    finally:
        held.release()


def _run_window(app: QApplication, args: argparse.Namespace, others: single_instance.InstanceServer) -> int:
    if ICON.is_file():  # a source checkout or the bundle; a wheel has no icon
        app.setWindowIcon(QIcon(str(ICON)))
    window = first_window(data_dir())
    others.arguments.connect(lambda argv: take_arguments(window, argv))
    window.show()
    app.processEvents()  # show, expose and paint it now
    on_shown: Callable[[], None] | None = getattr(args, "on_window_shown", None)
    if on_shown is not None:
        on_shown()
    prompt = getattr(args, "prompt", None)
    if prompt:
        window.send_text(prompt)  # held until the services are attached

    import asyncio

    import qasync

    from desktop_agent.ui.shell import runtime

    try:
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            try:
                return runner.run(serve(window, args))
            finally:
                runtime.ignore_stop_signals()  # before the loop's teardown, which a signal must not cut short
    finally:
        others.close()


def first_window(folder: Path) -> MainWindow:
    """The window as the user left it, before it is first shown: the saved
    theme and language (Qt's own words too) from the first paint, not only
    once the services have read the settings; and its saved size and place,
    which it saves again when it closes."""
    window = MainWindow(texts=apply_saved_look(folder / SETTINGS_FILE))
    place = place_path(folder)
    restore_place(window, place)
    window.closed.connect(lambda: remember_place(window, place))
    return window


STARTUP_ONLY = ("base_url", "model", "api_key", "mcp_config", "tts", "max_steps", "approval_timeout", "skills",
                "stt", "stt_model", "max_tokens", "request_timeout")
"""Options a running window cannot take from a later launch (they choose
what it was built with)."""


def take_arguments(window: MainWindow, argv: list[str]) -> None:
    """A later launch's command line: bring the window forward, send its
    ``--prompt`` (or leave it in the input when a turn runs), and say which
    of its options only apply at start."""
    from desktop_agent.options import build_parser

    window.bring_forward()
    try:
        args, _unknown = build_parser().parse_known_args(argv)
    except SystemExit:  # argparse's way of saying the line is wrong
        window.show_notice(NoticeLevel.WARNING, lambda texts: texts.tr("second_launch_bad_arguments", argv=" ".join(argv)))
        return
    prompt = getattr(args, "prompt", None)
    if prompt and not window.send_text(prompt):
        window.input.setPlainText(prompt)  # a turn is running: the user sends it when it ends
    ignored = [f"--{name.replace('_', '-')}" for name in STARTUP_ONLY if getattr(args, name, None) is not None]
    if ignored:
        window.show_notice(NoticeLevel.WARNING, lambda texts: texts.tr("second_launch_ignored", options=", ".join(ignored)))


async def serve(window: MainWindow, args: argparse.Namespace) -> int:
    """Serve the shown ``window`` until it closes (build the services,
    attach them, wait, stop the turn, close the services); the exit status."""
    import asyncio

    from desktop_agent.ui.shell import runtime

    closed = asyncio.Event()
    window.closed.connect(closed.set)
    if not window.isVisible():  # closed while the loop was starting
        closed.set()
    remove_signal_handlers = runtime.close_on_stop_signals(window)
    try:
        await runtime.warm_imports("desktop_agent.services")
        services = await _build_services(args)
        if services is None:
            window.close()
            return EXIT_CONFIG
        # Always there (speech can be switched on later in Settings), made
        # at the first clip: QtMultimedia stays unloaded until then.
        sink = deferred_sink(services, window)
        try:
            if closed.is_set():
                return EXIT_OK
            # Not awaited: the window is usable while the servers start, and
            # the status bar follows each one. Started before
            # attaching, so a message held until now knows what is starting.
            services.listener = _WindowListener(window)
            services.start_mcp_in_background()
            window.attach(window_deps(services, sink))
            await runtime.warm_imports(*runtime.lazy_imports(services.llm.is_demo), optional=True)
            # The Markdown parser at the first key typed or message sent, not at idle.
            runtime.warm_on_first_use((window.input.textChanged, window.sending), *runtime.FIRST_USE_IMPORTS)
            runtime.settle_memory()
            # After the turn's last paint, not inside it.
            window.turn_finished.connect(lambda _status: runtime.settle_memory_soon())
            runtime.schedule_exit(
                window, getattr(args, "screenshot", None), getattr(args, "quit_after_ms", None)
            )
            await closed.wait()
            await window.shutdown()  # the conversation is saved there
            return EXIT_OK
        finally:
            if sink is not None:
                sink.close()
            await services.aclose()
    finally:
        remove_signal_handlers()


async def _build_services(args: argparse.Namespace) -> Services | None:
    """The services from the command line and the settings; None (and one
    line on stderr) for a bad configuration."""
    from desktop_agent.mcp_engine import McpConfigError
    from desktop_agent.services import LLMError, build_services
    from desktop_agent.storage.settings import SettingsError

    mcp_config = getattr(args, "mcp_config", None)
    try:
        return await build_services(
            base_url=getattr(args, "base_url", None),
            model=getattr(args, "model", None),
            api_key=getattr(args, "api_key", None),
            mcp_config=Path(mcp_config) if mcp_config else None,
            tts=getattr(args, "tts", None),
            tts_voice=getattr(args, "tts_voice", None),
            max_steps=getattr(args, "max_steps", None),
            approval_timeout_s=getattr(args, "approval_timeout", None),
            max_tokens=getattr(args, "max_tokens", None),
            request_timeout_s=getattr(args, "request_timeout", None),
            skills=getattr(args, "skills", None),
            keep_conversations=True,
            start_mcp=False,  # started in the background once the window is attached
        )
    except (LLMError, McpConfigError, SettingsError, ValueError) as exc:
        print(f"desktop-agent: error: {exc}", file=sys.stderr)
        return None


def window_deps(services: Services, sink: AudioSink | None) -> WindowDeps:
    """What the window gets from the services: the latest conversation, the
    settings and the one way to apply them, the speaker, the key store."""
    import asyncio

    from desktop_agent.conversation_library import ConversationLibrary
    from desktop_agent.hooks_engine import user_hooks_dir
    from desktop_agent.mcp_engine.servers_file import resolve_path
    from desktop_agent.services.model import StoredKey
    from desktop_agent.skills_engine import user_skills_dir
    from desktop_agent.storage import secrets
    from desktop_agent.ui.chat.engine_mentions import EngineMentions
    from desktop_agent.ui.voice import audio_devices
    from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone
    from desktop_agent.voice.downloads import ModelDownloads
    from desktop_agent.voice.stt.models import default_store
    from desktop_agent.voice.vad import WebRtcVad

    # Opened at the first press, the devices looked at when the mic button is
    # reached (ui/voice/device_glue.py); the setting's device, read at every press.
    audio_input = DeferredMicrophone(audio_devices.shared(), lambda: services.settings.audio_input_id)
    recognizer, answer_recognizer, speech_note = speech_recognizers(services.settings, services.read_key)
    if sink is not None:  # what it plays is known to the microphone's echo gate (core/voice_output.py)
        from desktop_agent.core.voice_output import OutputTap

        sink = OutputTap(sink)

    async def say(text: str) -> None:
        """The spoken approval question, through the same engine and speaker
        as replies (the queue is held by the approval, so the speaker is free)."""
        tts = services.tts
        if tts is not None and sink is not None:
            speech = await tts.synthesize(text)
            await sink.play(speech.audio, speech.mime)

    releasing: set[asyncio.Task[None]] = set()

    def release(old: Conversation) -> None:
        # The old conversation's per-conversation MCP servers are reaped in
        # the background; services.aclose() reaps whatever is left.
        task = asyncio.ensure_future(services.close_conversation(old.conversation_id))
        releasing.add(task)
        task.add_done_callback(releasing.discard)

    def new_conversation(old: Conversation) -> Conversation:
        release(old)
        return services.new_conversation()

    library = (
        ConversationLibrary(services.conversations, lambda conversation_id: services.resume_conversation(conversation_id))
        if services.conversations is not None else None
    )

    def open_conversation(old: Conversation, conversation_id: str) -> Conversation | None:
        # Switching from the sidebar: the old one is released as for New.
        opened = library.open(conversation_id) if library is not None else None
        if opened is not None:
            release(old)
        return opened

    def mcp_statuses() -> Iterable[ServerStatus]:
        # Through services.mcp: Settings → Tools replaces the engine.
        return services.mcp.statuses() if services.mcp is not None else []

    async def mcp_sign_in(name: str) -> str | None:
        return await services.mcp.sign_in(name) if services.mcp is not None else None

    async def mcp_sign_out(name: str) -> None:
        if services.mcp is not None:
            await services.mcp.sign_out(name)

    def open_in_browser(url: str) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        if not QDesktopServices.openUrl(QUrl(url)):  # no browser: the address where the user can copy it
            print(f"Open this address in a browser to sign in:\n  {url}", file=sys.stderr, flush=True)

    def mcp_logs(name: str) -> Sequence[LogLine]:
        return services.mcp.server_logs.lines(name) if services.mcp is not None else ()

    async def mcp_read_resource(server: str, uri: str) -> ResourceContent:
        if services.mcp is None:
            raise RuntimeError("no MCP servers are running")
        return await services.mcp.read_resource(server, uri)

    if services.mcp is not None:  # a sign-in's consent page opens in the user's browser
        services.mcp.oauth.open_url = lambda _server, url: open_in_browser(url)
    mcp = McpFeature(
        mcp_statuses, retry=services.retry_mcp, before_turn=services.before_turn, reload=services.reload_mcp,
        expand=services.expand_message,
        servers_file=lambda: services.mcp_config_override or resolve_path(services.settings.mcp_config_path),
        mentions=EngineMentions(lambda: services.mcp),
        sign_ins=lambda: services.mcp.oauth.states() if services.mcp is not None else {},
        sign_in=mcp_sign_in, sign_out=mcp_sign_out,
        logs=mcp_logs, read_resource=mcp_read_resource,
    ) if services.mcp is not None else None
    voice = VoiceFeature(
        audio_input, recognizer, answer_recognizer, vad=WebRtcVad, note=speech_note, say=say,
        make_recognizers=lambda settings: speech_recognizers(settings, services.read_key),
        model_downloads=ModelDownloads(default_store()),
    )
    return WindowDeps(
        conversation=services.resume_conversation(),
        forms=services.forms,
        settings_store=services.settings_store,
        settings=services.settings,
        model_name=services.llm.model,
        is_demo=services.llm.is_demo,
        demo_notice=services.demo_notice,
        mcp=mcp,
        sink=sink,
        key=StoredKey(),
        # No speaker: said once, with the start-up warnings (the reason is in the log).
        warnings=(
            *services.startup_warnings,
            *(() if sink is not None else (no_audio_output,)),
        ),
        settings_feature=SettingsFeature(
            services.apply_settings, secrets.set_api_key,
            preview_voice=voice_preview(sink), on_opened=_warm_openai_once(),
        ),
        keeper=ConversationKeeper(new_conversation, services.save_conversation),
        conversations=ConversationsFeature(library, open_conversation) if library is not None else None,
        tool_facts=services.tool_facts,
        skills=services.skills.infos if services.skills is not None else (),
        skills_folder=str(user_skills_dir()),
        hooks=services.hooks,
        hooks_folder=str(user_hooks_dir()),
        voice=voice,
    )


def _warm_openai_once() -> Callable[[], None]:
    """For the Settings dialog: the demo model has not imported the openai
    SDK (~50 MiB of an idle window), so import it in a worker thread while the user types
    an endpoint, and applying one does not hold the window (~2 s here). Once."""
    import asyncio

    from desktop_agent.ui.shell import runtime

    started: list[asyncio.Task[None]] = []

    def warm() -> None:
        if not started:
            started.append(asyncio.ensure_future(runtime.warm_imports(*runtime.OPENAI_IMPORTS, optional=True)))

    return warm


class _WindowListener:
    """What the running services say, in the window: notices in the notice
    line above the input, not the conversation (in the window's language; the
    English line and a speech notice's reason are in the log), statuses in
    the status bar."""

    def __init__(self, window: MainWindow) -> None:
        self._window = window

    def notice(self, text: str) -> None:
        self._window.notices.post(text)  # a Notice is worded in the window's language

    def speech_notice(self, kind: SpeechNotice) -> None:
        # The kind is the UI text's key; the notice line shows it once (dismissible), not the conversation.
        self._window.notices.post(lambda texts: texts.tr(kind))

    def wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        """Persist the wire profile through the window's one settings path,
        so the window's own copy of the settings keeps it too (a later save
        of another setting would otherwise drop it)."""
        controller = self._window.controller
        if controller is not None:
            controller.save_settings(controller.settings.with_wire_profile(endpoint, profile.name))

    def mcp_status(self, status: ServerStatus) -> None:
        self._window.refresh_status()
