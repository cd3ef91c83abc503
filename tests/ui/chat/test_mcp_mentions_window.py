"""The window sends a message with MCP mentions (contracts §10) against
the real server-everything over stdio: the bubble shows the typed words and
a chip per prompt and resource, the model gets the expansion, a restored
conversation shows the chips again; a message that cannot be expanded is
not sent, says why in one line, and its text comes back to the input.
Screenshots of a sent message with chips in English and Chinese."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.mentions import Attachment
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.mcp_engine.expansion import expand_message
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.testing.everything import everything_stdio
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply
from desktop_agent.testing.window_rig import SignalLog, run_on_qasync
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.window_deps import WindowDeps

pytestmark = pytest.mark.integration

SHOTS = Path("/work/shots25/p")
SHOTS27 = Path("/work/shots27/tidy")
FEATURES = "demo://resource/static/document/features.md"
TYPED = f"/mcp__ev__args-prompt city=Paris @ev:{FEATURES}"
CHIPS = (Attachment("prompt", "ev", "args-prompt"), Attachment("resource", "ev", FEATURES))


@dataclass
class Open:
    window: MainWindow
    server: ScriptedLLMServer
    conversation: Conversation
    engine: McpEngine
    turns: SignalLog


def _deps(conversation: Conversation, engine: McpEngine, forms: FormManager) -> WindowDeps:
    store = SettingsStore()

    async def expand(text: str, conversation_id: str | None) -> Any:
        return await expand_message(engine, text, conversation_id=conversation_id)

    feature = McpFeature(engine.statuses, expand=expand)
    return WindowDeps(conversation, forms, store, store.load().settings, model_name="scripted", mcp=feature)


@asynccontextmanager
async def _window(texts: Texts, engine: McpEngine, conversation: Conversation | None = None) -> AsyncIterator[Open]:
    replies = [text_reply("Sure.<no_tool>"), text_reply("Paris is mild; the features file lists tools.")]
    async with ScriptedLLMServer(replies) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key", model="scripted")
        forms = FormManager()
        if conversation is None:
            conversation = Conversation(AgentClient(provider, ToolRouter([])))
        window = MainWindow(tray=False, texts=texts)
        window.attach(_deps(conversation, engine, forms))
        window.resize(860, 620)
        window.show()
        opened = Open(window, server, conversation, engine, SignalLog(window.turn_finished))
        try:
            yield opened
        finally:
            window.close()
            await window.shutdown()
            await provider.aclose()
            window.deleteLater()


def _user_bubbles(window: MainWindow) -> list[MessageBubble]:
    return [w for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "user"]


def _laid_out(window: MainWindow) -> bool:
    """Every message in the chat is as tall as its text needs (the layout
    settles over a few passes after the last segment)."""
    for widget in window.chat.items():
        for part in (widget, widget.parentWidget() or widget):  # the message and the slot that holds it
            need = part.heightForWidth(part.width()) if part.hasHeightForWidth() else part.sizeHint().height()
            if part.height() <= 0 or part.height() < need:
                return False
    return True


async def _shot(window: MainWindow, tmp_path: Path, name: str) -> None:
    """Save a screenshot once the layout has settled (polled on the running
    loop, bounded: a nested Qt wait would spin a second loop)."""
    async with asyncio.timeout(10):
        while not _laid_out(window):
            await asyncio.sleep(0.02)
    path = tmp_path / name
    assert window.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_a_sent_message_shows_its_chips_sends_the_expansion_and_restores_them(
    qapp: QApplication, tmp_path: Path, texts: Texts, lang: str
) -> None:
    async def main() -> None:
        engine = McpEngine(McpConfig(servers=(everything_stdio("ev"),)))
        try:
            assert await engine.start() == []
            async with _window(texts, engine) as live:
                live.window.input.setPlainText(TYPED)
                live.window.input.submitted.emit()
                assert live.window.input.toPlainText() == ""  # sent: the box is free at once
                assert await live.turns.wait_for(timeout=30) == ("completed",)

                (bubble,) = _user_bubbles(live.window)
                assert bubble.text() == TYPED
                assert bubble.chips is not None and bubble.chips.attachments == CHIPS
                chips = [c.text() for c in bubble.chips.findChildren(QLabel)]
                if lang == "en":
                    assert chips == ["Prompt · ev · args-prompt", "Resource · ev · features.md"]
                else:
                    assert chips == ["提示词 · ev · args-prompt", "资源 · ev · features.md"]
                first = next(m for m in live.server.requests[0]["messages"] if m["role"] == "user")
                assert str(first["content"]).startswith(f"What's weather in Paris?\n\n```{FEATURES}\n#")
                await _shot(live.window, tmp_path, f"mcp_chips_{lang}.png")
                history, events = list(live.conversation.history), list(live.conversation.events)

            restored = Conversation(
                AgentClient(live.conversation.agent.llm, ToolRouter([])), history=history, events=events
            )
            async with _window(texts, engine, restored) as again:
                (shown,) = _user_bubbles(again.window)
                assert shown.text() == TYPED
                assert shown.chips is not None and shown.chips.attachments == CHIPS
        finally:
            await engine.aclose()

    run_on_qasync(main, timeout=90)


NOT_SENT = {
    "en": "Not sent (your message is back in the box): /mcp__ev__args-prompt: missing city=…",
    "zh": "未发送（消息已放回输入框）：/mcp__ev__args-prompt：缺少参数 city=…",  # the engine named its UI text
}


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_a_message_that_cannot_be_expanded_is_not_sent_and_comes_back_to_the_input(
    qapp: QApplication, tmp_path: Path, texts: Texts, lang: str
) -> None:
    async def main() -> None:
        engine = McpEngine(McpConfig(servers=(everything_stdio("ev"),)))
        try:
            await engine.start()
            async with _window(texts, engine) as live:
                live.window.input.setPlainText("draft already typed")
                live.window.send_text("/mcp__ev__args-prompt state=NY")
                assert await live.turns.wait_for(timeout=30) == ("error",)

                assert live.server.requests == []
                assert _user_bubbles(live.window) == []
                assert live.window.input.toPlainText() == "/mcp__ev__args-prompt state=NY\ndraft already typed"
                notices = [w for w in live.window.chat.items() if isinstance(w, MessageBubble) and w.role == "error"]
                assert len(notices) == 1
                shown = QTextDocument()
                shown.setMarkdown(notices[0].text())  # as the notice's Markdown label draws it
                assert shown.toPlainText() == NOT_SENT[lang]
                assert live.conversation.history == [] and not list(live.conversation.events)
                await _shot(live.window, tmp_path, f"mcp_not_sent_{lang}.png")
        finally:
            await engine.aclose()

    run_on_qasync(main, timeout=90)


MISSING = "demo://resource/static/document/nope.md"


def test_a_resource_the_server_cannot_read_is_said_in_chinese_with_the_servers_line_as_detail(
    qapp: QApplication, tmp_path: Path
) -> None:
    async def main() -> None:
        engine = McpEngine(McpConfig(servers=(everything_stdio("ev"),)))
        try:
            await engine.start()
            async with _window(CHINESE, engine) as live:
                typed = f"看看 @ev:{MISSING}"
                live.window.send_text(typed)
                assert await live.turns.wait_for(timeout=30) == ("error",)

                assert live.server.requests == [] and live.window.input.toPlainText() == typed
                (notice,) = [w for w in live.window.chat.items() if isinstance(w, MessageBubble) and w.role == "error"]
                shown = QTextDocument()
                shown.setMarkdown(notice.text())
                said, detail = shown.toPlainText().split("\n", 1)
                assert said == f"未发送（消息已放回输入框）：MCP 服务器 ev 上没有资源 {MISSING}"
                assert detail.startswith(f'详情: mcp server "ev": resource "{MISSING}" failed: ')
                await _shot(live.window, tmp_path, "mcp_resource_not_read_zh.png")
                SHOTS27.mkdir(parents=True, exist_ok=True)
                shutil.copy(tmp_path / "mcp_resource_not_read_zh.png", SHOTS27 / "mcp_resource_not_read_zh.png")
        finally:
            await engine.aclose()

    run_on_qasync(main, timeout=90)


async def test_the_composed_window_expands_through_the_services_engine(qtbot: QtBot, tmp_path: Path) -> None:
    """The app's own wiring (``app.window_deps``): the window's expansion is
    ``Services.expand_message`` over the engine the services run."""
    from desktop_agent.app import window_deps
    from desktop_agent.services import build_services

    config = everything_stdio("ev")
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"ev": {"command": config.command, "args": list(config.args)}}}))
    replies = [text_reply("Sure.<no_tool>"), text_reply("Done.")]
    async with ScriptedLLMServer(replies) as server:
        services = await build_services(
            base_url=server.base_url, model="scripted", api_key="sk-test", mcp_config=path, tts="none"
        )
        try:
            window = MainWindow(tray=False)
            qtbot.add_widget(window)
            window.attach(window_deps(services, None))
            window.show()
            turns = SignalLog(window.turn_finished)
            window.input.setPlainText("/mcp__ev__simple-prompt")
            window.input.submitted.emit()
            assert await turns.wait_for(timeout=30) == ("completed",)
            (bubble,) = _user_bubbles(window)
            assert bubble.chips is not None
            assert bubble.chips.attachments == (Attachment("prompt", "ev", "simple-prompt"),)
            first = next(m for m in server.requests[0]["messages"] if m["role"] == "user")
            assert str(first["content"]).startswith("This is a simple prompt without arguments.")
            await window.shutdown()
        finally:
            await services.aclose()
