"""A fake MCP catalogue for the input box's pickers
(:class:`~desktop_agent.ui.chat.mention_source.MentionSource`): prompts,
resources and templates held in lists the test changes, and completions
from a table (values starting with what was typed), every request recorded.
The window tests against the real server-everything use the real engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from desktop_agent.mcp_engine.catalog import PromptArgument, PromptInfo, ResourceInfo, TemplateInfo


def FakeArgument(name: str, description: str = "", required: bool = False) -> PromptArgument:
    """The engine's record with a test's defaults."""
    return PromptArgument(name, description, required)


def FakePrompt(
    server: str, name: str, description: str = "", arguments: tuple[PromptArgument, ...] = (), title: str | None = None
) -> PromptInfo:
    return PromptInfo(server, name, title, description, arguments)


def FakeResource(server: str, uri: str, name: str, description: str = "", title: str | None = None) -> ResourceInfo:
    return ResourceInfo(server, uri, name, title, description, None)


def FakeTemplate(
    server: str, uri_template: str, name: str, description: str = "", title: str | None = None
) -> TemplateInfo:
    return TemplateInfo(server, uri_template, name, title, description, None)


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
    prompt_list: list[PromptInfo] = field(default_factory=list)
    resource_list: list[ResourceInfo] = field(default_factory=list)
    template_list: list[TemplateInfo] = field(default_factory=list)
    completions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(prompt name or URI template, argument) → every value it offers."""
    asked: list[CompletionAsked] = field(default_factory=list)

    def prompts(self) -> Sequence[PromptInfo]:
        return list(self.prompt_list)

    def resources(self) -> Sequence[ResourceInfo]:
        return list(self.resource_list)

    def templates(self) -> Sequence[TemplateInfo]:
        return list(self.template_list)

    async def complete(
        self, server: str, ref: PromptInfo | TemplateInfo, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        key = ref.uri_template if isinstance(ref, TemplateInfo) else ref.name
        self.asked.append(CompletionAsked(server, key, argument, value, dict(context)))
        return [v for v in self.completions.get((key, argument), []) if v.startswith(value)]
