"""The saved conversations as the window's sidebar uses them:
list, search, open, rename, delete with undo, export and import.

One object between the window and the store, so the window stays ignorant
of SQLite and of how a stored conversation becomes a running one (that is
the services' job: :meth:`Services.resume_conversation`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop_agent.core.conversation import Conversation
from desktop_agent.core.plain_text import plain
from desktop_agent.storage.conversations import ConversationStore, ConversationSummary, SearchHit
from desktop_agent.storage.user_files import read_user_text

if TYPE_CHECKING:
    from desktop_agent.storage.conversation_export import Imported

ExportKind = Literal["markdown", "json"]


class ConversationLibrary:
    def __init__(self, store: ConversationStore, open_stored: Callable[[str], Conversation]) -> None:
        self._store = store
        self._open_stored = open_stored

    def summaries(self) -> list[ConversationSummary]:
        """Every conversation, its title as a plain label (titles come from
        the first user message, Markdown and all: stripped here, when shown,
        so titles stored before are shown plain too)."""
        return [replace(s, title=plain(s.title)) for s in self._store.conversations()]

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages matching ``query`` (on their raw text); the titles plain,
        the messages' words as stored (the sidebar marks the match on them)."""
        return [replace(h, title=plain(h.title)) for h in self._store.search(query, limit)]

    def open(self, conversation_id: str) -> Conversation | None:
        """The stored conversation, ready to run turns; None when it is gone."""
        if not self._store.exists(conversation_id):
            return None
        return self._open_stored(conversation_id)

    def rename(self, conversation_id: str, title: str) -> bool:
        if not title.strip():
            return False
        self._store.rename(conversation_id, title)
        return True

    def delete(self, conversation_id: str) -> None:
        self._store.delete(conversation_id)

    def undelete(self, conversation_id: str) -> None:
        self._store.undelete(conversation_id)

    def export(self, conversation_id: str, kind: ExportKind) -> str | None:
        """The conversation as Markdown or JSON, the app's secrets replaced
        (rows saved before they were redacted on the way in included)."""
        stored = self._store.load(conversation_id)
        if stored is None:
            return None
        from desktop_agent.storage import conversation_export as export

        text = export.to_markdown(stored) if kind == "markdown" else export.to_json(stored)
        return self._store.redact(text)

    def export_to(self, conversation_id: str, path: Path, kind: ExportKind) -> bool:
        text = self.export(conversation_id, kind)
        if text is None:
            return False
        path.write_text(text, encoding="utf-8")
        return True

    def import_text(self, text: str, *, as_copy: bool = False) -> str:
        """Add the conversation in an exported JSON file (or a bare OpenAI
        message list) as a new one; its id. Raises ``ConversationFileError``
        (one line; nothing stored, the other conversations untouched), and
        its ``AlreadyImported`` when the conversation is here already
        (unless ``as_copy``): importing a file twice made two same-titled
        entries before. The conversation keeps the id it was exported with
        while that is free, so a second import finds it by id; one from
        elsewhere is found by its title and messages."""
        # Here, not at the top: the import's schema (pydantic models) costs an
        # idle window ~6 MiB it only needs when a file is imported.
        from desktop_agent.storage import conversation_export as export

        imported = export.from_json(text)
        if not as_copy:
            existing = self._same_as(imported)
            if existing is not None:
                raise export.AlreadyImported(existing, imported.title)
        source = imported.source_id
        conversation_id = source if source is not None and not self._store.exists(source) else uuid.uuid4().hex
        if not self._store.add(conversation_id, imported.title, imported.messages, imported.events):
            raise export.ConversationFileError(
                "saved conversations cannot be changed now, so nothing was imported", "conv_import_read_only")
        return conversation_id

    def import_file(self, path: Path, *, as_copy: bool = False) -> str:
        """:meth:`import_text` of the file at ``path``: a regular file of at
        most :data:`~desktop_agent.storage.conversation_export.IMPORT_MAX_BYTES`
        (a named pipe would hang the window), UTF-8. Raises
        ``ConversationFileError`` or ``UserFileError``."""
        from desktop_agent.storage.conversation_export import IMPORT_MAX_BYTES

        return self.import_text(read_user_text(path, limit=IMPORT_MAX_BYTES, encoding="utf-8-sig"), as_copy=as_copy)

    def _same_as(self, imported: Imported) -> str | None:
        """The id of a conversation shown in the sidebar that ``imported``
        is: the same id, or the same title and messages (only same-titled
        ones are loaded to compare)."""
        shown = self._store.conversations()
        if imported.source_id is not None and any(s.id == imported.source_id for s in shown):
            return imported.source_id
        for summary in shown:
            if summary.title == imported.title:
                stored = self._store.load(summary.id)
                if stored is not None and stored.messages == imported.messages:
                    return summary.id
        return None
