"""Stream parser: segments, tags across chunks, intent detection (contracts §3)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.stream_parser import (
    CONTROL_TAGS,
    INTENT_TAGS,
    Segment,
    StreamParser,
    detect_intent,
    has_voice_tag,
    strip_intent_tags,
    strip_tags,
)


def parse(
    chunks: Iterable[str],
    *,
    speak_everything: bool = False,
    early_first_clause: bool = True,
    first_clause_min_chars: int = 6,
) -> list[Segment]:
    parser = StreamParser(
        speak_everything=speak_everything,
        early_first_clause=early_first_clause,
        first_clause_min_chars=first_clause_min_chars,
    )
    out: list[Segment] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out + parser.flush()


def seg(text: str, raw: str | None = None, voice: bool = False) -> Segment:
    return Segment(text, text if raw is None else raw, voice)


# ------------------------------------------------------------------ sentences


def test_plain_sentences_are_cut_after_each_ender_with_the_space_staying_with_its_sentence() -> None:
    segments = parse(["Hello there. How are you? Fine!"])
    assert segments == [seg("Hello there. "), seg("How are you? "), seg("Fine!")]
    assert [s.spoken for s in segments] == ["Hello there.", "How are you?", "Fine!"]


def test_a_dot_inside_a_number_or_word_does_not_end_a_sentence() -> None:
    assert parse(["Pi is 3.14 roughly. See e.g.x too."]) == [
        seg("Pi is 3.14 roughly. "),
        seg("See e.g.x too."),
    ]


def test_a_dot_at_the_end_of_a_chunk_waits_for_the_next_character() -> None:
    parser = StreamParser()
    assert parser.feed("Pi is 3.") == []
    assert parser.feed("14. Next") == [seg("Pi is 3.14. ")]
    assert parser.feed(" one.") == []
    assert parser.flush() == [seg("Next one.")]


def test_consecutive_enders_and_closing_marks_stay_with_their_sentence() -> None:
    assert parse(["Really?! Yes... “好。”然后 (see above.) 嗯……好吧"]) == [
        seg("Really?! "),
        seg("Yes... "),
        seg("“好。”"),
        seg("然后 (see above.) "),
        seg("嗯……"),
        seg("好吧"),
    ]


def test_a_sentence_end_waits_for_a_closing_mark_that_may_follow() -> None:
    parser = StreamParser()
    assert parser.feed("他说“好。") == []
    assert parser.feed("”然后") == [seg("他说“好。”")]


def test_newlines_end_segments_and_blank_lines_stay_with_the_line_before() -> None:
    assert parse(["Line one\nLine two\n\nLine three"]) == [
        seg("Line one\n"),
        seg("Line two\n\n"),
        seg("Line three"),
    ]


def test_a_markdown_list_after_a_spoken_sentence_keeps_its_line_break() -> None:
    reply = "<voice>All done.</voice>\n- first\n- second"
    segments = parse([reply])
    assert segments == [
        seg("All done.\n", "<voice>All done.</voice>\n", voice=True),
        seg("- first\n"),
        seg("- second"),
    ]
    assert "".join(s.text for s in segments) == "All done.\n- first\n- second"


def test_a_heading_keeps_the_line_breaks_before_it() -> None:
    segments = parse(["Use lists.\n\n## Setting up\nRun it."])
    assert segments == [seg("Use lists.\n\n"), seg("## Setting up\n"), seg("Run it.")]


def test_chinese_sentences_are_cut_at_full_width_enders() -> None:
    assert parse(["今天天气很好。我们去公园吧！你觉得呢？"]) == [
        seg("今天天气很好。"),
        seg("我们去公园吧！"),
        seg("你觉得呢？"),
    ]


# ------------------------------------------------------------------ first clause


def test_the_first_segment_is_cut_at_a_clause_mark_once_it_is_long_enough() -> None:
    assert parse(["Hello there, my friend. Then, again, more."]) == [
        seg("Hello there,"),
        seg(" my friend. "),
        seg("Then, again, more."),
    ]
    assert parse(["好的，我来帮你查一下天气，稍等。"]) == [seg("好的，我来帮你查一下天气，"), seg("稍等。")]


def test_a_short_first_clause_is_not_cut() -> None:
    assert parse(["Hi, you. Ok"]) == [seg("Hi, you. "), seg("Ok")]


def test_an_ascii_clause_mark_needs_whitespace_after_it_so_numbers_survive() -> None:
    assert parse(["1,000 dollars, ok"]) == [seg("1,000 dollars,"), seg(" ok")]


def test_an_ascii_clause_mark_at_a_chunk_end_waits_for_the_next_character() -> None:
    parser = StreamParser()
    assert parser.feed("The total is 1,") == []
    assert parser.feed("000 or so,") == []
    assert parser.feed(" I think.") == [seg("The total is 1,000 or so,")]


def test_the_early_cut_can_be_turned_off_or_tuned() -> None:
    text = "好的，我来查一下，稍等。"
    assert parse([text], early_first_clause=False) == [seg(text)]
    assert parse([text], first_clause_min_chars=2) == [seg("好的，"), seg("我来查一下，稍等。")]


def test_only_the_first_segment_of_the_parser_life_gets_the_early_cut() -> None:
    parser = StreamParser()
    first = parser.feed("<voice>\n</voice>First sentence here. Second part, with comma. ")
    assert first == [seg("\nFirst sentence here. ", "<voice>\n</voice>First sentence here. ")]
    assert parser.flush() == [seg("Second part, with comma. ")]
    assert parser.feed("A new stream, same parser. ") + parser.flush() == [seg("A new stream, same parser. ")]


# ------------------------------------------------------------------ voice


def test_a_closed_voice_span_marks_each_of_its_sentences() -> None:
    assert parse(["Intro. <voice>Spoken one. Spoken two.</voice> After."]) == [
        seg("Intro. "),
        seg("Spoken one. ", "<voice>Spoken one. ", voice=True),
        seg("Spoken two. ", "Spoken two.</voice> ", voice=True),
        seg("After."),
    ]


def test_an_unclosed_voice_span_runs_to_the_end_of_the_stream() -> None:
    assert parse(["Note. <voice>Hello. World"]) == [
        seg("Note. "),
        seg("Hello. ", "<voice>Hello. ", voice=True),
        seg("World", voice=True),
    ]


def test_voice_tags_inside_a_sentence_split_it_so_voice_is_exact() -> None:
    assert parse(["Say <voice>hello there</voice> now."]) == [
        seg("Say "),
        seg("hello there ", "<voice>hello there</voice> ", voice=True),
        seg("now."),
    ]


def test_speak_everything_voices_every_segment() -> None:
    assert parse(["One. <voice>Two.</voice> Three."], speak_everything=True) == [
        seg("One. ", voice=True),
        seg("Two. ", "<voice>Two.</voice> ", voice=True),
        seg("Three.", voice=True),
    ]


# ------------------------------------------------------------------ intent tags


def test_intent_tags_are_stripped_from_text_but_kept_in_raw_text() -> None:
    parser = StreamParser()
    segments = parser.feed("好的，我查一下。<need_tool>") + parser.flush()
    assert segments == [seg("好的，我查一下。", "好的，我查一下。<need_tool>")]
    assert parser.full_raw_text == "好的，我查一下。<need_tool>"
    assert detect_intent(parser.full_raw_text) is False


def test_a_trailing_intent_tag_stays_with_the_last_sentence() -> None:
    parser = StreamParser()
    assert parser.feed("Sure thing. ") == []
    assert parser.feed("<no_tool>") == []
    segments = parser.flush()
    assert segments == [seg("Sure thing. ", "Sure thing. <no_tool>")]
    assert segments[0].spoken == "Sure thing."
    assert parser.full_raw_text == "Sure thing. <no_tool>"
    assert detect_intent(parser.full_raw_text) is True
    assert parser.emitted_any


def test_an_intent_tag_inside_voice_keeps_the_segment_voiced() -> None:
    assert parse(["<voice>On it.<need_tool>"]) == [seg("On it.", "<voice>On it.<need_tool>", voice=True)]


@pytest.mark.parametrize(
    "text", ["<voice>你好。</voice>好的<need_tool>", "Ok <no_tool> go.</voice>x", "a.<voice>b</voice>. c"]
)
def test_tags_split_at_every_position_give_the_same_segments(text: str) -> None:
    whole = parse([text])
    for at in range(len(text) + 1):
        assert parse([text[:at], text[at:]]) == whole, at
    assert parse(list(text)) == whole
    assert all("<" not in s.text for s in whole)


def test_a_partial_tag_is_held_back_until_it_resolves() -> None:
    parser = StreamParser()
    assert parser.feed("Checking now. <need_") == []
    assert parser.feed("tool>") == []
    assert parser.flush() == [seg("Checking now. ", "Checking now. <need_tool>")]
    assert parser.full_raw_text == "Checking now. <need_tool>"


def test_a_less_than_sign_that_cannot_become_a_tag_is_plain_text() -> None:
    parser = StreamParser()
    assert parser.feed("if a <") == []
    assert parser.feed(" b stop. <div> ok. ") == [seg("if a < b stop. ")]
    assert parser.flush() == [seg("<div> ok. ")]


def test_flush_emits_the_rest_and_keeps_a_dangling_partial_tag_out_of_text() -> None:
    parser = StreamParser()
    assert parser.flush() == []
    assert parser.feed("Done <need_") == []
    assert parser.flush() == [seg("Done ", "Done <need_")]
    assert parser.feed("   \n") == []
    assert parser.flush() == [seg("   \n")]
    assert parser.feed("<need_") + parser.flush() == [seg("", "<need_")]


def test_flush_ends_an_unclosed_voice_span() -> None:
    parser = StreamParser()
    assert parser.feed("<voice>Spoken") + parser.flush() == [seg("Spoken", "<voice>Spoken", voice=True)]
    assert parser.feed("Plain") + parser.flush() == [seg("Plain")]


def test_emitted_any_turns_true_only_with_visible_text() -> None:
    parser = StreamParser()
    parser.feed("<voice>\n \n")
    assert not parser.emitted_any
    assert parser.feed("Hi.\nMore") == [seg("\n \nHi.\n", "<voice>\n \nHi.\n", voice=True)]
    assert parser.emitted_any


def test_bad_input_is_refused_with_a_clear_error() -> None:
    with pytest.raises(TypeError, match="takes str, got bytes"):
        StreamParser().feed(b"hi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="first_clause_min_chars must be >= 0, got -1"):
        StreamParser(first_clause_min_chars=-1)


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("plain", None),
        ("ok <no_tool>", True),
        ("<need_tool>", False),
        ("<no_tool> then <need_tool>", False),
        ("<need_tool> then <no_tool>\n", True),
        ("cut off <need_", None),
    ],
)
def test_detect_intent_follows_the_last_intent_tag(text: str, expected: bool | None) -> None:
    assert detect_intent(text) is expected


def test_intent_tags_are_dictionary_driven() -> None:
    assert INTENT_TAGS == {"<no_tool>": True, "<need_tool>": False}
    assert set(CONTROL_TAGS) == {"<voice>", "</voice>", "<no_tool>", "<need_tool>"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("<voice>hi<need_tool>", True), ("<need_tool><voice>hi", True), ("hi", False), ("</voice>", False)],
)
def test_has_voice_tag_looks_past_intent_tags(text: str, expected: bool) -> None:
    assert has_voice_tag(text) is expected


def test_strip_tags_removes_complete_control_tags_only() -> None:
    assert strip_tags("<voice>a</voice> b<no_tool><need_tool>") == "a b"
    assert strip_tags("a < b <div> <need_") == "a < b <div> <need_"
    assert strip_tags("<voi<no_tool>ce>x") == "x"


def test_strip_intent_tags_keeps_voice_tags() -> None:
    assert strip_intent_tags("<voice>hi</voice><no_tool> <need_tool>") == "<voice>hi</voice> "


# ------------------------------------------------------------------ properties

# Plain text never holds ">": no run of it can complete a tag around another
# one ("<voi" + "<no_tool>" + "ce>"), where stripping the whole reply and
# stripping each segment would rightly differ. "<" alone (held back, then
# text) and the letters of tags are in; the blockquote's ">" follows "\n".
_TEXT = st.text(alphabet="abcelnostv_/ xyz 你好世界。！？!?.,，；;:：…”）)\n 0123<", min_size=1, max_size=12)
_MARKDOWN = st.sampled_from(
    [
        "\n- item one\n- item two\n",
        "\n\n## Setting up\n",
        "# Title\n\n",
        "```py\nx = 1\n\ny = 2\n```\n",
        "~~~\ncode\n~~~\n",
        "1. first\n\n   more\n",
        "\n> quote\n",
        "**bold** and `code`",
        "  \n \n",
        "今天天气很好。我们去公园吧！",
    ]
)
_PART = st.one_of(_TEXT, _TEXT, _MARKDOWN, st.sampled_from(CONTROL_TAGS))
_INVISIBLE = re.compile(r"(?:\s|<voice>|</voice>|<no_tool>|<need_tool>)*")


@st.composite
def _chunked(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = "".join(draw(st.lists(_PART, max_size=14)))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in itertools.pairwise(bounds)]


def _drop_partial_tag(text: str) -> str:
    """Drop a suffix that is a proper prefix of a control tag (a stream cut inside one)."""
    for size in range(1, max(map(len, CONTROL_TAGS))):
        tail = text[-size:]
        if tail.startswith("<") and any(t.startswith(tail) and t != tail for t in CONTROL_TAGS):
            return text[:-size]
    return text


def _voice_before(text: str, end: int) -> bool:
    tags = re.findall("<voice>|</voice>", text[:end])
    return bool(tags) and tags[-1] == "<voice>"


@settings(max_examples=300, deadline=None)
@given(_chunked(), st.booleans(), st.booleans())
def test_any_chunking_gives_the_same_segments_and_the_exact_text_of_the_reply(
    reply: tuple[str, list[str]], speak_everything: bool, early: bool
) -> None:
    text, chunks = reply
    parser = StreamParser(speak_everything=speak_everything, early_first_clause=early)
    segments = [s for c in chunks for s in parser.feed(c)] + parser.flush()

    assert segments == parse([text], speak_everything=speak_everything, early_first_clause=early)
    assert parser.full_raw_text == text
    assert "".join(s.raw_text for s in segments) == text
    assert "".join(s.text for s in segments) == strip_tags(_drop_partial_tag(text))
    assert all(s.spoken for s in segments[:-1]), "only the flushed last segment may be blank"
    pos = 0
    for s in segments:
        assert not any(tag in s.text for tag in CONTROL_TAGS)
        assert s.spoken == s.text.strip()
        leading = _INVISIBLE.match(text, pos)
        assert leading is not None
        if s.spoken:
            assert s.voice == (speak_everything or _voice_before(text, leading.end()))
        pos += len(s.raw_text)


_ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(_ANY_TEXT, st.sampled_from(CONTROL_TAGS)), max_size=12), st.data())
def test_any_text_at_all_comes_back_whole_in_raw_text_and_never_shows_a_tag(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]
    parser = StreamParser()
    segments = [s for c in chunks for s in parser.feed(c)] + parser.flush()

    assert segments == parse([text])
    assert "".join(s.raw_text for s in segments) == text
    assert all(s.text == strip_tags(s.text) for s in segments)


def test_a_stray_closing_voice_tag_is_dropped_and_text_is_not_voiced() -> None:
    parser = StreamParser(early_first_clause=False)
    assert parser.feed("</voice>c") == []
    assert parser.flush() == [Segment("c", "</voice>c", voice=False)]
    assert parser.full_raw_text == "</voice>c"
