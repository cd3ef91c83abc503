"""A fake MCP catalogue for the input box's pickers
(:class:`~desktop_agent.ui.chat.mention_source.MentionSource`): prompts,
resources and templates held in lists the test changes, and completions
from a table (values starting with what was typed), every request recorded.
The window tests against the real server-everything use the real engine."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from desktop_agent.ui.chat.mention_source import PromptEntry, ResourceEntry, TemplateEntry


@dataclass(frozen=True, slots=True)
class FakeArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class FakePrompt:
    server: str
    name: str
    description: str = ""
    arguments: tuple[FakeArgument, ...] = ()
    title: str | None = None

    @property
    def command(self) -> str:
        return f"/mcp__{self.server}__{self.name}"


@dataclass(frozen=True, slots=True)
class FakeResource:
    server: str
    uri: str
    name: str
    description: str = ""
    title: str | None = None


@dataclass(frozen=True, slots=True)
class FakeTemplate:
    server: str
    uri_template: str
    name: str
    description: str = ""
    title: str | None = None

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(re.findall(r"\{(\w+)\}", self.uri_template)))

    def expand(self, values: Mapping[str, str]) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), ""), self.uri_template)


@dataclass(frozen=True, slots=True)
class CompletionAsked:
    server: str
    ref: str
    """The prompt's name or the template's URI template."""
    argument: str
    value: str
    context: Mapping[str, str]


@dataclass
class FakeMentions:
    prompt_list: list[FakePrompt] = field(default_factory=list)
    resource_list: list[FakeResource] = field(default_factory=list)
    template_list: list[FakeTemplate] = field(default_factory=list)
    completions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(prompt name or URI template, argument) → every value it offers."""
    asked: list[CompletionAsked] = field(default_factory=list)

    def prompts(self) -> Sequence[PromptEntry]:
        return list(self.prompt_list)

    def resources(self) -> Sequence[ResourceEntry]:
        return list(self.resource_list)

    def templates(self) -> Sequence[TemplateEntry]:
        return list(self.template_list)

    async def complete(
        self, server: str, ref: PromptEntry | TemplateEntry, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        key = ref.uri_template if isinstance(ref, FakeTemplate) else ref.name
        self.asked.append(CompletionAsked(server, key, argument, value, dict(context)))
        return [v for v in self.completions.get((key, argument), []) if v.startswith(value)]
