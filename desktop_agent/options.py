"""Command-line options shared by the window and the headless mode (contracts
§10), and the whole command line's parser: the entry point parses a launch
with it, and a running window parses a later launch's line with it too.
Kept free of heavy imports so the window's start-up does not pay for openai or
mcp before it shows."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from desktop_agent.storage.limits import (
    APPROVAL_TIMEOUT_LIMIT_S,
    MAX_STEPS_LIMIT,
    MAX_TOKENS_LIMIT,
    REQUEST_TIMEOUT_LIMIT_S,
)


def build_parser() -> argparse.ArgumentParser:
    """``desktop-agent``'s whole command line: the shared options, ``--cli``
    and the window's own."""
    parser = argparse.ArgumentParser(
        prog="desktop-agent",
        description="Desktop voice assistant for any OpenAI-compatible model, with MCP tools and approvals.",
    )
    parser.add_argument("--cli", action="store_true", help="run headless in the terminal (no window)")
    add_arguments(parser)
    gui = parser.add_argument_group("window options")
    gui.add_argument("--screenshot", metavar="PNG", help="save a screenshot of the window once shown")
    gui.add_argument("--quit-after-ms", type=int, metavar="MS", help="close the window after this many ms")
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prompt", help="run one turn with this user message, then exit")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="model name; 'demo' is the offline demo model")
    parser.add_argument("--api-key", help="API key (default: settings, then OPENAI_API_KEY)")
    parser.add_argument("--approve", choices=("ask", "all", "none", "voice"), default="ask",
                        help="ask on the terminal (default), approve everything, reject everything, "
                             "or answer each approval by recognising --approval-audio")
    parser.add_argument("--approval-timeout", type=_timeout_s, metavar="S",
                        help="seconds before an unanswered approval counts as rejected (default 300)")
    parser.add_argument("--events-jsonl", type=Path, metavar="PATH",
                        help="append every bus message as one JSON object per line")
    parser.add_argument("--history-json", type=Path, metavar="PATH",
                        help="write the conversation history (OpenAI messages) when the run ends")
    parser.add_argument("--audit-log", type=Path, metavar="PATH",
                        help="append every approval decision as one JSON line")
    parser.add_argument("--mcp-config", type=Path, metavar="PATH", help="MCP servers file (mcpServers JSON)")
    parser.add_argument("--tts", choices=("auto", "edge", "espeak", "piper", "none"), help="speech engine")
    parser.add_argument("--tts-voice", metavar="NAME|FILE.onnx",
                        help="Piper's voice for the language it speaks (e.g. en_US-joe-medium, zh_CN-huayan-medium, "
                             "a FILE.onnx with its .onnx.json beside it); a name is downloaded on first use")
    parser.add_argument("--max-steps", type=_positive_int, metavar="N", help="agent step limit")
    parser.add_argument("--max-tokens", type=_max_tokens, metavar="N",
                        help="the longest reply one request may get, sent as max_tokens (default: the setting, 4096)")
    parser.add_argument("--request-timeout", type=_request_timeout_s, metavar="S",
                        help="seconds without a byte from the model before its request fails "
                             "(default: the setting, 120)")
    parser.add_argument("--skills", metavar="all|none|NAME[,NAME...]",
                        help="enabled skills (default: the setting; with no setting, all)")
    parser.add_argument("--stt", metavar="auto|whisper|sensevoice|pocketsphinx|openai",
                        help="speech recognition engine (default: the setting; auto: Whisper when its model "
                             "is on disk, else SenseVoice when its model is, else pocketsphinx)")
    parser.add_argument("--stt-model", metavar="NAME|DIR",
                        help="--stt whisper: base or small (downloaded on first use from the setting "
                             "stt_model_source) or DIR, a CTranslate2 Whisper model folder used as it is; "
                             "--stt openai: the endpoint's model (default: the setting, then whisper-1)")
    parser.add_argument("--audio-in", type=Path, metavar="FILE.wav",
                        help="recognise the file and use it as the user's message; one turn, then exit")
    parser.add_argument("--approval-audio", type=Path, metavar="FILE.wav",
                        help="with --approve voice: the recorded answer to every approval")
    parser.add_argument("--elicit", choices=("decline", "defaults"), default="decline",
                        help="how an MCP server's form (elicitation) is answered: decline it (default) or accept "
                             "the schema's defaults (declined when a required field has none; a web address to "
                             "open is always declined)")
    parser.add_argument("--sign-in", metavar="SERVER",
                        help="sign in to a remote MCP server first: the address to open in a browser is printed "
                             "on stderr and the answer awaited (at most 300 s); then the run goes on")
    parser.add_argument("--list-tools", action="store_true",
                        help="print every tool with its server and whether it needs approval, then exit")
    parser.add_argument("--list-prompts", action="store_true",
                        help="print every MCP prompt (server, name, description), then exit")
    parser.add_argument("--list-resources", action="store_true",
                        help="print every MCP resource and resource template (server, URI, name), then exit")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation (a demo turn through the MCP time server, an offscreen "
                             "window, the audio backend, espeak-ng): one line per check, exit 0 when all hold")


def _timeout_s(text: str) -> float:
    return _seconds(text, APPROVAL_TIMEOUT_LIMIT_S)


def _request_timeout_s(text: str) -> float:
    return _seconds(text, REQUEST_TIMEOUT_LIMIT_S)


def _seconds(text: str, limit: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    # NaN compares false with everything, so it would pass a plain ``<= 0``.
    if not math.isfinite(value) or not 0 < value <= limit:
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds, above 0 and at most {limit:g}: {text!r}"
        )
    return value


def _positive_int(text: str) -> int:
    return _whole(text, MAX_STEPS_LIMIT)


def _max_tokens(text: str) -> int:
    return _whole(text, MAX_TOKENS_LIMIT)


def _whole(text: str, limit: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= limit:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {limit}: {text!r}")
    return value
