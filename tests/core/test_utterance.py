from __future__ import annotations

from desktop_agent.core.utterance import UtteranceDetector, UtteranceEvent, UtteranceTimings

FRAME = 960  # 30 ms


class Loudness:
    """A classifier that calls a frame speech when its first byte is non-zero."""

    frame_bytes = FRAME

    def is_speech(self, frame: bytes) -> bool:
        return frame[0] != 0


def frames(pattern: str) -> bytes:
    """``s`` a speech frame, ``.`` a silent one."""
    return b"".join((b"\x01" if c == "s" else b"\x00") * FRAME for c in pattern)


def test_an_utterance_starts_after_min_speech_and_ends_after_the_silence() -> None:
    detector = UtteranceDetector(Loudness(), UtteranceTimings(min_speech_ms=90, end_silence_ms=90, pre_roll_ms=60))
    events = detector.feed(frames("....sss" + "s.s" + "..."))
    assert [e.type for e in events] == ["speech_start", "utterance_end"]
    # Two frames of pre-roll, then everything from the first speech frame to the end.
    assert events[1].pcm == frames("..sss" + "s.s" + "...")


def test_a_click_shorter_than_min_speech_starts_nothing() -> None:
    detector = UtteranceDetector(Loudness(), UtteranceTimings(min_speech_ms=120))
    assert detector.feed(frames("ss...ss.s....")) == []
    assert not detector.in_speech


def test_frames_may_arrive_in_any_chunking() -> None:
    timings = UtteranceTimings(min_speech_ms=60, end_silence_ms=60)
    whole = UtteranceDetector(Loudness(), timings).feed(frames("..ssss.."))
    detector = UtteranceDetector(Loudness(), timings)
    data = frames("..ssss..")
    pieces: list[UtteranceEvent] = []
    for i in range(0, len(data), 701):
        pieces.extend(detector.feed(data[i : i + 701]))
    assert pieces == whole


def test_no_speech_is_said_once_after_the_start_timeout() -> None:
    detector = UtteranceDetector(Loudness(), UtteranceTimings(start_timeout_ms=150))
    assert [e.type for e in detector.feed(frames("." * 20))] == ["no_speech"]
    assert detector.feed(frames("ssssssss")) == []


def test_a_long_utterance_is_cut_at_the_maximum() -> None:
    detector = UtteranceDetector(Loudness(), UtteranceTimings(min_speech_ms=30, max_utterance_ms=300))
    events = detector.feed(frames("s" * 30))
    assert [e.type for e in events][:2] == ["speech_start", "utterance_end"]
    assert len(events[1].pcm) == 10 * FRAME


def test_speech_with_a_dropped_frame_starts_at_once() -> None:
    # A VAD drops single frames inside words; "in a row" waited for the
    # first unbroken run (barge-in fired ~900 ms into "what time is it").
    detector = UtteranceDetector(Loudness(), UtteranceTimings(min_speech_ms=120, pre_roll_ms=30))
    events = detector.feed(frames(".sss.s"))
    assert [e.type for e in events] == ["speech_start"]
    assert detector.partial() == frames(".sss.s")


def test_real_speech_starts_within_the_onset_window() -> None:
    from pathlib import Path

    from desktop_agent.voice.pcm import read_wav16
    from desktop_agent.voice.vad import WebRtcVad

    pcm = read_wav16(Path(__file__).parents[1] / "voice" / "data" / "what_time.wav")
    vad = WebRtcVad()
    detector = UtteranceDetector(vad, UtteranceTimings(min_speech_ms=150))
    frame = vad.frame_bytes
    started = next(i for i in range(0, len(pcm), frame) if detector.feed(pcm[i : i + frame]))
    onset = next(i for i in range(0, len(pcm), frame) if WebRtcVad().is_speech(pcm[i : i + frame]))
    assert (started - onset) // frame * 30 <= 150  # ms of audio after the first speech frame


def test_nothing_is_kept_before_speech_starts() -> None:
    detector = UtteranceDetector(Loudness())
    detector.feed(frames("..s"))
    assert detector.partial() == b""
