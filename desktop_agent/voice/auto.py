"""``auto``: the good online voice when it works, the offline ones when not.

The offline side is a chain tried in order, per segment: Piper (natural)
when its voice for that segment's language is on disk, then espeak-ng
(always there). An engine in the chain with a ``can_speak(text)`` method is
skipped for a text it cannot say now (Piper without that voice: no download
in the middle of a reply); one that fails on a segment hands it to the next.

The user hears about the fallback once, as a typed notice
(:data:`SpeechNotice`) that the front end words in its own language ("Online
voice unavailable — using the offline voice (espeak-ng)", or "(Piper)" when
Piper speaks first); the reason (an
exception's text, often an ``ssl.SSLContext`` repr) is for the log only,
never for that line. One engine announces its first fallback and nothing
after it: a network that comes and goes flips the engine back and forth,
and each switch (with its reason) is logged, but saying so every time would
be noise. ``Services`` also keeps a remade engine (a settings change) from
saying it again, so it is once per session.

While the primary is down, segments go straight to the fallback (no
per-segment timeout paid); after ``retry_primary_after_s`` one segment
probes the primary again while concurrent segments keep using the fallback,
so a stalled network costs at most one slow segment per interval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal

from desktop_agent.core.ports import Speech, StreamingTTSEngine, TTSEngine, TTSError
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.voice.cache import engine_key
from desktop_agent.voice.text import one_line

log = logging.getLogger(__name__)

SpeechNotice = Literal["speech_offline_fallback", "speech_offline_fallback_piper"]
"""What the voice layer tells the user, as a kind the front end words (each
kind is also the UI text's key in :mod:`desktop_agent.texts`):
``speech_offline_fallback``: the online voice failed; espeak-ng speaks;
``speech_offline_fallback_piper``: the same, and Piper speaks."""
_NOTICE_BY_ENGINE: dict[str, SpeechNotice] = {"piper": "speech_offline_fallback_piper"}


class AutoEngine:
    """:class:`~desktop_agent.core.ports.TTSEngine` with fallbacks.

    ``fallback``: one engine or a chain (see the module's docstring).
    ``on_notice`` is told ``speech_offline_fallback`` (or its Piper form) the
    first time the primary fails (never again for this engine; the return of
    the primary and later switches are logged only). The clock is injected
    so tests need no waiting.
    """

    def __init__(
        self,
        primary: TTSEngine,
        fallback: TTSEngine | Sequence[TTSEngine],
        on_notice: Callable[[SpeechNotice], None],
        retry_primary_after_s: float = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if retry_primary_after_s < 0:
            raise ValueError(f"retry_primary_after_s must not be negative, got {retry_primary_after_s!r}")
        self._primary = primary
        self._chain: tuple[TTSEngine, ...] = tuple(fallback) if isinstance(fallback, Sequence) else (fallback,)
        if not self._chain:
            raise ValueError("AutoEngine needs at least one fallback engine")
        self._on_notice = on_notice
        self._retry_after_s = retry_primary_after_s
        self._clock = clock
        self._down_since: float | None = None
        self._probing = False
        self._announced = False

    @property
    def name(self) -> str:
        return "auto"

    @property
    def cache_key(self) -> str:
        return "auto(" + "|".join(engine_key(e) for e in (self._primary, *self._chain)) + ")"

    @property
    def using_fallback(self) -> bool:
        """True while the primary is considered down."""
        return self._down_since is not None

    @property
    def streaming(self) -> bool:
        """The next segment streams: the primary is down (and not due for a
        probe) and every offline engine streams (Piper, espeak-ng)."""
        return not self._should_try_primary() and all(isinstance(e, StreamingTTSEngine) for e in self._chain)

    async def open_stream(self, text: str) -> SpeechStream:
        """An offline engine's stream (only asked for while :attr:`streaming`)."""
        errors: list[tuple[str, str]] = []
        for engine in self._offline_for(text):
            if not isinstance(engine, StreamingTTSEngine):
                raise TTSError(f"{engine.name} does not stream")
            try:
                return await engine.open_stream(text)
            except TTSError as exc:
                errors.append((engine.name, str(exc)))
                log.info("speech: %s failed on a segment (%s); trying the next offline engine", engine.name, exc)
        raise _chain_error(errors)

    def _should_try_primary(self) -> bool:
        if self._down_since is None:
            return True
        if self._probing:
            return False
        return self._clock() - self._down_since >= self._retry_after_s

    async def synthesize(self, text: str) -> Speech:
        primary_error: str | None = None
        detail = ""
        if self._should_try_primary():
            probe = self._down_since is not None
            self._probing = self._probing or probe
            try:
                speech = await self._primary.synthesize(text)
            except TTSError as exc:
                primary_error = str(exc)
                detail = _whole_cause(exc)
            except Exception as exc:  # an adapter bug must not silence the fallback
                log.exception("%s engine raised a non-TTSError", self._primary.name)
                primary_error = one_line(f"{type(exc).__name__}: {exc}")
            else:
                self._primary_ok()
                return speech
            finally:
                if probe:
                    self._probing = False
            self._primary_failed(detail or primary_error, self._offline_for(text)[0].name)
        errors: list[tuple[str, str]] = []
        for engine in self._offline_for(text):
            try:
                return await engine.synthesize(text)
            except TTSError as exc:
                errors.append((engine.name, str(exc)))
        raise _chain_error(errors, None if primary_error is None else (self._primary.name, primary_error))

    def _offline_for(self, text: str) -> tuple[TTSEngine, ...]:
        """The offline engines that may say ``text`` now, in order; the last
        one always (it is the one that tells why, if all fail)."""
        *first, last = self._chain
        usable = [e for e in first if getattr(e, "can_speak", lambda _t: True)(text)]
        return (*usable, last)

    def _primary_failed(self, reason: str, fallback: str) -> None:
        """``reason`` is for the log only (the user gets a notice kind)."""
        was_up = self._down_since is None
        self._down_since = self._clock()
        if not was_up:
            return
        log.warning("speech: %s failed (%s); falling back to %s", self._primary.name, reason, fallback)
        if not self._announced:
            self._announced = True
            self._on_notice(_NOTICE_BY_ENGINE.get(fallback, "speech_offline_fallback"))

    def _primary_ok(self) -> None:
        if self._down_since is not None:
            self._down_since = None
            log.info("speech: %s is back", self._primary.name)


def _chain_error(offline: list[tuple[str, str]], primary: tuple[str, str] | None = None) -> TTSError:
    """Each offline engine tried, in order, and why it failed; the last
    one's reason comes first (it is the one always tried), then the others'
    and the primary's: ``espeak-ng not found (and piper: …) (and edge: …)``."""
    *others, (_, main) = offline
    if primary is not None:
        others.append(primary)
    return TTSError(one_line(main + "".join(f" (and {name}: {why})" for name, why in others)))


def _whole_cause(error: TTSError) -> str:
    """The adapter's original exception, unshortened (a TTSError's own text
    is cut to one bus-sized line), for the log; empty when it has none."""
    cause = error.__cause__
    if cause is None:
        return ""
    return " ".join(f"{type(cause).__name__}: {cause}".split())
