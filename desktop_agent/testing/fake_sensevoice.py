"""A stand-in SenseVoice model for tests: a tiny ONNX graph with the real
model's inputs, outputs and metadata, which the real sherpa-onnx loads and
decodes like the real one (the real model is 240 MB and never downloaded
in tests).

Its logits spell ``words`` when the utterance holds sound and nothing when
it is silent (the largest filter-bank feature decides), so a test sees that
the audio really reached the model. Needs the ``onnx`` package (a test
dependency).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

_SPECIAL = ["<blk>", "<s>", "</s>", "<|zh|>", "<|en|>", "<|NEUTRAL|>", "<|Speech|>", "<|withitn|>"]
"""Blank, then what SenseVoice's first four output frames carry: the
language, the emotion, the event and the text-normalisation tokens."""
_FEATURES = 560
"""80 filter-bank bins, 7 frames stacked (lfr_window_size)."""
_MAX_FRAMES = 6000
"""Output frames the stand-in can give: 6 minutes of audio (60 ms each)."""


def write_fake_sensevoice(
    folder: Path, words: Sequence[str] = ("what", "time", "is", "it"), *, model_name: str = "model.int8.onnx"
) -> Path:
    """Write ``model_name`` and ``tokens.txt`` into ``folder``; returns it.
    The utterance must last ``words`` × 120 ms or more to hold them all."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    tokens = _SPECIAL + [f"▁{w}" for w in words]
    frames = [4, 5, 6, 7]  # <|en|> <|NEUTRAL|> <|Speech|> <|withitn|>
    for i in range(len(words)):
        frames += [len(_SPECIAL) + i, 0]
    # The real model's output has four frames more than its input (the
    # language, emotion, event and normalisation queries come first), and
    # sherpa-onnx reads that many: the logits are cut to the input's length.
    heard = np.full((1, _MAX_FRAMES, len(tokens)), -10.0, dtype=np.float32)
    heard[0, :, 0] = 10.0
    for i, token in enumerate(frames):
        heard[0, i] = -10.0
        heard[0, i, token] = 10.0
    silent = np.full_like(heard, -10.0)
    silent[0, :, 0] = 10.0
    silent[0, :4] = heard[0, :4]

    def scalar(name: str, value: float) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(value, dtype=np.float32), name)

    nodes = [
        helper.make_node("ReduceMax", ["x"], ["loudest"], keepdims=1),
        helper.make_node("Clip", ["loudest", "zero", "one"], ["sound"]),
        helper.make_node("Sub", ["one", "sound"], ["quiet"]),
        helper.make_node("Mul", ["heard", "sound"], ["a"]),
        helper.make_node("Mul", ["silent", "quiet"], ["b"]),
        helper.make_node("Add", ["a", "b"], ["all"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Slice", ["shape", "one_i", "two_i"], ["frames"]),
        helper.make_node("Add", ["frames", "four_i"], ["end"]),
        helper.make_node("Slice", ["all", "zero_i", "end", "one_i"], ["logits"]),
    ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "T", _FEATURES]),
        *(helper.make_tensor_value_info(n, TensorProto.INT32, ["N"]) for n in ("x_length", "language", "text_norm")),
    ]
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "T", len(tokens)])
    initial = [numpy_helper.from_array(heard, "heard"), numpy_helper.from_array(silent, "silent"),
               scalar("zero", 0.0), scalar("one", 1.0),
               *(numpy_helper.from_array(np.array([v], dtype=np.int64), f"{n}_i")
                 for n, v in (("zero", 0), ("one", 1), ("two", 2), ("four", 4)))]
    graph = helper.make_graph(nodes, "fake_sensevoice", inputs, [output], initializer=initial)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    meta = {
        "model_type": "sense_voice_ctc", "comment": "a test stand-in", "vocab_size": str(len(tokens)),
        "lfr_window_size": "7", "lfr_window_shift": "6", "normalize_samples": "0",
        "neg_mean": ",".join(["0"] * _FEATURES), "inv_stddev": ",".join(["1"] * _FEATURES),
        "lang_auto": "0", "lang_zh": "3", "lang_en": "4", "lang_yue": "0", "lang_ja": "0", "lang_ko": "0",
        "lang_nospeech": "0", "with_itn": "7", "without_itn": "7",
    }
    for key, value in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / model_name))
    (folder / "tokens.txt").write_text("".join(f"{t} {i}\n" for i, t in enumerate(tokens)), encoding="utf-8")
    return folder
