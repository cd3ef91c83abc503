"""How much a shell command line may change, read from the line itself.

``run_command`` can run anything, so its tool-wide annotations say the worst
(destructive). Painting every card red the same way, ``date`` as red as
``rm -rf ~``, teaches the user to stop reading the warning; this reads the
command and says what *this* call may do:

- ``read_only``: every part is a known reader (``date``, ``ls``, ``cat``,
  ``git status``…) used without an option that writes;
- ``destructive``: some part deletes, overwrites or escalates (``rm``,
  ``mv``, ``dd``, ``chmod``, ``sudo``, ``git push``, ``git reset --hard``,
  ``> file``, a download piped into a shell…);
- ``changes``: anything else (unknown programs included): it may change
  things, so the card is cautious but not alarmed.

A line of several parts (``;``, ``&&``, ``||``, ``|``, ``&``, new lines)
takes its worst part. What cannot be read with confidence (an unclosed
quote, a subshell, a command substitution) is never called read-only.
It is a reading for the card and for the user's own rules, not a sandbox:
it grants nothing by itself (``core/command_rules.py`` decides what a
user's rule allows).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import Literal

CommandRisk = Literal["read_only", "changes", "destructive"]
_ORDER: dict[CommandRisk, int] = {"read_only": 0, "changes": 1, "destructive": 2}

RUN_COMMAND = "run_command"
"""The built-in tool whose calls are read here (``tools/run_command.py``)."""

READERS = frozenset({
    "date", "ls", "cat", "pwd", "echo", "printf", "head", "tail", "wc", "whoami", "uname", "df", "du",
    "which", "id", "uptime", "printenv", "file", "stat", "grep", "egrep", "fgrep", "rg", "sort", "uniq",
    "cut", "tr", "true", "false", "test", "[", "basename", "dirname", "realpath", "readlink", "cal",
    "free", "ps", "lsblk", "tree", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "seq", "nproc",
    "locale", "lscpu", "jq", "column", "nl", "less", "more", "type", "hostname", "find", "sed", "groups",
    "ping", "nslookup", "dig", "host", "git",
})
"""Programs that only read (some with exceptions: :data:`_WRITING_OPTIONS`, git's subcommands)."""

DESTROYERS = frozenset({
    "rm", "rmdir", "mv", "dd", "chmod", "chown", "chgrp", "sudo", "su", "doas", "shred", "truncate",
    "kill", "killall", "pkill", "reboot", "shutdown", "halt", "poweroff", "fdisk", "parted", "wipefs",
    "mkswap", "umount", "unlink", "srm",
})
"""Programs that delete, overwrite, take privileges or stop things."""

NETWORK = frozenset({
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "ping", "nc", "ncat", "telnet", "ftp", "nslookup",
    "dig", "host", "http", "https",
})
"""Programs that reach outside this computer."""

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"})
"""Interpreters: what they run is not on the line (piped into, a download is destructive)."""

_WRITING_OPTIONS: dict[str, tuple[str, ...]] = {
    "sed": ("-i", "--in-place"),
    "sort": ("-o", "--output"),
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"),
    "date": ("-s", "--set"),
}
"""Options that make a reader write (a prefix of the word: ``-i.bak``)."""

GIT_READERS = frozenset({
    "status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "describe", "shortlog",
    "grep", "reflog", "cat-file", "whatchanged", "help", "version",
})
GIT_LISTERS = frozenset({"branch", "tag", "remote", "stash", "config", "worktree"})
"""git subcommands that only list when given listing options only (:data:`_GIT_LIST_OPTIONS`)."""
_GIT_LIST_OPTIONS = frozenset({
    "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list", "--show-current",
    "--contains", "--merged", "--no-merged", "--sort", "--format", "--get", "--get-all", "-n",
})
_GIT_LIST_WORDS = frozenset({"list", "show"})
"""``git stash list``, ``git remote show``, ``git worktree list``."""
GIT_DESTROYERS = frozenset({"push", "clean", "rm", "mv", "filter-branch", "gc", "prune"})
GIT_NETWORK = frozenset({"push", "pull", "fetch", "clone", "ls-remote", "submodule"})

_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`|[<>]\(([^()]*)\)")
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


class CommandParseError(ValueError):
    """The line cannot be read with confidence (an unclosed quote, a subshell)."""


@dataclass(frozen=True, slots=True)
class CommandPart:
    """One simple command of a line: its words (quotes removed) and whether
    it writes a file through a redirection."""

    words: tuple[str, ...]
    writes_file: bool = False
    piped_into: bool = False
    """Its input is the previous part's output (``a | b``)."""

    @property
    def program(self) -> str:
        """The program's name without its folder (``/bin/rm`` is ``rm``)."""
        return os.path.basename(self.words[0]) if self.words else ""


def split_command(command: str) -> tuple[CommandPart, ...]:
    """The simple commands of ``command`` in order; raises
    :class:`CommandParseError` for what cannot be read with confidence:
    an unclosed quote, a subshell or group, a command or process
    substitution, a here-document."""
    if _SUBSTITUTION.search(command) or "`" in command or "$(" in command:
        raise CommandParseError("a command substitution")
    parts: list[CommandPart] = []
    for line in command.replace("\r", "\n").split("\n"):
        parts.extend(_split_line(line))
    return tuple(p for p in parts if p.words)


def _split_line(line: str) -> list[CommandPart]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise CommandParseError(str(exc)) from exc
    parts: list[CommandPart] = []
    words: list[str] = []
    writes = piped = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _is_punctuation(token):
            if "(" in token or ")" in token or "<<" in token:
                raise CommandParseError(f"cannot read {token!r}")
            if "<" in token or ">" in token:
                if words and words[-1].isdigit():
                    words.pop()  # the descriptor of ``2>``
                target = tokens[i + 1] if i + 1 < len(tokens) else ""
                if ">" in token and not _harmless_target(token, target):
                    writes = True
                i += 2
                continue
            parts.append(CommandPart(tuple(words), writes, piped))
            words, writes, piped = [], False, token == "|" or token == "|&"
        else:
            words.append(token)
        i += 1
    parts.append(CommandPart(tuple(words), writes, piped))
    return parts


def _is_punctuation(token: str) -> bool:
    return bool(token) and all(c in "();<>|&" for c in token)


def _harmless_target(operator: str, target: str) -> bool:
    return target in _HARMLESS_TARGETS or (operator.endswith("&") and target.isdigit())


def classify_command(command: str) -> CommandRisk:
    """The worst of the line's parts (see the module's account); a line
    that cannot be read is ``changes`` at least, ``destructive`` when what
    it substitutes is."""
    try:
        parts = split_command(command)
    except CommandParseError:
        inner = [next(g for g in m.groups() if g is not None) for m in _SUBSTITUTION.finditer(command)]
        worst: CommandRisk = "changes"
        for text in inner:
            worst = _worse(worst, classify_command(text))
        return worst
    worst = "read_only"
    for index, part in enumerate(parts):
        risk = part_risk(part)
        if part.program in SHELLS and part.piped_into and any(p.program in NETWORK for p in parts[:index]):
            risk = "destructive"  # curl … | sh: runs what was downloaded
        worst = _worse(worst, risk)
    return worst


def reaches_outside(command: str) -> bool:
    """Whether some part of the line uses the network (``curl``, ``ssh``,
    ``git push``…); an unreadable line is judged by its words."""
    try:
        parts = split_command(command)
    except CommandParseError:
        return any(os.path.basename(w) in NETWORK for w in command.replace("(", " ").replace("`", " ").split())
    for part in parts:
        if part.program in NETWORK:
            return True
        if part.program == "git" and len(part.words) > 1 and part.words[1] in GIT_NETWORK:
            return True
    return False


WRAPPERS = frozenset({"xargs", "env", "nohup", "time", "nice", "ionice", "timeout", "watch", "exec", "command"})
"""Programs that run the command that follows them: they are judged by it."""
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def part_risk(part: CommandPart) -> CommandRisk:
    """What one simple command may do (its redirection included); a
    wrapper (``xargs rm``, ``timeout 5 rm``) and ``find -exec rm`` are
    judged by the command they run, at least "may change things"."""
    program = part.program
    if part.writes_file or program in DESTROYERS or program.startswith("mkfs"):
        return "destructive"
    if program in WRAPPERS:
        inner = _wrapped(part.words[1:])
        return _worse("changes" if program == "xargs" or not inner else "read_only", part_risk(CommandPart(inner)))
    if program == "find" and _FIND_RUNS & set(part.words):
        start = next(i for i, w in enumerate(part.words) if w in _FIND_RUNS) + 1
        inner = tuple(w for w in part.words[start:] if w not in (";", "+", "{}"))
        return _worse("changes", part_risk(CommandPart(inner)))
    if program == "git":
        return _git_risk(part.words[1:])
    if program not in READERS:
        return "changes"
    writing = _WRITING_OPTIONS.get(program, ())
    if program == "find" and "-delete" in part.words:
        return "destructive"
    if any(w.startswith(option) for w in part.words[1:] for option in writing if option):
        return "changes"
    if program == "hostname" and any(not w.startswith("-") for w in part.words[1:]):
        return "changes"  # ``hostname NAME`` renames the computer
    return "read_only"


def _wrapped(words: tuple[str, ...]) -> tuple[str, ...]:
    """The command a wrapper runs: its words from the first that is not an
    option, a number (``timeout 5``) or an assignment (``env A=1``)."""
    for index, word in enumerate(words):
        if not (word.startswith("-") or word.replace(".", "", 1).isdigit() or "=" in word):
            return words[index:]
    return ()


def _git_risk(args: tuple[str, ...]) -> CommandRisk:
    if not args:
        return "read_only"
    sub, rest = args[0], args[1:]
    if sub in GIT_DESTROYERS:
        return "destructive"
    if sub == "reset" and "--hard" in rest:
        return "destructive"
    if sub in ("checkout", "restore") and ("--" in rest or "." in rest or "-f" in rest or "--force" in rest):
        return "destructive"
    if sub == "branch" and any(w in ("-D", "--delete", "-d") for w in rest):
        return "destructive" if "-D" in rest else "changes"
    if sub == "stash" and rest[:1] in (("drop",), ("clear",)):
        return "destructive"
    if sub in GIT_READERS and not any(w.startswith("--output") for w in rest):
        return "read_only"
    if sub in GIT_LISTERS and _git_lists(sub, rest):
        return "read_only"
    return "changes"


def _git_lists(sub: str, rest: tuple[str, ...]) -> bool:
    """``git branch``, ``git tag -l``, ``git stash list``, ``git remote -v``:
    only listing (``git stash`` alone stashes; ``git branch NAME`` makes one)."""
    if sub in ("stash", "worktree"):
        return bool(rest) and rest[0] in _GIT_LIST_WORDS
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "-l", "--list")
    if sub == "remote" and rest[:1] in (("show",), ("get-url",)):
        return True
    return all(w.split("=", 1)[0] in _GIT_LIST_OPTIONS for w in rest)


def _worse(a: CommandRisk, b: CommandRisk) -> CommandRisk:
    return a if _ORDER[a] >= _ORDER[b] else b


__all__ = [
    "RUN_COMMAND",
    "CommandParseError",
    "CommandPart",
    "CommandRisk",
    "classify_command",
    "part_risk",
    "reaches_outside",
    "split_command",
]
