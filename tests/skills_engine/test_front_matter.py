"""Front matter that no YAML can crash: nesting past a fixed depth and
aliases are refused before PyYAML recurses or anything expands them, and
every error PyYAML or its constructors raise is one FrontMatterError."""

from __future__ import annotations

import pytest

from desktop_agent.skills_engine.front_matter import MAX_DEPTH, FrontMatterError, load_front_matter

LAUGHS = "\n".join(
    ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 10)]
)


def refusal(text: str) -> tuple[str, int | None]:
    with pytest.raises(FrontMatterError) as caught:
        load_front_matter(text)
    return caught.value.kind, caught.value.line


def nested_list(depth: int) -> str:
    return "a: " + "[" * depth + "x" + "]" * depth


def test_plain_front_matter_reads_as_yaml() -> None:
    assert load_front_matter("name: a\ndescription: b\nmetadata: {k: [1, 2]}") == {
        "name": "a", "description": "b", "metadata": {"k": [1, 2]}}


def test_nesting_up_to_the_limit_reads_and_one_more_level_is_refused() -> None:
    # The mapping is one level and the scalar inside the lists another.
    assert load_front_matter(nested_list(MAX_DEPTH - 2)) is not None
    assert refusal(nested_list(MAX_DEPTH - 1)) == ("too_deep", 0)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000 + "]" * 5000,
        "[" * 5000,  # unclosed: PyYAML recursed until RecursionError
        "{a: " * 5000 + "}" * 5000,
        "".join(" " * n + f"k{n}:\n" for n in range(600)),  # a block mapping 600 deep
        "- " * 5000 + "x",
    ],
    ids=["flow-list", "unclosed-list", "flow-map", "block-map", "block-list"],
)
def test_deep_nesting_of_any_kind_is_refused_without_recursing(text: str) -> None:
    assert refusal(text)[0] == "too_deep"


def test_an_alias_is_refused_so_a_billion_laughs_never_expands() -> None:
    assert refusal(LAUGHS) == ("alias", 1)
    assert refusal("a: &x 1\nb: *x") == ("alias", 1)
    assert refusal("base: &b {k: 1}\nother:\n  <<: *b") == ("alias", 2)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: b: c", 0),  # a YAML syntax error, with where it is
        ("a: \x07", None),  # a control character: refused by the reader
        ("? [a]\n: b", 0),  # an unhashable key
        ("a: 2001-13-45", None),  # a timestamp that is no date: ValueError from datetime
        ("a: !!int " + "9" * 5000, None),  # past Python's digit limit: ValueError
        ("a: !!float abc", None),
        ("a: !!python/object:os.system x", 0),  # not a safe tag
    ],
)
def test_every_parse_or_construction_error_is_one_front_matter_error(text: str, line: int | None) -> None:
    assert refusal(text) == ("yaml", line)
