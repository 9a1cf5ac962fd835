"""A session's tokens turn by turn, without a model: a profile measured from a session's log, replayed at any budget
and window through the loop's own compaction rule.

A turn of our loop sends the whole conversation again: the prompt grows by what the last turn added, the cache
carries what the previous request sent (up to the counter at its end, which is left uncached), and when the prompt
nears the window (`session/context.py`'s rule, shared here, not copied) the loop compacts it to a share of itself,
after which the cache holds only the request's fixed head. `profile_from_events` measures those quantities from a
logged session (benchmarks/context_bench.py measures its simulated 350-turn session so); `simulate` plays them back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from statistics import mean
from typing import Any

from workbench.agent.conversation import Usage
from workbench.session.context import needs_compaction
from workbench.session.events import Compaction, Event, ModelResponse


@dataclass(frozen=True)
class TokenProfile:
    """What a turn adds and costs in tokens, measured from one session's log."""

    first_prompt: int  # tokens of the first request (system prompt, tools, task, guidance, environment)
    growth: float  # tokens the prompt grows by a turn, between compactions
    output: float  # output tokens a turn
    uncached: float  # prompt tokens a request sends outside the cache (the counter at its end)
    compaction_read: float  # tokens the first request after a compaction still reads from the cache
    kept_share: float  # the prompt after a compaction over the prompt before it (1.0: none was measured)
    source: str  # what was measured: which session, how many turns, at which window

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SimulatedSession:
    """Per turn, the tokens spent up to and including it (index 0: turn 1); the compactions; the largest prompt."""

    cumulative: list[Usage]
    compactions: int
    largest_prompt: int

    def usage_at(self, turn: int) -> Usage:
        """Tokens spent by the end of `turn` (0: nothing yet)."""
        return self.cumulative[min(turn, len(self.cumulative)) - 1] if turn > 0 else Usage()


def _usage(event: ModelResponse) -> Usage:
    return Usage(**{k: int(v) for k, v in event.usage.items() if k in vars(Usage())})


def profile_from_events(events: list[Event], source: str) -> TokenProfile:
    """The profile of a logged session: its responses' usage, and which of them followed a compaction."""
    responses: list[tuple[Usage, bool]] = []
    compacted, kept = False, []
    for event in events:
        if isinstance(event, Compaction):
            compacted = True
            kept.append(event.tokens_after / event.tokens_before)
        elif isinstance(event, ModelResponse) and event.usage_reported:
            responses.append((_usage(event), compacted))
            compacted = False
    if len(responses) < 2:
        raise ValueError(f"{source}: a profile needs at least two responses with usage")
    steady = [(prev.prompt_tokens, now) for (prev, _), (now, after) in zip(responses, responses[1:]) if not after]
    after_compaction = [now for now, after in responses if after]
    return TokenProfile(
        first_prompt=responses[0][0].prompt_tokens,
        growth=mean(now.prompt_tokens - before for before, now in steady),
        output=mean(u.output_tokens for u, _ in responses),
        uncached=mean(u.input_tokens for u, _ in responses),
        compaction_read=mean(u.cache_read_tokens for u in after_compaction) if after_compaction else 0.0,
        kept_share=mean(kept) if kept else 1.0,
        source=source,
    )


def simulate(profile: TokenProfile, turns: int, window: int) -> SimulatedSession:
    """A session of `turns` turns at `window` tokens, one request a turn."""
    cumulative: list[Usage] = []
    total = Usage()
    prompt, cached, compactions, largest = float(profile.first_prompt), 0.0, 0, 0.0
    for turn in range(1, turns + 1):
        if turn > 1:
            prompt += profile.growth
            cached = prompt - profile.growth - profile.uncached  # what the last request sent, less its counter
            if needs_compaction(window, int(prompt)):
                prompt *= profile.kept_share
                cached = profile.compaction_read
                compactions += 1
        uncached = min(profile.uncached, prompt)
        cached = max(0.0, min(cached, prompt - uncached))
        step = Usage(input_tokens=round(uncached), output_tokens=round(profile.output),
                     cache_read_tokens=round(cached), cache_write_tokens=round(prompt - cached - uncached))  # fmt: skip
        total.add(step)
        cumulative.append(Usage(**vars(total)))
        largest = max(largest, prompt)
    return SimulatedSession(cumulative, compactions, int(largest))
