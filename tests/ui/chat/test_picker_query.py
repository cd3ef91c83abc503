"""What the pickers read at the cursor: a leading command, a prompt's
argument or value, a resource mention; nothing elsewhere."""

from __future__ import annotations

from desktop_agent.ui.chat.picker_query import (
    ArgumentQuery,
    CommandQuery,
    MentionQuery,
    ValueQuery,
    query_at,
    quoted,
)


def test_a_slash_as_the_first_word_is_a_command_query_spanning_the_word() -> None:
    assert query_at("/", 1) == CommandQuery("", 0, 1)
    assert query_at("/se", 3) == CommandQuery("se", 0, 3)
    assert query_at("/settings", 3) == CommandQuery("se", 0, 9)


def test_a_slash_later_in_the_message_or_after_the_command_is_no_query() -> None:
    assert query_at("see /usr", 8) is None
    assert query_at("/new ", 5) is None
    assert query_at("", 0) is None
    assert query_at("hello", 5) is None


def test_an_at_word_anywhere_is_a_mention_query_but_not_inside_an_email() -> None:
    assert query_at("read @", 6) == MentionQuery("", 5, 6)
    assert query_at("read @ev and", 8) == MentionQuery("ev", 5, 8)
    assert query_at("@x", 2) == MentionQuery("x", 0, 2)
    assert query_at("mail me@host", 12) is None


def test_a_new_word_after_a_prompt_command_asks_for_an_argument_with_those_given() -> None:
    text = "/mcp__s__p city=Paris "
    assert query_at(text, len(text)) == ArgumentQuery("/mcp__s__p", "", len(text), len(text), {"city": "Paris"})
    assert query_at("/mcp__s__p st", 13) == ArgumentQuery("/mcp__s__p", "st", 11, 13, {})


def test_a_value_after_key_equals_is_a_value_query_starting_after_the_equals() -> None:
    text = "/mcp__s__p department=Engineering name=Al"
    query = query_at(text, len(text))
    assert query == ValueQuery("/mcp__s__p", "name", "Al", len(text) - 2, len(text), {"department": "Engineering"})
    assert query_at('/mcp__s__p a="x', 15) == ValueQuery("/mcp__s__p", "a", "x", 13, 15, {})


def test_words_after_an_ordinary_command_are_not_arguments() -> None:
    assert query_at("/summarise this", 15) is None


def test_a_value_with_a_space_or_quote_is_quoted_as_one_word() -> None:
    assert quoted("Alice") == "Alice"
    assert quoted("New York") == '"New York"'
    assert quoted('say "hi"') == '"say \\"hi\\""'
    assert quoted("C:\\dir") == "C:\\dir"
    assert quoted("") == '""'
