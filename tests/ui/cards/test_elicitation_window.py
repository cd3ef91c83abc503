"""The real window asks the real server-everything's forms: the form comes
into the chat under the tool's card, names the server, and how the user
ends it is what the server hears (its answer is the tool result), over
stdio and streamable HTTP. Screenshots of the form and the URL consent in
both languages."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QLineEdit, QRadioButton

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.elicitation import Elicitation
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing import everything
from desktop_agent.testing.scripted_server import Script, text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, laid_out, scripted_window
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.turn_view import TurnView

pytestmark = [pytest.mark.integration, pytest.mark.npm, pytest.mark.usefixtures("keep_loop_on_close")]
SHOTS = Path("/work/shots25/e")
SHOTS27 = Path("/work/shots27/tidy")
ASK = "trigger-elicitation-request"
MESSAGE = "Please provide inputs for the following fields:"


def _script(tool: str, arguments: dict[str, str] | None = None) -> Script:
    return [text_reply("Let me ask.\n<need_tool>"), tool_reply(tool, arguments or {}), text_reply("Done.")]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with everything.run_everything("streamableHttp", "/mcp") as running:
        yield running.url


def _config(transport: str, http_url: str) -> ServerConfig:
    if transport == "stdio":
        return everything.everything_stdio("everything")
    return ServerConfig(name="everything", transport="http", url=http_url)


@asynccontextmanager
async def _window(script: Script, config: ServerConfig, texts: Texts = ENGLISH) -> AsyncIterator[WindowRig]:
    """The window over the scripted model with server-everything's tools,
    its forms asked through the window's FormManager."""
    async with scripted_window(script, texts=texts) as rig:
        rig.window.resize(860, 900)
        engine = McpEngine(McpConfig(servers=(config,)))
        engine.hooks.elicit = Elicitation(rig.forms)
        try:
            assert await engine.start() == []
            rig.conversation.agent.router.add_source(engine.shared_source())
            yield rig
        finally:
            await engine.aclose()


def _view(rig: WindowRig) -> TurnView:
    view = rig.window.view
    assert view is not None, "no turn is running"
    return view


async def _approve_then_form(rig: WindowRig, text: str = "ask me") -> FormWidget:
    """Send ``text``, approve the server's tool, and return the form it asks."""
    assert rig.window.send_text(text)
    kind, call_id = await rig.waiting.wait_for(timeout=20)

    assert kind == "approval"
    _view(rig).cards[call_id].approve_button.click()
    kind, form_id = await rig.waiting.wait_for(timeout=20)
    assert kind == "form"
    return _view(rig).forms[form_id]


def _tool_result(rig: WindowRig) -> str:
    return str(next(m for m in history_json(rig.conversation.history) if m["role"] == "tool")["content"])


def _line(form: FormWidget, question_id: str) -> QLineEdit:
    (q,) = [q for q in form.questions if q.id == question_id]
    assert q.line is not None
    return q.line


def _shoot(form: FormWidget, rig: WindowRig, tmp_path: Path, name: str) -> None:
    """The form (and the window around it) as PNGs, in the test's folder and the shots folder."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for what, widget in ((name, form), (f"{name}_window", rig.window)):
        path = tmp_path / f"{what}.png"
        assert widget.grab().save(str(path))
        shutil.copy(path, SHOTS / path.name)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_filled_form_reaches_the_server_and_its_answer_is_the_tool_result(
    transport: str, http_url: str
) -> None:
    async with _window(_script(ASK), _config(transport, http_url)) as rig:
        form = await _approve_then_form(rig)

        assert form.heading.text() == "Server “everything” asks:"
        assert form.message is not None and form.message.text() == MESSAGE
        assert form.decline_button.isVisibleTo(form)
        items = rig.window.chat.items()
        assert isinstance(items[items.index(form) - 1], ToolCardWidget)  # under its call's card
        assert _line(form, "integer").text() == "42"  # the schema's default
        _line(form, "integer").setText("seven")
        form.submit_button.click()  # the required name is empty: said first
        assert form.error.text() == "Please answer “String”" and form.ended is None
        _line(form, "name").setText("Ann Lee")
        form.submit_button.click()
        assert form.error.text() == "“Integer”: expects a whole number, not 'seven'" and form.ended is None
        _line(form, "integer").setText("7")
        (check,) = [q.flag for q in form.questions if q.id == "check" and q.flag is not None]
        check.setChecked(True)
        form.submit_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)

        assert form.ended == "submitted"
        result = _tool_result(rig)
        assert "User provided the requested information" in result
        assert "- Name: Ann Lee" in result and "- Favorite Integer: 7" in result
        assert '"integer": 7' in result and '"check": true' in result and '"number": 3.14' in result


@pytest.mark.parametrize(("button", "ended", "said"), [
    ("decline_button", "declined", "User declined to provide the requested information"),
    ("cancel_button", "cancelled", "User cancelled the elicitation dialog"),
])
async def test_decline_and_cancel_reach_the_server_as_such(
    button: str, ended: str, said: str, http_url: str
) -> None:
    async with _window(_script(ASK), _config("stdio", http_url)) as rig:
        form = await _approve_then_form(rig)
        getattr(form, button).click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)

        assert form.ended == ended
        assert said in _tool_result(rig)
        card = next(w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget))
        assert card.state.outcome is None  # the server's call went on to its result


async def test_interrupting_the_turn_closes_the_form_and_leaves_none_waiting(http_url: str) -> None:
    async with _window(_script(ASK), _config("stdio", http_url)) as rig:
        form = await _approve_then_form(rig)
        rig.window.send_button.click()  # Interrupt
        assert await rig.turns.wait_for(timeout=20) == ("user",)

        assert form.ended == "closed"
        assert rig.forms.pending() == []


async def test_the_browser_opens_only_when_the_user_clicks_open(http_url: str) -> None:
    url = "https://example.com/consent?step=1"
    script = _script("trigger-url-elicitation", {"url": url, "message": "Sign in to continue"})
    async with _window(script, _config("stdio", http_url)) as rig:
        form = await _approve_then_form(rig)
        opened: list[str] = []

        def browser(address: str) -> bool:
            opened.append(address)
            return True

        form.open_url = browser

        assert form.host is not None and form.host.text() == "Opens example.com in your browser"
        assert form.address is not None and form.address.text() == url
        assert form.submit_button.text() == "Open" and form.questions == []
        await asyncio.sleep(0)  # nothing opens by itself
        assert opened == []
        form.submit_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)

        assert opened == [url]
        assert form.status.text() == "Opened in your browser"
        assert "User completed the URL elicitation flow" in _tool_result(rig)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
async def test_screenshots_of_the_form_and_the_url_consent(texts: Texts, http_url: str, tmp_path: Path) -> None:
    language = "zh" if texts is CHINESE else "en"
    async with _window(_script(ASK), _config("stdio", http_url), texts) as rig:
        form = await _approve_then_form(rig, "问我" if language == "zh" else "ask me")
        assert form.heading.text() == texts.tr("form_server_asks", server="everything")
        assert form.decline_button.text() == texts.tr("form_decline")
        radios = [r.text() for r in form.findChildren(QRadioButton)]
        assert "Wonder Woman" in radios and "hero-3" not in radios  # titles shown, values sent
        assert [c.text() for c in form.findChildren(QCheckBox)][:1] == [texts.tr("form_yes")]
        _line(form, "name").setText("Ann Lee")
        _line(form, "integer").setText("seven")
        form.submit_button.click()  # a wrong answer: said in the window's language, the form stays
        problem = texts.tr("form_problem_not_whole", value="'seven'")
        assert form.error.text() == texts.tr("form_invalid", question="Integer", problem=problem)
        _shoot(form, rig, tmp_path, f"elicitation_form_{language}")
        form.cancel_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
    script = _script("trigger-url-elicitation", {"url": "https://example.com/sign-in", "message": "Sign in to continue"})
    async with _window(script, _config("stdio", http_url), texts) as rig:
        form = await _approve_then_form(rig, "问我" if language == "zh" else "ask me")
        assert form.host is not None and form.host.text() == texts.tr("form_url_host", host="example.com")
        assert form.submit_button.text() == texts.tr("form_url_open")
        _shoot(form, rig, tmp_path, f"elicitation_url_{language}")
        form.decline_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        assert "User declined to open the URL" in _tool_result(rig)


REFUSED = (
    'MCP server "asker" asked for a form the app cannot show '
    "(field 'address' is a nested object, which a form cannot ask); declined"
)
REFUSED_SAID = {"en": REFUSED, "zh": "MCP 服务器 asker 请求的表单无法显示（字段“address”是嵌套对象），已拒绝"}


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
async def test_a_schema_no_form_can_show_is_one_line_in_the_card_and_the_turn_goes_on(
    texts: Texts, tmp_path: Path
) -> None:
    """The line is on the collapsed card, in the window's language (the
    engine's English line in its tooltip and in the details' output)."""
    script_path = Path(__file__).resolve().parents[2] / "integration" / "servers" / "elicit_server.py"
    config = ServerConfig(name="asker", command=sys.executable, args=(str(script_path),))
    async with _window(_script("ask_nested"), config, texts) as rig:
        assert rig.window.send_text("ask me")
        kind, call_id = await rig.waiting.wait_for(timeout=20)
        assert kind == "approval"
        _view(rig).cards[call_id].approve_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)

        card = next(w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget))
        assert card.state.output == REFUSED + "\n"
        assert card.state.result == "decline None"
        assert not any(isinstance(w, FormWidget) for w in rig.window.chat.items())
        assert [w for w in rig.waiting.events if w[0] == "form"] == []
        assert card.reason.isVisibleTo(card) and card.reason.text() == REFUSED_SAID[texts.language]
        assert card.reason.toolTip() == ("" if texts is ENGLISH else REFUSED)
        card.set_expanded(True)
        assert card.output.toPlainText() == REFUSED + "\n"  # the engine's own line, kept
        await laid_out(rig.window)
        path = tmp_path / f"form_refused_{texts.language}.png"
        assert rig.window.grab().save(str(path))
        SHOTS27.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS27 / path.name)
