"""Test and benchmark rig: the real window over a real conversation (real
OpenAIProvider, real built-in tools) talking to the scripted LLM server,
on the running qasync loop.

Shared by ``tests/integration/test_window_*.py``, the screenshot tests and
``benchmarks/bench_ui.py``, so they all drive the window the same way.
Waits are on Qt signals (:class:`SignalLog`), each one bounded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QApplication

import qasync  # isort: skip  (after PySide6: qasync picks the Qt binding already imported)

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager, FormQuestion
from desktop_agent.core.messages import (
    FormRequestMessage,
    ImageContent,
    TextMessage,
    ToolCallMessage,
    ToolCallState,
    ToolRejectedMessage,
)
from desktop_agent.core.timers import Timers
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.scripted_server import Script, ScriptedLLMServer
from desktop_agent.testing.tool_facts import ToolFactsTable
from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.tools import builtin_tools
from desktop_agent.tools.sub_agent import SubAgentTool
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.window_deps import WindowDeps
from desktop_agent.ui.voice.feature import VoiceFeature

if TYPE_CHECKING:
    from desktop_agent.mcp_engine import McpEngine
    from desktop_agent.ui.chat.chat_view import ChatView

T = TypeVar("T")


def run_on_qasync(main: Callable[[], Awaitable[T]], *, timeout: float = 60.0) -> T:
    """Run ``main()`` on a fresh qasync loop over the existing QApplication
    (what ``run_gui`` does), bounded by ``timeout``. For synchronous tests
    outside tests/ui, whose conftest has no qasync loop hook."""
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    # Closing the last window would quit Qt's loop and with it the qasync
    # loop, before the coroutine has cleaned up (run_gui does the same).
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)

    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await main()

    try:
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            return runner.run(bounded())
    finally:
        app.setQuitOnLastWindowClosed(quit_on_close)


# ------------------------------------------------------------ bus messages


def tool_item(
    state: ToolCallState,
    tool_call_id: str = "call_1",
    tool_name: str = "run_command",
    arguments: dict[str, Any] | None = None,
    images: tuple[ImageContent, ...] = (),
    *,
    task_id: str | None = None,
    result: str | None = None,
    is_error: bool | None = None,
) -> ToolCallMessage:
    """A ``tool_call`` message at ``state``."""
    if result is not None and is_error is None:
        is_error = False
    return ToolCallMessage(
        state, tool_call_id, tool_name, arguments, task_id=task_id, result=result,
        is_error=is_error, images=images,
    )


def form_item(
    tool_call_id: str, form_id: str, questions: list[dict[str, Any]], title: str | None = None
) -> FormRequestMessage:
    """A ``form_request`` message, as ask_user_question's hook makes it."""
    parsed = tuple(
        FormQuestion(
            str(q["id"]), str(q["question"]), q.get("type", "text"),
            tuple(q.get("options") or ()), bool(q.get("required", True)),
        )
        for q in questions
    )
    return FormRequestMessage(tool_call_id, form_id, parsed, title)


def text_item(
    text: str, segment_id: int = 1, *, raw_text: str | None = None, voice: bool = False
) -> TextMessage:
    """A ``text`` message showing ``text`` (``raw_text``: the stream's slice
    with its tags; ``text`` itself when not given)."""
    return TextMessage(segment_id, text, text if raw_text is None else raw_text, voice)


def rejected_item(
    reason: str,
    tool_call_id: str = "call_1",
    tool_name: str = "run_command",
    arguments: dict[str, Any] | None = None,
    *,
    partial_result: dict[str, Any] | None = None,
) -> ToolRejectedMessage:
    """A ``tool_rejected`` message: the call ended without its result."""
    return ToolRejectedMessage(tool_call_id, tool_name, arguments, reason, partial_result)


def offline_deps(forms: FormManager | None = None, *, settings: Settings | None = None) -> WindowDeps:
    """Deps over the offline demo model, for widget tests and screenshots
    that feed the view directly and never run a turn."""
    forms = forms or FormManager()
    store = SettingsStore()
    conversation = Conversation(AgentClient(DemoModel(), ToolRouter(builtin_tools(forms))))
    return WindowDeps(
        conversation,
        forms,
        store,
        settings or store.load().settings,
        model_name="demo",
        is_demo=True,
    )


def chat_laid_out(chat: ChatView) -> bool:
    """Every message in ``chat`` is as tall as its text needs, and so is
    the slot that holds it (a message's slot takes its height a layout pass
    after the message changed). A slot not fitted yet has Qt's default
    640x480 and a size hint of 0: not laid out, however tall."""
    for widget in chat.items():
        slot = widget.parentWidget() or widget
        need = widget.heightForWidth(widget.width()) if widget.hasHeightForWidth() else widget.sizeHint().height()
        if widget.height() <= 0 or widget.height() < need:
            return False
        if slot is not widget and (slot.height() <= 0 or slot.height() != slot.sizeHint().height()):
            return False
    return True


def settle(*chats: ChatView, passes: int = 20) -> bool:
    """Process posted events until every chat is laid out (at most
    ``passes`` times; for tests outside a running loop): True when it is."""
    for _ in range(passes):
        if all(chat_laid_out(chat) for chat in chats):
            return True
        QApplication.processEvents()
    return all(chat_laid_out(chat) for chat in chats)


async def laid_out(window: MainWindow, timeout: float = 10.0) -> None:
    """Wait until the chat's layout has settled (it does over a few passes
    after a change), polled on the running loop: a nested Qt wait would
    spin a second loop. For screenshots."""
    async with asyncio.timeout(timeout):
        while not chat_laid_out(window.chat):
            await asyncio.sleep(0.02)


class SignalLog:
    """Records every emission of a Qt signal; :meth:`wait_for` returns the
    first not-yet-taken emission that matches, waiting (bounded) if needed.
    Emissions before the wait are not lost."""

    def __init__(self, signal: SignalInstance) -> None:
        self.events: list[tuple[Any, ...]] = []
        self._cursor = 0
        self._changed = asyncio.Event()
        signal.connect(self._record)

    def _record(self, *args: Any) -> None:
        self.events.append(args)
        self._changed.set()

    async def wait_for(
        self, predicate: Callable[..., bool] = lambda *_a: True, timeout: float = 10.0
    ) -> tuple[Any, ...]:
        async with asyncio.timeout(timeout):
            while True:
                for index in range(self._cursor, len(self.events)):
                    if predicate(*self.events[index]):
                        self._cursor = index + 1
                        return self.events[index]
                self._changed.clear()
                await self._changed.wait()


@dataclass
class WindowRig:
    window: MainWindow
    server: ScriptedLLMServer
    conversation: Conversation
    forms: FormManager
    store: SettingsStore
    turns: SignalLog = field(init=False)
    cards: SignalLog = field(init=False)
    waiting: SignalLog = field(init=False)

    def __post_init__(self) -> None:
        self.turns = SignalLog(self.window.turn_finished)
        self.cards = SignalLog(self.window.card_changed)
        self.waiting = SignalLog(self.window.waiting_for_user)

    async def turn(self, text: str, timeout: float = 20.0) -> str:
        """Send ``text`` and wait for the turn to finish; its status."""
        if not self.window.send_text(text):
            raise RuntimeError(f"the window did not accept {text!r}")
        (status,) = await self.turns.wait_for(timeout=timeout)
        return str(status)

    async def card_phase(self, phase: str, tool_call_id: str | None = None, timeout: float = 10.0) -> str:
        """Wait until some card (or the given one) reaches ``phase``; its id."""
        found = await self.cards.wait_for(
            lambda cid, ph: ph == phase and (tool_call_id is None or cid == tool_call_id), timeout
        )
        return str(found[0])


def build_window(
    conversation: Conversation,
    forms: FormManager,
    *,
    store: SettingsStore | None = None,
    model_name: str = "scripted",
    interrupt_fallback_ms: int | None = None,
    voice: Mapping[str, Any] | None = None,
    router: ToolRouter | None = None,
    timers: Timers | None = None,
    texts: Texts = ENGLISH,
    engine: McpEngine | None = None,
) -> tuple[MainWindow, SettingsStore]:
    """``voice``: speech input (the :class:`VoiceFeature` fields:
    ``audio_input``, ``recognizer``, ``vad``, ...) and the window's other
    deps that go with it (``sink``); ``router``: the tools' annotations come
    from it, as the app's do (``Services.tool_facts``); ``timers``: the
    window's own timers (the interrupt fallback) run on it (a ``FakeClock``);
    ``texts``: the window's language from the start; ``engine``: the MCP
    engine behind ``router``'s MCP tools, asked as the app asks its own
    (``RoutedToolFacts``: which server a tool is from, whether a saved
    always-allow name is certain)."""
    store = store or SettingsStore()
    settings = store.load().settings
    kwargs: dict[str, Any] = {"tray": False, "timers": timers, "texts": texts}
    if interrupt_fallback_ms is not None:
        kwargs["interrupt_fallback_ms"] = interrupt_fallback_ms
    window = MainWindow(**kwargs)
    extra: dict[str, Any] = dict(voice or {})
    feature = {name: extra.pop(name) for name in [f.name for f in fields(VoiceFeature)] if name in extra}
    if feature:
        extra["voice"] = VoiceFeature(**feature)
    if engine is not None:
        if router is None:
            raise ValueError("build_window(engine=...) needs the router its tools go through")
        from desktop_agent.services.tool_facts import RoutedToolFacts  # loads the MCP SDK: only when asked

        extra["tool_facts"] = RoutedToolFacts(router, lambda: engine)
    elif router is not None:
        extra["tool_facts"] = ToolFactsTable(router=router)
    window.attach(WindowDeps(conversation, forms, store, settings, model_name=model_name, **extra))
    return window, store


@asynccontextmanager
async def scripted_window(
    script: Script,
    *,
    interrupt_fallback_ms: int | None = None,
    timers: Timers | None = None,
    approval_timeout_s: float | None = None,
    show: bool = True,
    sub_agent: bool = False,
    voice: Mapping[str, Any] | None = None,
    texts: Texts = ENGLISH,
    engine: McpEngine | None = None,
) -> AsyncIterator[WindowRig]:
    """The window attached to a fresh conversation over a scripted server,
    with the settings in ``DESKTOP_AGENT_HOME``. Closed (turn cancelled
    cleanly) on exit. ``sub_agent``: the router has the sub_agent tool too;
    ``texts``: the window's language; ``engine``: a started MCP engine
    whose tools the router has too (the caller starts and closes it)."""
    async with ScriptedLLMServer(script) as server:
        forms = FormManager()
        store = SettingsStore()
        settings = store.load().settings
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key", model="scripted")
        tools = builtin_tools(forms)
        delegate = SubAgentTool() if sub_agent else None
        router = ToolRouter([*tools, delegate] if delegate is not None else tools,
                            [engine.shared_source()] if engine is not None else [])
        if delegate is not None:
            delegate.bind(router)
        agent = AgentClient(provider, router, max_steps=settings.max_steps)
        conversation = Conversation(
            agent,
            approval_timeout_s=approval_timeout_s if approval_timeout_s is not None else settings.approval_timeout_s,
        )
        window, _ = build_window(
            conversation, forms, store=store, interrupt_fallback_ms=interrupt_fallback_ms, voice=voice, router=router,
            timers=timers, texts=texts, engine=engine,
        )
        if show:
            window.show()
        rig = WindowRig(window, server, conversation, forms, store)
        try:
            yield rig
        finally:
            window.close()
            await window.shutdown()
            forms.cancel_all()
            await provider.aclose()
            window.deleteLater()
