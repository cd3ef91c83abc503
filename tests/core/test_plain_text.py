"""Markdown as a one-line plain label (sidebar titles and snippets)."""

from __future__ import annotations

import pytest

from desktop_agent.core.plain_text import plain, to_plain


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("Run `date`", "Run date"),
        ("`date` printed Tue Dec 1", "date printed Tue Dec 1"),
        ("Call **show_card** now", "Call show_card now"),
        ("运行 `date` 命令", "运行 date 命令"),
        ("**粗体**文字和*斜体*", "粗体文字和斜体"),
        ("**你好。**世界", "你好。世界"),
        ("``a`b``", "a`b"),
        ("`` `code` ``", "`code`"),
        ("`**not bold**`", "**not bold**"),
        ("*a **b** c*", "a b c"),
        ("***both***", "both"),
        ("_em_ and __strong__", "em and strong"),
        ("~~gone~~ here", "gone here"),
        ("see [the docs](https://example.com/a_(b)) and ![a pic](p.png)", "see the docs and a pic"),
        ("[**bold link**](u)", "bold link"),
        ("<https://example.com>", "https://example.com"),
        ("# Title ##", "Title"),
        ("## 标题", "标题"),
        ("- item", "item"),
        ("* item", "item"),
        ("12. item", "item"),
        ("- [x] done", "done"),
        ("> quoted *words*", "quoted words"),
        ("```python\nprint(1)\n```", "print(1)"),
        ("line one\n\n  line   two", "line one line two"),
    ],
)
def test_markup_goes_and_the_words_stay(source: str, shown: str) -> None:
    assert plain(source) == shown


@pytest.mark.parametrize(
    "source",
    ["2*3 = 6", "2 * 3", "a * b * c", "*unclosed", "snake_case_name", "a_b_c", "#hashtag", "[not a link]",
     "price: 5 ~ 6", "C# and F#", "x < y > z"],
)
def test_a_lone_mark_is_left_alone(source: str) -> None:
    assert plain(source) == source


def test_escaped_marks_show_as_themselves() -> None:
    assert plain(r"a \*not em\* b") == "a *not em* b"


def test_each_character_knows_where_it_came_from() -> None:
    source = "Run `date` **now**"
    shown = to_plain(source)
    assert shown.text == "Run date now"
    assert [source[i] for i in shown.origins] == list(shown.text)
    assert shown.span(source.index("date"), source.index("date") + 4) == (4, 8)  # a match in the raw text
    assert shown.span(source.index("`date`"), source.index("`date`") + 6) == (4, 8)  # mark-up and all
    assert shown.span(source.index("**"), source.index("**") + 2) is None  # mark-up alone: nothing shown


def test_an_empty_source_is_an_empty_label() -> None:
    assert to_plain("").text == "" and to_plain("  \n ").origins == ()


def test_many_unclosed_brackets_keep_all_their_text() -> None:
    source = "[a " * 3000  # each "[" once scanned to the end: a second's work
    assert plain(source) == source.strip()
    assert plain("[a [b](u) c](v) [d") == "a b c [d"  # nested links, one left open
