"""Speech recognition, engine by engine, side by side in one run: accuracy,
latency, speed and memory.

On the real speech fixtures (``tests/voice/fixtures``: three Mandarin
sentences from a neural TTS, three English ones from espeak-ng), for each
engine — Whisper base (faster-whisper, int8, beam 5: the ``whisper``
engine as the app runs it), pocketsphinx, and SenseVoice where its model is
on disk:

- WER (English) and CER (Chinese, simplified), normalised as
  ``desktop_agent.testing.speech_fixtures`` says;
- end of speech → final transcript, p50/p95: the recording is whole when
  the speaker stops, so this is the time ``transcribe`` takes from then
  (what push-to-talk waits for after the VAD's own hang-over);
- real-time factor (decoding time / audio length), model load time, and the
  process's resident memory with the model loaded.

Each engine runs in its own child process, so its memory is its own. For
Whisper the child also splits one utterance's time into its stages (VAD,
features, encoder, language, decoder) and times faster-whisper's own
``transcribe(language=None)``, which runs the encoder twice, for
comparison. Targets (reported, not asserted): WER and CER ≤ 10 % with
Whisper base; end of speech → transcript ≤ 1.5 s for a 3 s utterance on 2
cores.

Run: ``.venv/bin/python benchmarks/bench_stt.py [--runs 3] [--engines whisper,pocketsphinx,sensevoice]
[--threads N] [--json]`` (the last line of ``--json`` output is the report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_agent.testing.speech_fixtures import WHISPER_BASE_DIR, error_rate, utterances
from desktop_agent.voice.pcm import RATE
from desktop_agent.voice.stt.audio import read_speech_wav

ENGINES = ("whisper", "pocketsphinx", "sensevoice")
LANGUAGES = {"whisper": ("en", "zh"), "pocketsphinx": ("en",), "sensevoice": ("en", "zh")}
"""What each engine is meant to hear (pocketsphinx's Chinese rate is kept in
the JSON, shown as "—": it hears English words in Mandarin speech)."""


def _rss_mib() -> float:
    """This process's resident memory now (Linux /proc; else the peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _recognizer(engine: str, threads: int, sensevoice_dir: str) -> Any:
    if engine == "whisper":
        from desktop_agent.voice.stt.whisper import WhisperRecognizer

        return WhisperRecognizer(model_dir=WHISPER_BASE_DIR, threads=threads)
    if engine == "sensevoice":
        from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer

        return SenseVoiceRecognizer(model_dir=Path(sensevoice_dir) if sensevoice_dir else None, threads=threads)
    from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer

    return PocketsphinxRecognizer()


async def _measure(engine: str, runs: int, threads: int, sensevoice_dir: str) -> dict[str, Any]:
    """One engine, in this (child) process."""
    said = utterances()
    audio = {u.name: read_speech_wav(u.wav) for u in said}
    rss_before = _rss_mib()
    recognizer = _recognizer(engine, threads, sensevoice_dir)
    started = time.perf_counter()
    prepare = getattr(recognizer, "prepare", None)
    if prepare is not None:
        await prepare()
    else:  # pocketsphinx loads its model at its first utterance: a short one
        await recognizer.transcribe(audio[said[0].name][: RATE // 5 * 2])
    load_s = time.perf_counter() - started
    heard: dict[str, str] = {}
    latencies: list[float] = []
    rtfs: list[float] = []
    per_utterance: dict[str, list[float]] = {}
    for _ in range(runs):
        for u in said:
            pcm = audio[u.name]
            started = time.perf_counter()
            heard[u.name] = await recognizer.transcribe(pcm)
            took = time.perf_counter() - started
            latencies.append(took)
            per_utterance.setdefault(u.name, []).append(took)
            rtfs.append(took / (len(pcm) / 2 / RATE))
    result: dict[str, Any] = {
        "engine": engine,
        "threads": threads,
        "load_s": load_s,
        "rss_mib": _rss_mib(),
        "rss_model_mib": _rss_mib() - rss_before,
        "wer_en": error_rate("en", [(u.text, heard[u.name]) for u in said if u.language == "en"]),
        "cer_zh": error_rate("zh", [(u.text, heard[u.name]) for u in said if u.language == "zh"]),
        "latency_p50_s": statistics.median(latencies),
        "latency_p95_s": _percentile(latencies, 0.95),
        "rtf_median": statistics.median(rtfs),
        "utterance_s": {u.name: len(audio[u.name]) / 2 / RATE for u in said},
        "latency_by_utterance_s": {name: statistics.median(times) for name, times in per_utterance.items()},
        "heard": heard,
    }
    if engine == "whisper":
        result["stages_s"], result["naive_s"] = _whisper_stages(recognizer, audio["en2"])
    return result


def _whisper_stages(recognizer: Any, pcm: bytes) -> tuple[dict[str, float], float]:
    """Where one utterance's time goes, and faster-whisper's own
    ``transcribe(language=None)`` (two encoder passes) on the same audio."""
    import numpy as np
    from faster_whisper import WhisperModel
    from faster_whisper.audio import pad_or_trim
    from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

    model = recognizer._model
    stages: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        stages[name] = now - mark
        mark = now

    audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    lap("convert")
    audio = np.concatenate(collect_chunks(audio, get_speech_timestamps(audio, VadOptions()))[0])
    lap("vad")
    features = model.feature_extractor(audio)
    window = pad_or_trim(features[:, : min(3000, features.shape[-1] - 1)])
    lap("features")
    encoded = WhisperModel.encode(model, window)
    lap("encoder")
    probabilities = dict(model.model.detect_language(encoded)[0])
    language = "zh" if probabilities.get("<|zh|>", 0) > probabilities.get("<|en|>", 0) else "en"
    lap("language")
    model.remember(window, encoded)
    try:
        segments, _ = model.transcribe(audio, language=language, beam_size=5, vad_filter=False)
        "".join(s.text for s in segments)
    finally:
        model.remember(None, None)
    lap("decoder")
    started = time.perf_counter()
    segments, _ = WhisperModel.transcribe(model, np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0,
                                          beam_size=5, vad_filter=True)
    "".join(s.text for s in segments)
    return stages, time.perf_counter() - started


def _child(engine: str, runs: int, threads: int, sensevoice_dir: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", engine, "--runs", str(runs), "--threads", str(threads),
         "--sensevoice-dir", sensevoice_dir],
        capture_output=True, text=True, timeout=1800, check=False,
    )
    if done.returncode != 0:
        return {"engine": engine, "error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _sensevoice_dir(given: str) -> str:
    """A SenseVoice model on disk: the folder given, or the one in the data folder."""
    if given:
        return given
    from desktop_agent.voice.stt.models import SENSEVOICE, default_store

    store = default_store()
    return str(store.folder(SENSEVOICE)) if store.ready(SENSEVOICE) else ""


def _table(results: list[dict[str, Any]]) -> str:
    head = (f"{'engine':<13}{'WER en':>8}{'CER zh':>8}{'p50 s':>8}{'p95 s':>8}{'RTF':>7}{'en2 s':>8}"
            f"{'load s':>8}{'RSS MiB':>9}")
    rows = [head, "-" * len(head)]
    for r in results:
        if "error" in r:
            rows.append(f"{r['engine']:<13}{r['error']}")
            continue
        cer = f"{100 * r['cer_zh']:>7.1f}%" if "zh" in LANGUAGES[r["engine"]] else f"{'—':>8}"
        rows.append(
            f"{r['engine']:<13}{100 * r['wer_en']:>7.1f}%{cer}{r['latency_p50_s']:>8.2f}"
            f"{r['latency_p95_s']:>8.2f}{r['rtf_median']:>7.2f}{r['latency_by_utterance_s']['en2']:>8.2f}"
            f"{r['load_s']:>8.2f}{r['rss_mib']:>9.0f}"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="times each utterance is recognised")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--threads", type=int, default=0, help="decoder threads (default: the cores available)")
    parser.add_argument("--sensevoice-dir", default="", help="a SenseVoice model folder (default: the data folder's)")
    parser.add_argument("--json", action="store_true", help="end with the report as one JSON line")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    from desktop_agent.voice.cores import available_cores

    threads = args.threads or available_cores()
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.child, args.runs, threads, args.sensevoice_dir)),
                         ensure_ascii=False))
        return 0
    sensevoice_dir = _sensevoice_dir(args.sensevoice_dir)
    results: list[dict[str, Any]] = []
    for engine in args.engines.split(","):
        if engine == "sensevoice" and not sensevoice_dir:
            results.append({"engine": engine, "error": "no SenseVoice model on disk: skipped"})
            continue
        results.append(_child(engine, args.runs, threads, sensevoice_dir))
    print(f"Speech recognition on {len(utterances())} fixtures, {args.runs} run(s) each, {threads} thread(s)")
    print(_table(results))
    for r in results:
        if "stages_s" in r:
            stages = " · ".join(f"{name} {1000 * s:.0f} ms" for name, s in r["stages_s"].items())
            print(f"whisper, en2 ({r['utterance_s']['en2']:.1f} s) by stage: {stages}; "
                  f"faster-whisper's transcribe(language=None): {r['naive_s']:.2f} s")
        if "heard" in r:
            print(f"{r['engine']} heard: " + " | ".join(f"{k}: {v}" for k, v in r["heard"].items()))
    if args.json:
        print(json.dumps({"threads": threads, "runs": args.runs, "engines": results}, ensure_ascii=False))
    return 0 if all("error" not in r or r["engine"] == "sensevoice" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
