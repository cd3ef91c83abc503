"""Always-allow rules by command prefix, matched on the parsed line."""

from __future__ import annotations

import pytest

from desktop_agent.core.approval import call_allow_key, call_decider
from desktop_agent.core.command_rules import offered_prefix, rule_key, rule_prefix, rules_allow, rules_in


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git status", "git status"),
        ("git status --short", "git status"),
        ("git log --oneline | git log -1", "git log"),
        ("npm run build", "npm run"),
        ("cargo test -q", "cargo test"),
        ("ls -la", "ls"),
        ("date", "date"),
        ("rm -rf build", "rm"),
        ("git --version", None),  # no subcommand
        ("sudo ls", None),  # a wrapper would allow anything
        ("sh -c 'ls'", None),
        ("FOO=1 ls", None),
        ("ls | head -3", None),  # two programs: no one rule covers the line
        ("ls > out.txt", None),  # writes a file
        ("echo $(date)", None),
        ("", None),
    ],
)
def test_the_offered_rule_is_the_program_and_its_subcommand(command: str, prefix: str | None) -> None:
    assert offered_prefix(command) == prefix


@pytest.mark.parametrize(
    ("rules", "command", "allowed"),
    [
        (["git status"], "git status", True),
        (["git status"], "git status --short -b", True),
        (["git status"], "git statusx", False),
        (["git status"], "git stash", False),
        (["git status"], "git status; rm -rf ~", False),  # the chained part is not covered
        (["git status"], "git status && rm -rf ~", False),
        (["git status"], "git status | sh", False),
        (["git status"], "git status\nrm -rf ~", False),
        (["git status"], "git status $(rm -rf ~)", False),
        (["git status"], "git status `rm -rf ~`", False),
        (["git status"], "git status > ~/.bashrc", False),  # writes a file
        (["git status"], "git status 2>/dev/null", True),
        (["git status"], "(git status)", False),
        (["git status"], "git status 'unclosed", False),
        (["git status", "git log"], "git status && git log -3", True),
        (["ls", "wc"], "ls | wc -l", True),
        (["ls"], "ls | wc -l", False),
        ([], "git status", False),
        (["git status"], "", False),
    ],
)
def test_a_rule_covers_a_line_only_when_it_covers_every_part(rules: list[str], command: str, allowed: bool) -> None:
    assert rules_allow(rules, command) is allowed


def test_rules_are_kept_among_the_always_allow_entries() -> None:
    key = rule_key("git status")
    assert key == "builtin/run_command:git status"
    assert rule_prefix(key) == "git status"
    entries = ("builtin/show_card", key, "sampling:everything", "everything/echo")
    assert rules_in(entries) == ("git status",)


def test_a_command_call_is_auto_approved_by_its_rule_and_nothing_else_is() -> None:
    entries = (rule_key("git status"),)
    assert call_decider("run_command", None, {"command": "git status -s"}, always_allow=entries) == "always_allow"
    assert call_decider("run_command", None, {"command": "git status; rm -rf ~"}, always_allow=entries) is None
    assert call_decider("run_command", "files", {"command": "git status"}, always_allow=entries) is None
    assert call_decider("echo", None, {"command": "git status"}, always_allow=entries) is None


def test_a_command_cards_always_allow_adds_its_rule_never_the_whole_tool() -> None:
    assert call_allow_key("run_command", None, {"command": "git log -3"}) == "builtin/run_command:git log"
    assert call_allow_key("run_command", None, {"command": "ls | wc -l"}) is None
    assert call_allow_key("echo", "everything", {"message": "hi"}) == "everything/echo"
