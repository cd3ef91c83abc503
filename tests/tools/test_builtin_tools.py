from __future__ import annotations

import asyncio

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.json_types import as_object
from desktop_agent.core.messages import BusItem, FormRequestMessage
from desktop_agent.core.ports import Tool
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from desktop_agent.tools import builtin_tools


def test_builtin_tools_are_the_three_tools_with_their_approval_rules() -> None:
    tools = builtin_tools(FormManager(), command_timeout_s=45)
    router = ToolRouter(tools)

    assert all(isinstance(t, Tool) for t in tools)
    routes = {name: router.lookup(name) for name in ("ask_user_question", "show_card", "run_command")}
    assert {name: r is not None and r.skip_approval for name, r in routes.items()} == {
        "ask_user_question": True,
        "show_card": True,
        "run_command": False,
    }
    assert [as_object(t["function"])["name"] for t in router.openai_tools()] == [
        "ask_user_question",
        "show_card",
        "run_command",
    ]
    assert "at most 45" in tools[2].spec.description


async def test_the_handler_pushes_the_form_request_right_after_tool_call_executing() -> None:
    """The real chat handler, ignorant of tool names (contracts §4), puts the
    form next to its call; the form is registered before anyone can see it."""
    forms = FormManager()
    args = {"question": "Go?", "options": ["yes", "no"]}
    llm = ScriptedLLM([text_reply("Let me ask.<need_tool>"), tool_reply("ask_user_question", args),
                       text_reply("Thanks.")])
    agent = AgentClient(llm, ToolRouter(builtin_tools(forms)), system_prompt=None)
    handler = ChatHandler(agent, ApprovalManager(), SessionManager())
    bus = RecordingBus("s1")
    seen_pending: list[int] = []

    def answer(item: BusItem) -> None:
        if isinstance(item.message, FormRequestMessage):
            seen_pending.append(len(forms.pending()))
            forms.respond(item.message.form_id, {"q1": "yes"})

    bus.add_listener(answer)
    async with asyncio.timeout(10):
        await handler.handle_chat("s1", bus, [UserMessage("ask me")])
    messages = bus.drain()
    executing = next(i for i, m in enumerate(messages) if m.get("state") == "executing")
    form_id = messages[executing + 1]["form_id"]
    assert messages[executing:executing + 3] == [
        {"type": "tool_call", "state": "executing", "tool_call_id": "call_1", "tool_name": "ask_user_question",
         "arguments": args},
        {"type": "form_request", "tool_call_id": "call_1", "form_id": form_id,
         "questions": [{"id": "q1", "question": "Go?", "type": "choice", "options": ["yes", "no"], "required": True}],
         "title": None},
        {"type": "tool_call", "state": "result", "tool_call_id": "call_1", "tool_name": "ask_user_question",
         "arguments": args, "result": '{"answers": {"q1": "yes"}}', "is_error": False},
    ]
    assert seen_pending == [1]


def test_tools_without_the_hook_add_no_message() -> None:
    router = ToolRouter(builtin_tools(FormManager()))
    for name, args in (("show_card", {"title": "t", "body": "b"}), ("run_command", {"command": "true"})):
        routed = router.lookup(name)
        assert routed is not None
        assert routed.post_executing("call-1", args) is None


def _keywords(schema: object) -> set[str]:
    """Every schema keyword used anywhere (property names are not keywords)."""
    if isinstance(schema, list):
        return set().union(*(_keywords(s) for s in schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key == "properties":
            found |= set().union(*(_keywords(p) for p in value.values()))
        else:
            found |= _keywords(value)
    return found


def test_parameters_are_plain_json_schemas_a_chat_api_accepts() -> None:
    for tool in builtin_tools(FormManager()):
        parameters: JSONDict = dict(tool.spec.parameters)  # read deep, unchecked
        assert parameters["type"] == "object", tool.spec.name
        assert _keywords(parameters).isdisjoint({"$defs", "$ref", "title", "anyOf", "allOf"}), tool.spec.name
        assert set(parameters.get("required", ())) <= set(parameters["properties"]), tool.spec.name


def test_run_command_parameters_are_generated_from_its_model() -> None:
    (run_command,) = [t for t in builtin_tools(FormManager(), command_timeout_s=45) if t.spec.name == "run_command"]

    assert run_command.spec.parameters == {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command line."},
            "cwd": {"type": "string", "description": "Working folder (optional)."},
            "timeout_s": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds, at most 45."},
        },
        "required": ["command"],
    }


def test_show_card_and_ask_user_question_describe_their_nested_objects() -> None:
    specs: dict[str, JSONDict] = {t.spec.name: dict(t.spec.parameters) for t in builtin_tools(FormManager())}

    assert specs["show_card"]["properties"]["fields"]["items"] == {
        "type": "object",
        "properties": {"label": {"type": "string"}, "value": {"type": "string"}},
        "required": ["label", "value"],
    }
    question = specs["ask_user_question"]["properties"]["questions"]["items"]
    assert question["required"] == ["question"]
    assert question["properties"]["type"]["enum"] == ["text", "choice", "multi_choice"]
    assert question["properties"]["required"] == {"type": "boolean", "default": True}
    assert "required" not in specs["ask_user_question"]
