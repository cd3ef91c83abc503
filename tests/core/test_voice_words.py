"""What barge-in and hands-free speech amount to: a turn, a stop, or noise."""

from __future__ import annotations

import pytest

from desktop_agent.core.voice_words import judge, words


@pytest.mark.parametrize(
    ("text", "min_words", "verdict"),
    [
        ("What is the weather in Paris?", 2, "turn"),
        ("stop talking to the", 2, "turn"),  # words, if truncated ones: sent
        ("Wait, stop talking please.", 2, "stop"),
        ("Stop.", 2, "stop"),
        ("Be quiet!", 2, "stop"),
        ("Hold on a second.", 2, "stop"),
        ("Thank you.", 2, "stop"),
        ("等一下，别说了", 2, "stop"),
        ("停", 2, "stop"),
        ("", 2, "noise"),
        ("Um...", 2, "noise"),
        ("uh, hmm", 2, "noise"),
        ("嗯", 2, "noise"),
        ("啊。", 2, "noise"),
        ("[cough]", 2, "noise"),
        ("(coughs) (laughs)", 2, "noise"),
        ("*sighs*", 2, "noise"),
        ("Weather?", 2, "noise"),
        ("Weather?", 1, "turn"),
        ("天气", 2, "turn"),
        ("嗯，天气怎么样", 2, "turn"),
        ("ok please", 2, "turn"),  # no stop word in it: politeness alone is words
    ],
)
def test_what_an_utterance_amounts_to(text: str, min_words: int, verdict: str) -> None:
    assert judge(text, min_words) == verdict


def test_words_drop_notes_punctuation_and_fillers_and_count_characters() -> None:
    assert words("Um, (coughs) open the 天气 app!") == ["open", "the", "app", "天", "气"]
