"""Stream chunks read as the JSON they are, not built into the SDK's models.

The openai SDK builds every chunk of a streamed reply into a
``ChatCompletionChunk`` (pydantic's ``construct``, which inspects each
field's type on every call): in ``benchmarks/bench_ui.py``, with a reply
streaming at 200 tokens a second, py-spy found ~30% of the window thread's
busy time there, as much as laying out and painting the reply. The provider reads five fields of a
chunk, so :class:`LightChunksClient` gives it the chunk's JSON behind
attribute access (:class:`Fields`) and leaves every other response to the
SDK. The SDK still sends the request, retries, and raises its errors (an
``error`` event in the stream too: it checks for one before building).
"""

from __future__ import annotations

from typing import Any

import openai
from openai.types.chat import ChatCompletionChunk


class Fields:
    """A JSON object's members as attributes, as the SDK's unvalidated
    models give them: a member that is not there is None; an object or a
    list of objects in it reads the same way; anything else as it came."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        return _read(self._data.get(name))

    def __repr__(self) -> str:
        return f"Fields({self._data!r})"


def _read(value: object) -> Any:
    if isinstance(value, dict):
        return Fields(value)
    if isinstance(value, list):
        return [_read(item) for item in value]
    return value


class LightChunksClient(openai.AsyncOpenAI):
    """The SDK's client, handing stream chunks over as :class:`Fields`.
    (A copy made by ``with_options`` is one too.)"""

    def _process_response_data(self, **kwargs: Any) -> Any:  # (the SDK's keywords, passed on)
        data = kwargs.get("data")
        if kwargs.get("cast_to") is ChatCompletionChunk and isinstance(data, dict):
            return Fields(data)
        return super()._process_response_data(**kwargs)
