"""The one alias for a JSON object, used wherever the contract is JSON
(OpenAI messages, tool schemas, the events file)."""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]
