"""The window's life on the qasync loop, after it is shown: build the
services (heavy imports in a worker thread), attach them, wait for the
window to close, stop the turn, close the services.

Split from ``app.py`` so that module stays light: nothing here (asyncio,
qasync, the core, openai, mcp) is imported before the first window is on
screen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer

from desktop_agent.ui.main_window import MainWindow
from desktop_agent.ui.window_deps import WindowDeps

log = logging.getLogger(__name__)

EXIT_OK, EXIT_CONFIG = 0, 2
SCREENSHOT_DELAY_MS = 800


async def run_window(window: MainWindow, args: argparse.Namespace) -> int:
    """Serve the shown ``window`` until it closes; the exit status."""
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    if not window.isVisible():  # closed while the loop was starting
        closed.set()
    remove_sigint = _close_on_sigint(window)
    try:
        return await _run(window, closed, args)
    finally:
        remove_sigint()


async def warm_imports(*modules: str, optional: bool = False) -> None:
    """Import heavy modules in a worker thread, so the window keeps painting
    meanwhile (importing openai and mcp takes ~2 s here); the import lock
    makes a later import on the loop just a lookup. ``optional``: a module
    that is not there (another SDK version) is skipped."""
    for name in modules:
        try:
            await asyncio.to_thread(importlib.import_module, name)
        except ImportError:
            if not optional:
                raise
            log.debug("no module %s to warm up", name)


def settle_memory() -> None:
    """Collect now, then freeze what survives (``gc.freeze``), so the
    cyclic GC's full collections no longer walk the whole conversation's
    widgets while a reply streams (a full collection took 35–75 ms in
    benchmarks/bench_ui.py). Run at idle moments: after start-up and after
    each turn."""
    gc.collect()
    gc.freeze()


LAZY_IMPORTS = (
    "openai.resources.chat.chat",
    "openai.resources.chat.completions",
    "openai.lib._chat_completion_resources",
    "openai.lib.streaming.chat",
    "openai.pagination",
)
"""What the openai SDK imports on the first request (~250 ms of a frozen
window at the user's first message, measured by benchmarks/bench_ui.py)."""


async def _run(window: MainWindow, closed: asyncio.Event, args: argparse.Namespace) -> int:
    await warm_imports("desktop_agent.services")
    from desktop_agent.mcp_engine import McpConfigError
    from desktop_agent.services import LLMError, build_services
    from desktop_agent.storage.settings import SettingsError

    mcp_config = getattr(args, "mcp_config", None)
    try:
        services = await build_services(
            base_url=getattr(args, "base_url", None),
            model=getattr(args, "model", None),
            api_key=getattr(args, "api_key", None),
            mcp_config=Path(mcp_config) if mcp_config else None,
            tts=getattr(args, "tts", None),
            max_steps=getattr(args, "max_steps", None),
            approval_timeout_s=getattr(args, "approval_timeout", None),
            keep_conversations=True,
        )
    except (LLMError, McpConfigError, SettingsError, ValueError) as exc:
        print(f"desktop-agent: error: {exc}", file=sys.stderr)
        window.close()
        return EXIT_CONFIG
    # Always made: speech can be switched on later in Settings.
    sink = _make_sink(services)
    try:
        if closed.is_set():
            return EXIT_OK
        window.attach(_deps(services, sink))
        services.on_notice = lambda text: _show_notice(window, text)
        await warm_imports(*LAZY_IMPORTS, optional=True)
        settle_memory()
        # After the turn's last paint, not inside it.
        window.turn_finished.connect(lambda _status: QTimer.singleShot(0, settle_memory))
        window.turn_finished.connect(
            lambda _status: services.save_conversation(window.deps.conversation) if window.deps else None
        )
        _schedule_exit(window, getattr(args, "screenshot", None), getattr(args, "quit_after_ms", None))
        await closed.wait()
        await window.shutdown()
        if window.deps is not None:
            services.save_conversation(window.deps.conversation)
        return EXIT_OK
    finally:
        if sink is not None:
            sink.close()
        await services.aclose()


def _show_notice(window: MainWindow, text: str) -> None:
    """A notice from the services while running (a TTS fallback)."""
    window.chat.add_notice("warning", text)


def _deps(services: Any, sink: Any) -> WindowDeps:
    from desktop_agent.storage import secrets

    def settings_saved(settings: Any) -> None:
        services.settings = settings

    current = [services.resume_conversation()]
    closing: set[asyncio.Task[None]] = set()

    def new_conversation() -> Any:
        # The old conversation's per-conversation MCP servers are reaped in
        # the background; services.aclose() reaps whatever is left.
        task = asyncio.ensure_future(services.close_conversation(current[0].conversation_id))
        closing.add(task)
        task.add_done_callback(closing.discard)
        current[0] = services.new_conversation()
        return current[0]

    return WindowDeps(
        conversation=current[0],
        forms=services.forms,
        settings_store=services.settings_store,
        settings=services.settings,
        model_name=services.llm.model,
        is_demo=services.llm.is_demo,
        demo_notice=services.demo_notice,
        mcp_statuses=services.mcp.statuses if services.mcp is not None else None,
        sink=sink,
        get_api_key=secrets.get_api_key,
        set_api_key=secrets.set_api_key,
        key_note=secrets.storage_note(),
        warnings=tuple(services.startup_warnings),
        on_settings_saved=settings_saved,
        apply_settings=services.apply_settings,
        new_conversation=new_conversation,
        save_conversation=services.save_conversation,
    )


def _make_sink(services: Any) -> Any:
    """The Qt speaker, or None when QtMultimedia is unusable here."""
    try:
        from desktop_agent.ui.audio_sink import QtAudioSink

        settings = services.settings
        return QtAudioSink(volume=settings.volume, muted=settings.muted)
    except Exception:  # no QtMultimedia backend: text still shows
        log.exception("no audio output; replies will not be spoken")
        return None


def _schedule_exit(window: MainWindow, screenshot: str | None, quit_after_ms: int | None) -> None:
    def shoot() -> None:
        if screenshot:
            path = Path(screenshot)
            path.parent.mkdir(parents=True, exist_ok=True)
            if not window.grab().save(str(path)):
                log.error("could not save the screenshot to %s", path)

    if quit_after_ms is not None:

        def finish() -> None:
            shoot()
            window.close()

        QTimer.singleShot(max(0, quit_after_ms), finish)
    elif screenshot:
        QTimer.singleShot(SCREENSHOT_DELAY_MS, shoot)


def _close_on_sigint(window: MainWindow) -> Callable[[], None]:
    """Ctrl+C in the terminal closes the window like the close button."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, window.close)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None

    def remove() -> None:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGINT)

    return remove
