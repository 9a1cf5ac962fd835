"""Retrying a model call: which failures earn another try, how long to wait, and the loop that reports each."""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from workbench.agent.conversation import Usage
from workbench.agent.provider import Interrupted, ProviderError, RetryCallback

T = TypeVar("T")

# A server may ask for a long pause; past this we would rather try again than leave a session frozen.
MAX_RETRY_AFTER_S = 300.0


class Transient(Exception):
    """A failure another try may fix: a rate limit, overload, a 5xx, a dropped connection, a broken stream."""

    def __init__(
        self, reason: str, retry_after: float | None = None, billed: bool = False, usage: Usage | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.billed = billed  # the server had begun the response: the attempt is paid for, retried or not
        self.usage = usage  # what the server reported of it before the break, when it had reported anything


@dataclass
class RetrySpend:
    """What the attempts that broke off cost: their reported tokens, and how many reported none."""

    usage: Usage = field(default_factory=Usage)
    unmetered: int = 0

    def add(self, failure: Transient) -> None:
        if failure.usage is not None:
            self.usage.add(failure.usage)
        elif failure.billed:
            self.unmetered += 1


def is_transient_status(status: int) -> bool:
    """Statuses a later identical request may succeed on: timeout, rate limit, overload and server errors."""
    return status in (408, 429) or status >= 500


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: about base_s, 2*base_s, 4*base_s ... capped at max_s."""

    max_retries: int = 6
    base_s: float = 1.0
    max_s: float = 60.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `attempt` (from 1); never sooner than the server's retry-after."""
        ceiling = min(self.max_s, self.base_s * 2 ** (attempt - 1))
        # Equal jitter: clients that failed together spread out, yet none retries at once.
        backoff = ceiling / 2 + random.uniform(0.0, ceiling / 2)
        if retry_after is None:
            return backoff
        return max(backoff, min(retry_after, MAX_RETRY_AFTER_S))


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def call_with_retries(
    attempt: Callable[[], T],
    backoff: Backoff,
    cancel: threading.Event,
    on_retry: RetryCallback | None,
    spent: RetrySpend | None = None,
) -> tuple[T, int]:
    """Run `attempt` until it returns, retrying on Transient; return its result and the number of retries.

    Each retry is reported through on_retry before the wait; the wait ends early, raising Interrupted, when
    `cancel` is set. After `backoff.max_retries` retries the last failure becomes a ProviderError.
    """
    retries = 0
    while True:
        if cancel.is_set():
            raise Interrupted()
        try:
            return attempt(), retries
        except Transient as exc:
            if spent is not None:
                spent.add(exc)
            if retries >= backoff.max_retries:
                error = ProviderError(f"gave up after {retries} retries: {exc.reason}")
                error.spent = spent
                raise error from exc
            retries += 1
            delay = backoff.delay(retries, exc.retry_after)
            if on_retry is not None:
                on_retry(retries, exc.reason, delay)
            if cancel.wait(delay):
                raise Interrupted() from None
