"""The window over a real conversation whose MCP tool (the real
server-everything's ``trigger-sampling-request``, stdio) asks the app's model
to answer (contracts §10): the request is a card inside the tool's card,
naming the server, its message and the limit; approved, the scripted model
answers it; rejected, the server hears the user declined and the turn goes
on; "always allow" for that server answers the next request without a card."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.one_shot import complete
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.sampling import DECLINED, SampledAnswer, SamplingRequest, sampling_hook
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.testing import everything
from desktop_agent.testing.scripted_server import Script, ScriptedLLMServer, text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, build_window, run_on_qasync
from desktop_agent.texts import Texts
from desktop_agent.tools import builtin_tools
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.system_message import SystemMessage

pytestmark = [pytest.mark.integration, pytest.mark.npm]

SHOTS = Path("/work/shots25/s")
TOOL = "trigger-sampling-request"
PLAN = text_reply("Asking the server.<need_tool>")
CALL = tool_reply(TOOL, {"prompt": "say hi", "maxTokens": 30})


@asynccontextmanager
async def sampling_window(script: Script, approval_timeout_s: float = 60) -> AsyncIterator[WindowRig]:
    """``scripted_window`` with server-everything's tools and the app's sampling answer."""
    async with ScriptedLLMServer(script) as server:
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key", model="scripted")

        async def answer(request: SamplingRequest) -> SampledAnswer:
            done = await complete(provider, request.llm_messages(), max_tokens=request.max_tokens)
            return SampledAnswer(done.text, done.model, done.stop_reason)

        engine = McpEngine(
            McpConfig(servers=(everything.everything_stdio("everything"),)),
            hooks=ClientHooks(sample=sampling_hook(answer)),
        )
        assert await engine.start() == []
        forms, store = FormManager(), SettingsStore()
        router = ToolRouter(builtin_tools(forms), [engine.shared_source()])
        conversation = Conversation(AgentClient(provider, router, max_steps=5), approval_timeout_s=approval_timeout_s)
        window, _ = build_window(conversation, forms, store=store, router=router)
        window.show()
        rig = WindowRig(window, server, conversation, forms, store)
        try:
            yield rig
        finally:
            window.close()
            await window.shutdown()
            forms.cancel_all()
            await engine.aclose()
            await provider.aclose()
            window.deleteLater()


async def next_card(rig: WindowRig) -> ToolCardWidget:
    kind, key = await rig.waiting.wait_for(timeout=30)
    assert kind == "approval"
    view = rig.window.view
    assert view is not None
    return view.cards[key]


def test_the_request_card_sits_in_the_tools_card_and_approved_the_model_answers(qapp: QApplication) -> None:
    script = [PLAN, CALL, text_reply("Hi from the model."), text_reply("The server heard hi.")]

    async def main() -> None:
        async with sampling_window(script) as rig:
            rig.window.send_text("ask the server")
            tool = await next_card(rig)
            tool.approve_button.click()
            request = await next_card(rig)

            assert tool.nested_cards() == [request]
            assert request.title.text() == "MCP server everything asks the model to answer"
            assert request.arguments.text().split("\n") == [
                f"User: Resource {TOOL} context: say hi", "", "At most 30 tokens",
            ]
            request.approve_button.click()
            assert await rig.turns.wait_for(timeout=30) == ("completed",)

            assert request.state.phase == "done" and request.state.result == "Hi from the model."
            assert tool.state.result is not None and '"text": "Hi from the model."' in tool.state.result
            assert rig.server.requests[2]["max_tokens"] == 30

    run_on_qasync(main, timeout=90)


def test_rejected_the_server_hears_the_user_declined_and_the_turn_goes_on(qapp: QApplication) -> None:
    script = [PLAN, CALL, text_reply("It was declined.")]

    async def main() -> None:
        async with sampling_window(script) as rig:
            rig.window.send_text("ask the server")
            (await next_card(rig)).approve_button.click()
            request = await next_card(rig)
            request.reject_button.click()
            assert await rig.turns.wait_for(timeout=30) == ("completed",)

            assert (request.state.phase, request.state.outcome) == ("rejected", "rejected")
            [tool] = [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]
            assert tool.state.result is not None and DECLINED in tool.state.result
            assert len(rig.server.requests) == 3  # no sampling request reached the model
            said = [w.text() for w in rig.window.chat.items() if isinstance(w, SystemMessage)]
            assert "Conversation interrupted" not in said  # only the request was refused

    run_on_qasync(main, timeout=90)


def test_always_allow_for_the_server_answers_its_next_request_without_a_card(qapp: QApplication) -> None:
    script = [
        PLAN, CALL, text_reply("First answer."), text_reply("Once."),
        PLAN, CALL, text_reply("Second answer."), text_reply("Twice."),
    ]

    async def main() -> None:
        async with sampling_window(script) as rig:
            rig.window.send_text("ask the server")
            (await next_card(rig)).approve_button.click()
            request = await next_card(rig)
            request.always.setChecked(True)
            request.approve_button.click()
            assert await rig.turns.wait_for(timeout=30) == ("completed",)
            assert "sampling:everything" in rig.store.load().settings.always_allow

            rig.window.send_text("ask again")
            (await next_card(rig)).approve_button.click()  # the tool still asks; its request does not
            assert await rig.turns.wait_for(timeout=30) == ("completed",)
            tools = [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]
            [second] = tools[-1].nested_cards()
            assert second.state.auto_approved and second.state.result == "Second answer."
            assert second.state.auto_by == "always_allow"

    run_on_qasync(main, timeout=90)


def test_an_unanswered_request_times_out_alone_and_the_turn_goes_on(qapp: QApplication) -> None:
    script = [PLAN, CALL, text_reply("Nobody answered it.")]

    async def main() -> None:
        async with sampling_window(script, approval_timeout_s=2.0) as rig:
            rig.window.send_text("ask the server")
            (await next_card(rig)).approve_button.click()  # the tool; its request is left unanswered
            assert await rig.turns.wait_for(timeout=30) == ("completed",)

            [tool] = [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]
            [request] = tool.nested_cards()
            assert (request.state.phase, request.state.outcome) == ("rejected", "timed_out")
            assert request.reason.text() == "No answer in 2 s — not run"
            assert tool.state.result is not None and DECLINED in tool.state.result

    run_on_qasync(main, timeout=90)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_picture_of_the_window_while_the_request_waits(qapp: QApplication, tmp_path: Path, language: str) -> None:
    texts = Texts(language)  # type: ignore[arg-type]
    script = [PLAN, CALL, text_reply("Hi."), text_reply("Done.")]

    async def main() -> None:
        async with sampling_window(script) as rig:
            rig.window.retranslate(texts)
            rig.window.resize(860, 640)
            rig.window.send_text("ask the server")
            (await next_card(rig)).approve_button.click()
            request = await next_card(rig)
            assert request.title.text() == texts.tr("card_sampling_approval", server="everything")
            assert request.arguments.text().endswith(texts.tr("card_sampling_limit", n=30))
            async with asyncio.timeout(10):  # the posted layout shows the whole card (no clipped picture)
                while request.visibleRegion().boundingRect().height() < request.height():
                    await asyncio.sleep(0.02)
            path = tmp_path / f"sampling_window_{language}.png"
            assert rig.window.grab().save(str(path))
            try:
                SHOTS.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, SHOTS / path.name)
            except OSError:
                pass
            request.approve_button.click()
            assert await rig.turns.wait_for(timeout=30) == ("completed",)

    run_on_qasync(main, timeout=90)
