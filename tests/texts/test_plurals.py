"""Every text that counts things reads right at 0, 1 and 2 in English ("1
tool", "2 tools"), its Chinese the same at every number; the catalogue
picks the form (``texts.counted_key``), so no caller can get it wrong."""

from __future__ import annotations

import string
from collections.abc import Mapping

import pytest

from desktop_agent import texts
from desktop_agent.texts import CATALOGUES, COUNTED_BY, merge, text_in

ALL = merge(CATALOGUES)

PLACE = {"path": "/p", "kept": "/p.bad", "folder": "/skills", "file": "/hooks.json", "server": "ev", "state": "ready",
         "name": "ev", "mime": "image/png", "shown": 1}
"""Values for the fields that do not count."""

COUNTED: Mapping[str, tuple[str, str]] = {
    # key: (English with 1, English with 2)
    "earlier_hidden": ("1 earlier message is kept but not shown", "2 earlier messages are kept but not shown"),
    "status_mcp_tools": ("ready, 1 tool", "ready, 2 tools"),
    "card_sampling_limit": ("At most 1 token", "At most 2 tokens"),
    "form_problem_min_choices": ("needs at least 1 choice", "needs at least 2 choices"),
    "form_problem_max_choices": ("takes at most 1 choice", "takes at most 2 choices"),
    "form_problem_min_chars": ("needs at least 1 character", "needs at least 2 characters"),
    "form_problem_max_chars": ("takes at most 1 character", "takes at most 2 characters"),
    "card_result_cut": (
        "Result cut to fit the model's context: 1 character left out",
        "Result cut to fit the model's context: 2 characters left out",
    ),
    "card_more_rows": ("… 1 more row", "… 2 more rows"),
    "card_resource_bytes": ("1 byte", "2 bytes"),
    "card_image_undecoded": ("[image: image/png, 1 byte]", "[image: image/png, 2 bytes]"),
    "resource_viewer_binary": ("image/png, 1 byte: not text", "image/png, 2 bytes: not text"),
    "output_cut": ("[… 1 earlier character not kept …]", "[… 2 earlier characters not kept …]"),
    "model_fetched": ("1 model found — type to filter", "2 models found — type to filter"),
    "mcp_line_tools": ("ev — ready · 1 tool", "ev — ready · 2 tools"),
    "mcp_imported": ("Imported 1 server.", "Imported 2 servers."),
    "audit_count": ("1 of 1 decision", "1 of 2 decisions"),
    "audit_skipped": ("unreadable line skipped: 1", "unreadable lines skipped: 2"),
    "conv_results": ("1 matching message", "2 matching messages"),
    "conv_show_later": ("Show 1 later message", "Show 2 later messages"),
    "conv_drawing_later": ("Drawing 1 later message…", "Drawing 2 later messages…"),
    "notice_skills_more": ("… and 1 more skill in /skills is skipped", "… and 2 more skills in /skills are skipped"),
    "notice_hooks_more": ("… and 1 more problem in hooks file /hooks.json", "… and 2 more problems in hooks file /hooks.json"),
    "notice_mcp_stdout_noise_more": (
        'mcp server "ev" wrote 1 more line that is not MCP (JSON-RPC) to its standard output; it was ignored',
        'mcp server "ev" wrote 2 more lines that are not MCP (JSON-RPC) to its standard output; they were ignored',
    ),
    "notice_conversations_recovered": (
        "saved conversations in /p were damaged; kept the file as /p.bad and recovered 1 of 1 conversation",
        "saved conversations in /p were damaged; kept the file as /p.bad and recovered 1 of 2 conversations",
    ),
    "notice_conversations_damaged_not_moved": (
        "saved conversations in /p are damaged and the file could not be moved aside; "
        "showing the 1 conversation that could be read, kept only until the app closes",
        "saved conversations in /p are damaged and the file could not be moved aside; "
        "showing the 2 conversations that could be read, kept only until the app closes",
    ),
}
READ_RIGHT_AT_ONE = frozenset({
    "conv_undo_count",  # Undo (1)
    "msg_version", "msg_version_tip", "picker_template_ask",  # 1/2, version 1 of 2: positions
    "card_resources",  # Resources (1)
    "seconds", "minutes", "hours", "hours_only", "minutes_seconds",  # 1 s, 1 min: units
    "form_problem_at_least", "form_problem_at_most",  # must be at least 1: a value
    "model_download_percent",  # 1 %
})
"""The texts with a ``{count}`` or ``{n}`` that name no counted noun."""


def fields_of(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def values(key: str, number: int) -> dict[str, object]:
    en, _ = ALL[key]
    counting = COUNTED_BY.get(key) or ("count" if "count" in fields_of(en) else "n")
    known = {**PLACE, "recovered": 1, "listed": 1, "total": 1}
    return {f: number if f == counting else known[f] for f in fields_of(en)}


@pytest.mark.parametrize("key", sorted(COUNTED))
def test_a_counted_text_reads_right_at_zero_one_and_two_in_english(key: str) -> None:
    one, two = COUNTED[key]
    assert text_in("en", key, **values(key, 1)) == one
    assert text_in("en", key, **values(key, 2)) == two
    plural = ALL[key][0]
    assert text_in("en", key, **values(key, 0)) == plural.format(**values(key, 0))  # "0 tools"


@pytest.mark.parametrize("key", sorted(COUNTED))
def test_the_chinese_of_a_counted_text_is_the_same_at_every_number(key: str) -> None:
    plural = ALL[key][1]
    for number in (0, 1, 2):
        assert text_in("zh", key, **values(key, number)) == plural.format(**values(key, number))


def test_every_text_that_counts_with_count_or_n_is_in_the_table() -> None:
    """A new ``{count}``/``{n}`` text must be added above: given a ``_one``
    form, or listed as reading right at 1."""
    for table in CATALOGUES.values():
        for key, (en, _) in table.items():
            if key.endswith("_one") or not fields_of(en) & {"count", "n"}:
                continue
            assert key in COUNTED or key in READ_RIGHT_AT_ONE, key
            assert (f"{key}_one" in texts.keys()) == (key in COUNTED), key


def test_a_number_given_as_text_counts_too() -> None:
    """Form problems carry their number formatted (``core/form_values.py``)."""
    assert text_in("en", "form_problem_min_choices", n="1") == "needs at least 1 choice"
    assert text_in("en", "form_problem_min_choices", n="1.5") == "needs at least 1.5 choices"
