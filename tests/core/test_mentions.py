"""Finding ``/mcp__SERVER__PROMPT key=value`` and ``@SERVER:URI`` in what
the user typed (contracts §10, "MCP in a user message")."""

from __future__ import annotations

import pytest

from desktop_agent.core.mentions import (
    MentionError,
    Mentions,
    PromptCall,
    ResourceRef,
    may_mention,
    parse_mentions,
)

SERVERS = ("ev", "my_srv", "my_srv__x", "time")


def test_plain_text_mentions_nothing() -> None:
    found = parse_mentions("what time is it? mail me@example.com:25 or /help", SERVERS)
    assert found == Mentions()
    assert not found


def test_only_a_command_or_an_at_sign_may_mention_anything() -> None:
    assert [may_mention(t) for t in ("what time is it? /help", "  /mcp__ev__p", "see @ev:x", "/mcp_ev")] == [
        False, True, True, False,
    ]


def test_a_prompt_command_with_key_value_words_and_quoted_values() -> None:
    found = parse_mentions('  /mcp__ev__args-prompt city="New York" state=NY note="say \\"hi\\""', SERVERS)
    assert found == Mentions(
        PromptCall("ev", "args-prompt", (("city", "New York"), ("state", "NY"), ("note", 'say "hi"'))),
    )
    assert found.prompt is not None and found.prompt.command == "/mcp__ev__args-prompt"


def test_the_longest_configured_server_name_wins() -> None:
    assert parse_mentions("/mcp__my_srv__x__p", SERVERS).prompt == PromptCall("my_srv__x", "p", ())
    assert parse_mentions("/mcp__my_srv__y", SERVERS).prompt == PromptCall("my_srv", "y", ())


def test_resource_mentions_anywhere_each_once_without_closing_punctuation() -> None:
    text = "Compare @ev:demo://a/b.md, with (@time:file:///t.txt) and @ev:demo://a/b.md."
    assert parse_mentions(text, SERVERS) == Mentions(
        None, (ResourceRef("ev", "demo://a/b.md"), ResourceRef("time", "file:///t.txt"))
    )


def test_a_resource_mention_among_a_prompts_arguments() -> None:
    found = parse_mentions("/mcp__ev__simple-prompt @ev:demo://x/1", SERVERS)
    assert found == Mentions(PromptCall("ev", "simple-prompt", ()), (ResourceRef("ev", "demo://x/1"),))


def test_an_unknown_name_without_a_scheme_is_ordinary_text() -> None:
    assert not parse_mentions("ask @bob:lunch? or @team:now", SERVERS)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("/mcp__nobody__p", '"/mcp__nobody__p": no mcp server is called "nobody"'),
        ("/mcp__ev", '"/mcp__ev": a prompt is written /mcp__SERVER__PROMPT'),
        ("/mcp__ev__", '"/mcp__ev__": a prompt is written /mcp__SERVER__PROMPT'),
        ("/mcp__ev__args-prompt Paris", '/mcp__ev__args-prompt: "Paris" is not a key=value argument'),
        ('/mcp__ev__args-prompt city="Par', "/mcp__ev__args-prompt: a quoted value has no closing quote"),
        ("see @nobody:demo://x", '"@nobody:demo://x": no mcp server is called "nobody"'),
    ],
)
def test_what_cannot_be_read_is_one_line(text: str, line: str) -> None:
    with pytest.raises(MentionError) as caught:
        parse_mentions(text, SERVERS)
    assert str(caught.value) == line


def test_a_command_later_in_the_text_is_not_a_command() -> None:
    assert not parse_mentions("please run /mcp__ev__simple-prompt later", SERVERS)
