"""The app's secrets kept out of child environments and tool output."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.messages import Card, OutputStream
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.redaction import REDACTED, RedactingContext, Redactor
from desktop_agent.core.tool_router import ToolRouter

KEY = "sk-live-0123456789abcdef"


class _Recorder:
    session_id = "s"
    conversation_id = "c"
    tool_call_id = "call_1"
    answer_timeout_s = None
    sub_agents = "host"

    def __init__(self) -> None:
        self.outputs: list[tuple[OutputStream, str]] = []
        self.partial: dict[str, Any] = {}
        self.progress_messages: list[str | None] = []

    def set_partial(self, key: str, value: Any) -> None:
        self.partial[key] = value

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress_messages.append(message)

    def push_card(self, card: Card) -> None:
        pass

    def output(self, stream: OutputStream, text: str) -> None:
        self.outputs.append((stream, text))


def test_every_configured_secret_is_replaced_and_short_values_are_not_secrets() -> None:
    redact = Redactor([KEY, None, "", "k"])
    assert redact(f"a {KEY} b {KEY}") == f"a {REDACTED} b {REDACTED}"
    assert redact("keep k as it is") == "keep k as it is"
    assert redact.scrub({"stdout": [KEY, 1], "n": 2}) == {"stdout": [REDACTED, 1], "n": 2}
    assert Redactor()("text") == "text"


def test_a_child_environment_has_no_api_key_by_name_or_by_value() -> None:
    environ = {"PATH": "/bin", "OPENAI_API_KEY": "sk-anything-else", "MY_COPY": KEY, "HOME": "/h"}
    assert Redactor([KEY]).child_environment(environ) == {"PATH": "/bin", "HOME": "/h"}
    assert Redactor().child_environment(environ) == {"PATH": "/bin", "MY_COPY": KEY, "HOME": "/h"}


def test_output_split_across_reads_is_still_redacted_and_the_rest_is_flushed() -> None:
    inner = _Recorder()
    ctx = RedactingContext(inner, Redactor([KEY]))
    ctx.output("stdout", f"line one {KEY[:6]}")
    ctx.output("stdout", f"{KEY[6:]} end\nopen {KEY}")
    ctx.set_partial("stdout", f"tail {KEY}")
    ctx.progress(1, 2, f"at {KEY}")
    ctx.flush()
    assert inner.outputs == [("stdout", f"line one {REDACTED} end\n"), ("stdout", f"open {REDACTED}")]
    assert inner.partial == {"stdout": f"tail {REDACTED}"}
    assert inner.progress_messages == [f"at {REDACTED}"]
    assert ctx.sub_agents == "host"  # what the context offers besides the protocol passes through


class _Echo:
    spec = ToolSpec("echo_key", "prints the key", {"type": "object", "properties": {}})

    async def run(self, arguments: Any, ctx: ToolContext) -> ToolResult:
        ctx.output("stdout", f"{KEY}\n")
        return ToolResult(f"the key is {KEY}")


async def test_the_router_redacts_every_tool_it_routes() -> None:
    inner = _Recorder()
    route = ToolRouter([_Echo()], redactor=Redactor([KEY])).lookup("echo_key")
    assert route is not None
    result = await route.run({}, inner)
    assert result == ToolResult(f"the key is {REDACTED}")
    assert inner.outputs == [("stdout", f"{REDACTED}\n")]


def test_a_secret_added_later_is_hidden_from_then_on_the_longest_first() -> None:
    redact = Redactor(["sk-short-1234"])
    redact.add(None)
    redact.add("tiny")  # too short to be a secret worth hiding
    redact.add("sk-short-1234-and-longer")
    assert redact("a sk-short-1234-and-longer b sk-short-1234 c tiny") == (
        f"a {REDACTED} b {REDACTED} c tiny"
    )
    assert redact.child_environment({"X": "sk-short-1234-and-longer", "Y": "ok"}) == {"Y": "ok"}


def test_scrubbing_walks_any_depth_without_recursion_and_copies_a_shared_value_once() -> None:
    value: Any = {"key": KEY}
    for _ in range(5000):  # far past what a recursive walk survived
        value = {"a": [value]}
    out: Any = Redactor([KEY]).scrub(value)
    for _ in range(5000):
        out = out["a"][0]
    assert out == {"key": REDACTED}
    shared = ["x", KEY]
    looped: list[Any] = [shared, (shared,)]
    looped.append(looped)
    scrubbed: Any = Redactor([KEY]).scrub(looped)
    assert scrubbed[0] == ["x", REDACTED] and scrubbed[1][0] is scrubbed[0] and scrubbed[2] is scrubbed
