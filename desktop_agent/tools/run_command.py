"""run_command: run a shell command for the model, after the user approved it.

It never skips approval (it can change anything). Output streams live to the
bus (``tool_output``, coalesced by the context) and into the partial-output
cache as it arrives, so an interrupt keeps what was printed;
an interrupt or a timeout stops the whole process group (see ``_process``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from desktop_agent.core.messages import OutputStream
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.redaction import Redactor
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.tools._process import ShellOutcome, StreamText, run_shell
from desktop_agent.tools.arguments import ArgumentError, NonEmptyStr, parse_arguments, tool_parameters

log = logging.getLogger(__name__)

NAME = "run_command"
MODEL_TAIL_CHARS = 8 * 1024
"""Characters of each stream the model sees (the tail)."""


class RunCommandArgs(BaseModel):
    command: NonEmptyStr = Field(description="The shell command line.")
    cwd: str | None = Field(None, description="Working folder (optional).")
    timeout_s: float | None = Field(None, gt=0, allow_inf_nan=False, description="Seconds.")


def _spec(max_timeout_s: float) -> ToolSpec:
    parameters = tool_parameters(RunCommandArgs)
    properties = parameters["properties"]
    timeout = properties["timeout_s"] if isinstance(properties, dict) else None
    assert isinstance(timeout, dict)  # the model above declares it
    timeout["description"] = f"Seconds, at most {max_timeout_s:g}."
    return ToolSpec(
        name=NAME,
        description=(
            "Run a shell command (/bin/sh -c) on the user's computer after the user approves it. "
            "Returns the exit code, stdout and stderr (long output keeps its end). "
            f"The command is stopped after timeout_s seconds (at most {max_timeout_s:g}). "
            "Background jobs that keep the output open are stopped when the command ends; "
            "redirect their output (> file 2>&1 &) to keep them running."
        ),
        parameters=parameters,
        skip_approval=False,
        # Any command at all: it may delete files, and reach the network.
        annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True),
    )


class RunCommandTool:
    """Built-in ``run_command``; implements Tool."""

    def __init__(
        self,
        *,
        max_timeout_s: float = 120,
        default_cwd: str | Path | None = None,
        eof_grace_s: float = 1.0,
        kill_grace_s: float = 2.0,
        redactor: Redactor | None = None,
    ) -> None:
        """``redactor``: the app's secrets, kept out of the command's
        environment (without one, only ``OPENAI_API_KEY`` by name)."""
        if max_timeout_s <= 0:
            raise ValueError(f"max_timeout_s must be positive, got {max_timeout_s}")
        self._max_timeout_s = float(max_timeout_s)
        self._default_cwd = None if default_cwd is None else str(default_cwd)
        self._eof_grace_s = eof_grace_s
        self._kill_grace_s = kill_grace_s
        self._spec = _spec(self._max_timeout_s)
        self._redactor = redactor or Redactor()

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def _parse(self, arguments: Mapping[str, Any]) -> tuple[str, str | None, float]:
        args = parse_arguments(RunCommandArgs, arguments)
        timeout_s = self._max_timeout_s if args.timeout_s is None else min(args.timeout_s, self._max_timeout_s)
        return args.command, args.cwd or self._default_cwd, timeout_s

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            command, cwd, timeout_s = self._parse(arguments)
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        if cwd is not None:
            folder = _existing_folder(cwd)
            if folder is None:
                return ToolResult(f"{NAME}: cwd does not exist or is not a folder: {cwd}", is_error=True)
            cwd = folder
        ctx.set_partial("stdout", "")
        ctx.set_partial("stderr", "")
        try:
            outcome = await run_shell(
                command,
                cwd=cwd,
                timeout_s=timeout_s,
                on_output=lambda stream, new, tail: _report(ctx, stream, new, tail),
                eof_grace_s=self._eof_grace_s,
                kill_grace_s=self._kill_grace_s,
                env=self._redactor.child_environment(os.environ),
            )
        except OSError as exc:
            return ToolResult(f"{NAME}: could not start the command: {exc}", is_error=True)
        log.debug("%s finished: returncode=%s timed_out=%s", NAME, outcome.returncode, outcome.timed_out)
        return ToolResult(format_outcome(outcome, timeout_s), is_error=_failed(outcome))


def _report(ctx: ToolContext, stream: OutputStream, new: str, tail: str) -> None:
    ctx.set_partial(stream, tail)  # the kept tail: what an interrupt returns
    ctx.output(stream, new)  # every character, live on the card


def _existing_folder(cwd: str) -> str | None:
    # A local stat: cheap enough to do on the loop.
    folder = Path(cwd).expanduser()
    return str(folder) if folder.is_dir() else None


def _failed(outcome: ShellOutcome) -> bool:
    return outcome.timed_out or outcome.returncode != 0


def format_outcome(outcome: ShellOutcome, timeout_s: float) -> str:
    """What the model reads: status line, then each non-empty stream's tail."""
    rc = outcome.returncode
    if outcome.timed_out:
        lines = [f"timed out after {timeout_s:g} s; the command was stopped"]
    elif rc is not None and rc < 0:
        lines = [f"killed by signal {-rc}"]
    else:
        lines = [f"exit code {rc}"]
    for name, stream in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        if stream.text or stream.cut:
            lines += [f"--- {name} ---", _model_tail(stream)]
    if not (outcome.stdout.text or outcome.stderr.text):
        lines.append("(no output)")
    if outcome.abandoned:
        lines.append(
            "note: background processes kept the output open after the command exited; they were "
            "stopped (redirect their output, e.g. > file 2>&1 &, to keep them running)"
        )
    return "\n".join(lines)


def _model_tail(stream: StreamText) -> str:
    text = stream.text.rstrip("\n")
    excess = len(text) - MODEL_TAIL_CHARS
    cut = stream.cut + max(excess, 0)
    if cut <= 0:
        return text
    return f"[… {cut} earlier characters cut …]\n{text[-MODEL_TAIL_CHARS:]}"
