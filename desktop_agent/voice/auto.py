"""``auto``: the good online voice when it works, the offline one when not.

The user hears about a switch exactly once each way ("edge unavailable …,
speaking with espeak" / "edge is back"), not once per segment. While the
primary is down, segments go straight to the fallback (no per-segment
timeout paid); after ``retry_primary_after_s`` one segment probes the primary
again while concurrent segments keep using the fallback, so a stalled
network costs at most one slow segment per interval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from desktop_agent.core.ports import Speech, TTSEngine, TTSError
from desktop_agent.voice.cache import engine_key
from desktop_agent.voice.text import one_line

log = logging.getLogger(__name__)


class AutoEngine:
    """:class:`~desktop_agent.core.ports.TTSEngine` with a fallback.

    ``on_notice`` receives one human-readable line per switch; the clock is
    injected so tests need no waiting.
    """

    def __init__(
        self,
        primary: TTSEngine,
        fallback: TTSEngine,
        on_notice: Callable[[str], None],
        retry_primary_after_s: float = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if retry_primary_after_s < 0:
            raise ValueError(f"retry_primary_after_s must not be negative, got {retry_primary_after_s!r}")
        self._primary = primary
        self._fallback = fallback
        self._on_notice = on_notice
        self._retry_after_s = retry_primary_after_s
        self._clock = clock
        self._down_since: float | None = None
        self._probing = False

    @property
    def name(self) -> str:
        return "auto"

    @property
    def cache_key(self) -> str:
        return f"auto({engine_key(self._primary)}|{engine_key(self._fallback)})"

    @property
    def using_fallback(self) -> bool:
        """True while the primary is considered down."""
        return self._down_since is not None

    def _should_try_primary(self) -> bool:
        if self._down_since is None:
            return True
        if self._probing:
            return False
        return self._clock() - self._down_since >= self._retry_after_s

    async def synthesize(self, text: str) -> Speech:
        primary_error: str | None = None
        if self._should_try_primary():
            probe = self._down_since is not None
            self._probing = self._probing or probe
            try:
                speech = await self._primary.synthesize(text)
            except TTSError as exc:
                primary_error = str(exc)
            except Exception as exc:  # an adapter bug must not silence the fallback
                log.exception("%s engine raised a non-TTSError", self._primary.name)
                primary_error = one_line(f"{type(exc).__name__}: {exc}")
            else:
                self._primary_ok()
                return speech
            finally:
                if probe:
                    self._probing = False
            self._primary_failed(primary_error)
        try:
            return await self._fallback.synthesize(text)
        except TTSError as exc:
            if primary_error is None:
                raise
            raise TTSError(one_line(f"{exc} (and {self._primary.name}: {primary_error})")) from exc

    def _primary_failed(self, reason: str) -> None:
        was_up = self._down_since is None
        self._down_since = self._clock()
        if was_up:
            log.warning(
                "speech: %s failed (%s); falling back to %s", self._primary.name, reason, self._fallback.name
            )
            self._on_notice(
                one_line(
                    f"{self._primary.name} speech unavailable ({reason}); speaking with {self._fallback.name}"
                )
            )

    def _primary_ok(self) -> None:
        if self._down_since is not None:
            self._down_since = None
            log.info("speech: %s is back", self._primary.name)
            self._on_notice(f"{self._primary.name} speech is back")
