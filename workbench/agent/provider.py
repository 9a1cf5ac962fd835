"""The one small interface every model provider implements, and what it may raise."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from workbench.agent.conversation import Delta, ModelRequest, ModelResponse

DeltaCallback = Callable[[Delta], None]
RetryCallback = Callable[[int, str, float], None]  # attempt, reason, seconds until the next try


class ProviderError(RuntimeError):
    """The provider gave up: an error that retries did not fix, or one that retrying cannot fix. `spent` holds what
    the attempts that broke off before it had been billed (retry.RetrySpend), when there were any."""

    spent: Any = None


class ContextTooLong(ProviderError):
    """The server refused the prompt as longer than the model's context window: the loop compacts and asks again."""


# How servers say it: Anthropic "prompt is too long: N tokens > M maximum" and "input length and `max_tokens` exceed
# context limit"; OpenAI "maximum context length is N tokens" (code context_length_exceeded); vLLM the same words.
CONTEXT_TOO_LONG = ("prompt is too long", "exceed context limit", "maximum context length", "context_length_exceeded")


# How much a model may reason before it answers. Anthropic's extended thinking takes a budget of tokens, at least
# this many and less than the request's max_tokens; OpenAI-compatible servers that reason take an effort.
MIN_THINKING_TOKENS = 1024
REASONING_EFFORTS = ("low", "medium", "high")


def thinking_budget_of(provider: object) -> int | None:
    """The extended thinking a provider was made to ask for (Anthropic's); None for one that has none."""
    value = getattr(provider, "thinking_budget", None)
    return value if isinstance(value, int) and value > 0 else None


def reasoning_effort_of(provider: object) -> str | None:
    """The reasoning effort a provider was made to ask for (an OpenAI-compatible server's); None for none."""
    value = getattr(provider, "reasoning_effort", None)
    return value if isinstance(value, str) else None


def is_context_too_long(message: str) -> bool:
    text = message.lower()
    return any(words in text for words in CONTEXT_TOO_LONG)


class Interrupted(Exception):
    """The request was cancelled through its cancel event; any partial output is discarded."""

    def __init__(self, partial_text: str = "") -> None:
        super().__init__("interrupted")
        self.partial_text = partial_text


class MissingKeyError(ValueError):
    """The provider's API key is not in the environment; the message names the variable."""


class Provider(Protocol):
    name: str  # "anthropic", "openai", "scripted"
    model: str

    def complete(
        self,
        request: ModelRequest,
        on_delta: DeltaCallback,
        cancel: threading.Event,
        on_retry: RetryCallback | None = None,
    ) -> ModelResponse:
        """Send the request and stream the answer: call on_delta for each piece as it arrives, raise
        Interrupted promptly once `cancel` is set, retry transient failures (rate limits, overload,
        5xx, a stream that breaks off) with backoff, reporting each through on_retry, and raise
        ProviderError when it gives up."""
        ...
