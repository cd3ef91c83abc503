"""An MCP server's elicitation request, asked as a form of the running call.

The server's ``elicitation/create`` arrives (through
:attr:`ClientHooks.elicit`) while one of its tool calls runs; the form goes
on that call's bus as a ``form_request`` with ``source: {"server": NAME}``
and the call's ``tool_call_id`` (contracts §10), is registered with the
same :class:`FormManager` as ``ask_user_question``'s forms, and whoever
shows forms answers it: the window's form in the tool card, the terminal by
``--elicit``. How it ended becomes the spec's answer:

- submitted → ``accept`` with the answers, typed as the schema says;
- the Decline button → ``decline``;
- Cancel, closing, the user's interrupt (the call ends) or nobody
  answering within the answer timeout → ``cancel``.

A URL elicitation is a form without questions whose ``source`` carries the
address: accepted means the user agreed to open it (the window opens the
browser only then).

Refused with ``decline`` and one log line: a request while no call of that
server runs (nobody to show it to: the app only asks the user during a
turn), and a schema no form can show (also one line in the call's output,
naming the server, so the user sees why; the turn goes on).
"""

from __future__ import annotations

import logging
import uuid

import mcp_types as types

from desktop_agent.core.elicit_schema import SchemaError, questions_from_schema
from desktop_agent.core.form_question import FormQuestion
from desktop_agent.core.forms import FormManager
from desktop_agent.core.messages import FormRequestMessage, FormSource
from desktop_agent.core.tool_context import FormHost
from desktop_agent.mcp_engine.client_hooks import CallOrigin

log = logging.getLogger(__name__)

_DECLINE = types.ElicitResult(action="decline")
_CANCEL = types.ElicitResult(action="cancel")


def refused_form_line(server: str, exc: SchemaError) -> str:
    """The one line a refused form leaves in its call's output (and the
    log). The window words it in its language from these words
    (``ui/common/error_wording.py``): keep the two in step."""
    return f'MCP server "{server}" asked for a form the app cannot show ({exc}); declined'


class Elicitation:
    """The :data:`ElicitHook` of an engine: ``engine.hooks.elicit = Elicitation(forms)``."""

    def __init__(self, forms: FormManager) -> None:
        self._forms = forms

    async def __call__(
        self, server: str, params: types.ElicitRequestParams, origin: CallOrigin | None
    ) -> types.ElicitResult:
        ctx = origin.ctx if origin is not None else None
        if not isinstance(ctx, FormHost):
            log.info('mcp server "%s" asked the user something while none of its calls ran: declined', server)
            return _DECLINE
        questions: tuple[FormQuestion, ...] = ()
        if isinstance(params, types.ElicitRequestURLParams):
            source = FormSource(server, url=params.url)
        else:
            source = FormSource(server)
            try:
                questions = questions_from_schema(params.requested_schema)
            except SchemaError as exc:
                line = refused_form_line(server, exc)
                log.warning("%s", line)
                if origin is not None:
                    origin.ctx.output("stderr", line + "\n")
                return _DECLINE
        return await self._ask(ctx, source, questions, params.message)

    async def _ask(
        self, ctx: FormHost, source: FormSource, questions: tuple[FormQuestion, ...], message: str
    ) -> types.ElicitResult:
        forms = self._forms
        form_id = f"elicit-{uuid.uuid4().hex[:12]}"
        forms.register(form_id, questions, title=message, consent=True)
        ctx.push_form(FormRequestMessage(ctx.tool_call_id, form_id, questions, message, source))
        ctx.on_close(lambda: forms.cancel(form_id))
        try:
            answer = await forms.wait(form_id, ctx.answer_timeout_s)
        finally:
            forms.cancel(form_id)
        if answer.declined:
            log.info('mcp server "%s": the user declined its form', source.server)
            return _DECLINE
        if answer.answers is None:
            how = "nobody answered it in time" if answer.timed_out else "the user cancelled it"
            log.info('mcp server "%s": %s', source.server, how)
            return _CANCEL
        if source.url is not None:
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content=dict(answer.answers))
