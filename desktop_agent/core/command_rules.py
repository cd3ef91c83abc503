"""The user's always-allow rules for ``run_command`` by command prefix
(as Claude Code's ``Bash(git status:*)``): "always allow ``git status …``".

A rule is stored with the other always-allow entries (contracts §7) as
``builtin/run_command:PREFIX``, ``PREFIX`` the command's program and, for
tools that take a subcommand (git, npm, cargo…), that subcommand.

A rule is matched on the *parsed* line, never on its raw text: ``git
status; rm -rf ~`` starts with ``git status`` but its second part does
not, so it is asked about. Every part of a chained or piped line must be
covered by some rule; a line that cannot be read with confidence (a
substitution, a subshell, an unclosed quote) or that writes a file through
a redirection is never covered.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from desktop_agent.core.command_risk import RUN_COMMAND, SHELLS, CommandParseError, split_command

RULE_PREFIX = f"builtin/{RUN_COMMAND}:"
"""What a prefix rule's always-allow entry starts with."""

SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "npx", "yarn", "pnpm", "bun", "deno", "cargo", "go", "docker", "podman", "kubectl",
    "pip", "pip3", "uv", "poetry", "apt", "apt-get", "brew", "systemctl", "gh", "conda", "rustup",
    "dotnet", "make", "flatpak", "snap", "journalctl",
})
"""Programs whose first word after them says what they do (``git status``)."""

WRAPPERS = frozenset({
    "sudo", "su", "doas", "env", "xargs", "nohup", "time", "nice", "ionice", "timeout", "watch", "exec",
    "eval", "command", "builtin", "source", ".", "parallel", "strace", "chroot", "busybox",
}) | SHELLS
"""Programs that run another command: a rule for them would allow anything."""


def rule_key(prefix: str) -> str:
    """The always-allow entry for the rule ``prefix``."""
    return RULE_PREFIX + prefix


def is_rule_key(key: str) -> bool:
    return key.startswith(RULE_PREFIX) and len(key) > len(RULE_PREFIX)


def rule_prefix(key: str) -> str:
    """The prefix of a rule's entry (``git status``)."""
    return key[len(RULE_PREFIX):]


def rules_in(always_allow: Iterable[str]) -> tuple[str, ...]:
    """The prefixes of the rule entries among ``always_allow``."""
    return tuple(rule_prefix(k) for k in always_allow if is_rule_key(k))


def part_prefix(words: tuple[str, ...]) -> str | None:
    """The rule a simple command would be offered: its program, plus the
    subcommand of a :data:`SUBCOMMAND_PROGRAMS` one; None for a wrapper
    (``sudo``, ``sh``…), where a rule would allow anything."""
    if not words or words[0] in WRAPPERS or "=" in words[0]:
        return None
    if words[0] in SUBCOMMAND_PROGRAMS:
        if len(words) < 2 or words[1].startswith("-"):
            return None
        return f"{words[0]} {words[1]}"
    return words[0]


def offered_prefix(command: str) -> str | None:
    """The one rule that would cover every part of ``command``, to offer on
    its card ("Always allow ``git status …``"); None when the line cannot
    be read, writes a file, runs a wrapper, or its parts need different rules."""
    try:
        parts = split_command(command)
    except CommandParseError:
        return None
    prefixes = {part_prefix(p.words) for p in parts}
    if not parts or any(p.writes_file for p in parts) or len(prefixes) != 1:
        return None
    return prefixes.pop()


def rules_allow(prefixes: Collection[str], command: str) -> bool:
    """Whether the user's rules cover every part of ``command`` (read as
    the module says); no rules, or an unreadable line: False."""
    if not prefixes:
        return False
    try:
        parts = split_command(command)
    except CommandParseError:
        return False
    rules = [tuple(p.split()) for p in prefixes if p.split()]
    if not parts:
        return False
    return all(not part.writes_file and any(part.words[: len(r)] == r for r in rules) for part in parts)


__all__ = [
    "RULE_PREFIX",
    "is_rule_key",
    "offered_prefix",
    "part_prefix",
    "rule_key",
    "rule_prefix",
    "rules_allow",
    "rules_in",
]
