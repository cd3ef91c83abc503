"""What the Settings dialog's Model page asks an endpoint: the
models it serves (``GET {base}/models``) and whether one tiny chat request
works. Failures come back as a :data:`CheckFailure` kind the window words
in its language, never as an exception: a wrong address is an answer here.

Also the provider presets (their documented OpenAI-compatible base URLs)
and the address check the page shows before anything is sent. The openai
SDK is imported on the first check, not with the module.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import openai

CHECK_TIMEOUT_S = 15.0


@dataclass(frozen=True, slots=True)
class Preset:
    key: str
    """Stable name (also the i18n suffix for ``custom``)."""
    label: str
    base_url: str
    needs_key: bool = True
    model: str = ""
    """The model a new user is given when choosing this provider: one the
    provider serves to every account (a cheap, general one); for a local
    server, one its own library offers (Fetch models lists what is there)."""


PRESETS: tuple[Preset, ...] = (
    Preset("openai", "OpenAI", "https://api.openai.com/v1", model="gpt-4o-mini"),
    Preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1", model="deepseek-chat"),
    Preset("dashscope", "Qwen / DashScope", "https://dashscope.aliyuncs.com/compatible-mode/v1", model="qwen-plus"),
    Preset("moonshot", "Moonshot", "https://api.moonshot.cn/v1", model="moonshot-v1-8k"),
    Preset("zhipu", "Zhipu", "https://open.bigmodel.cn/api/paas/v4", model="glm-4-flash"),
    Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", model="openai/gpt-4o-mini"),
    Preset("ollama", "Ollama", "http://localhost:11434/v1", needs_key=False, model="qwen2.5:7b"),
    Preset("lmstudio", "LM Studio", "http://localhost:1234/v1", needs_key=False, model="qwen2.5-7b-instruct"),
    Preset("vllm", "vLLM", "http://localhost:8000/v1", needs_key=False, model="Qwen/Qwen2.5-7B-Instruct"),
)


def preset_for(base_url: str) -> Preset | None:
    """The preset whose address this is (a trailing slash aside), if any."""
    url = base_url.strip().rstrip("/")
    return next((p for p in PRESETS if p.base_url == url), None)


AddressProblem = Literal["scheme", "host"]


def address_problem(url: str) -> AddressProblem | None:
    """Why ``url`` cannot be an endpoint: no ``http(s)://`` or no host."""
    url = url.strip()
    if not url.startswith(("http://", "https://")):
        return "scheme"
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    return None if host else "host"


CheckFailure = Literal["refused", "timeout", "auth", "not_found", "rate_limited", "status", "empty", "other"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    ok: bool
    latency_ms: int = 0
    answer: str = ""
    """The reply's first line (a connection test)."""
    models: tuple[str, ...] = ()
    failure: CheckFailure | None = None
    detail: str = ""
    """The server's own words or the status code, for the one line."""


def _client(base_url: str, api_key: str | None, timeout_s: float) -> openai.AsyncOpenAI:
    import openai  # here: neither the app's start nor opening Settings waits for the SDK

    # "none": local servers need no key but the SDK insists on one.
    return openai.AsyncOpenAI(
        base_url=base_url.strip().rstrip("/"), api_key=api_key or "none", timeout=timeout_s, max_retries=0
    )


def _failure(exc: Exception) -> CheckResult:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return CheckResult(False, failure="timeout")
    if isinstance(exc, openai.APIConnectionError):
        return CheckResult(False, failure="refused", detail=str(exc.__cause__ or exc))
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return CheckResult(False, failure="auth", detail=str(exc.status_code))
    if isinstance(exc, openai.NotFoundError):
        return CheckResult(False, failure="not_found", detail="404")
    if isinstance(exc, openai.RateLimitError):
        return CheckResult(False, failure="rate_limited", detail="429")
    if isinstance(exc, openai.APIStatusError):
        return CheckResult(False, failure="status", detail=str(exc.status_code))
    return CheckResult(False, failure="other", detail=type(exc).__name__)


async def list_models(base_url: str, api_key: str | None, *, timeout_s: float = CHECK_TIMEOUT_S) -> CheckResult:
    """The model ids the endpoint lists, sorted."""
    client = _client(base_url, api_key, timeout_s)
    try:
        page = await client.models.list()
        ids = sorted({m.id for m in page.data})
    except Exception as exc:  # every failure is an answer; see the module docstring
        return _failure(exc)
    finally:
        await client.close()
    if not ids:
        return CheckResult(False, failure="empty")
    return CheckResult(True, models=tuple(ids))


async def check_connection(
    base_url: str, api_key: str | None, model: str, *, timeout_s: float = CHECK_TIMEOUT_S
) -> CheckResult:
    """One tiny chat request: how long it took, and the answer's first line."""
    client = _client(base_url, api_key, timeout_s)
    started = time.monotonic()
    try:
        reply = await client.chat.completions.create(
            model=model or "default",
            messages=[{"role": "user", "content": "Reply with the single word: pong"}],
            max_tokens=8,
        )
    except Exception as exc:  # every failure is an answer; see the module docstring
        return _failure(exc)
    finally:
        await client.close()
    latency = round((time.monotonic() - started) * 1000)
    content = reply.choices[0].message.content if reply.choices else None
    answer = " ".join((content or "").split())[:60]
    return CheckResult(True, latency_ms=latency, answer=answer)

