"""How a headless run answers an MCP server's form (``--elicit``, contracts §10).

Nobody sits at a headless run to fill a server's form, so it is answered
by the flag, never asked on the terminal: ``decline`` (the default) says no;
``defaults`` accepts with the schema's defaults, and declines when a
required field has none (one line names it). A URL elicitation is always
declined: a headless run never opens a browser. Each case prints one line
to stderr naming the server, so a log says what was asked and answered;
the ``form_request`` itself is on the bus (``--events-jsonl``) either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from desktop_agent.core.elicit_schema import NoDefault, default_answers
from desktop_agent.core.forms import FormAnswerError, FormManager
from desktop_agent.core.messages import FormRequestMessage

ElicitMode = Literal["decline", "defaults"]
ELICIT_MODES: tuple[ElicitMode, ...] = ("decline", "defaults")


def answer_elicitation(
    message: FormRequestMessage, mode: ElicitMode, forms: FormManager, say: Callable[[str], None]
) -> None:
    """Answer the server's form at once, as ``mode`` says."""
    source = message.source
    assert source is not None
    server = f'MCP server "{source.server}"'
    asked = f": {message.title}" if message.title else ""
    if source.url is not None:
        say(f"[form] {server} asks to open {source.url}{asked}")
        say("[form] declined: a headless run never opens a browser")
        forms.decline(message.form_id)
        return
    say(f"[form] {server} asks{asked}")
    if mode == "decline":
        say("[form] declined (--elicit decline)")
        forms.decline(message.form_id)
        return
    try:
        answers = default_answers(message.questions)
        forms.respond(message.form_id, answers)
    except (NoDefault, FormAnswerError) as exc:
        say(f"[form] declined: {exc} (--elicit defaults)")
        forms.decline(message.form_id)
        return
    shown = ", ".join(f"{key}={value!r}" for key, value in answers.items()) or "no fields"
    say(f"[form] accepted with the defaults: {shown}")
