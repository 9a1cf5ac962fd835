"""What a session is made with, said once: its limits and its provider.

`make_limits` checks the limits a command or a form asks for, `recorded_limits` reads them back from a session's
`session_start`. A `ProviderSpec` names a provider (provider, model, server, script, and how much the model reasons:
Anthropic's extended thinking, an OpenAI-compatible server's reasoning effort) without making it: given by a front
end, read from a session's log, or the two merged (a resume or a branch with another model); `make` turns it into the
Provider, a scripted one skipping the responses a resumed or branched session has already played.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.provider import MIN_THINKING_TOKENS, REASONING_EFFORTS, MissingKeyError, Provider
from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session.events import Event, ModelResponse, SessionResumed, SessionStart
from workbench.session.loop import Limits

# The most extended thinking a session may ask for: the largest max_tokens of Anthropic's current models (64k) less
# the room a reply needs besides its thinking.
MAX_THINKING_TOKENS = 62_000


class SessionUsageError(ValueError):
    """A session that cannot be made as asked (no key, no script, a budget under one turn, a task without guidance,
    a turn out of range): one line, exit status 2, nothing made."""


class ScriptMissing(SessionUsageError):
    """A scripted provider with no script given, recorded or found; a front end may word it in its own terms."""


def make_limits(budget: int = 350, wall_clock_s: float | None = None, cost_usd: float | None = None,
                context_window: int | None = None, scoring: str = "final") -> Limits:  # fmt: skip
    """The limits a front end asks for (a command's options, the app's form, a bench plan), checked: a session needs
    at least one turn, a context window room for a reply, a scoring rule one of final and best."""
    if budget < 1:
        raise SessionUsageError("the budget must be at least 1 turn")
    if context_window is not None and context_window < 16_384:
        raise SessionUsageError(f"the context window must be at least 16384 tokens, not {context_window}")
    if scoring not in ("final", "best"):
        raise SessionUsageError(f"the scoring rule is final or best, not {scoring!r}")
    return Limits(budget, wall_clock_s, cost_usd, context_window, scoring)


def recorded_limits(start: SessionStart, events: Iterable[Event] = ()) -> Limits:
    """The limits a session was started with, as later resumes raised them (`events`: its log): a resume goes on
    under them and a branch inherits them."""
    limits = Limits(start.budget, start.wall_clock_s, start.cost_limit_usd, start.context_window,
                    start.scoring or "final")  # fmt: skip
    for event in events:
        if isinstance(event, SessionResumed) and event.limits:
            limits = raised_limits(limits, event.limits)
    return limits


RAISABLE = {"budget": "budget", "wall_clock_s": "wall_clock_s", "cost_limit_usd": "cost_usd"}  # log key: Limits field


def raised_limits(limits: Limits, raised: dict[str, Any]) -> Limits:
    """`limits` with those a resume raised (keys as SessionResumed.limits writes them)."""
    return dataclasses.replace(limits, **{RAISABLE[k]: v for k, v in raised.items() if k in RAISABLE})


@dataclass(frozen=True)
class ProviderSpec:
    """A provider by name, its model and server, and for a scripted one its script. None is "the default": the
    provider's default model and server for a new session, the session's own in an override of a resume or branch.
    `script_dirs` are searched for a script of the task when none is given or recorded (the app's demo scripts).
    `thinking` is Anthropic's extended thinking budget in tokens (0: none, where an override turns it off);
    `reasoning_effort` an OpenAI-compatible server's (low, medium, high)."""

    name: str | None = None
    model: str | None = None
    base_url: str | None = None
    script: Path | None = None
    script_dirs: tuple[Path, ...] = ()
    thinking: int | None = None
    reasoning_effort: str | None = None

    @classmethod
    def recorded(cls, start: SessionStart) -> ProviderSpec:
        """What the session ran with; its script only while that file still exists (a resume elsewhere needs
        another, given or found)."""
        script = Path(start.script) if start.script and Path(start.script).exists() else None
        return cls(start.provider, start.model, start.base_url, script, thinking=start.thinking_budget,
                   reasoning_effort=start.reasoning_effort)  # fmt: skip

    def overridden_by(self, other: ProviderSpec | None) -> ProviderSpec:
        """This spec with what `other` names instead. A model, server or script belongs to its provider: naming
        another provider drops this one's, so a session of one model is never resumed on another's name."""
        if other is None:
            return self
        same = other.name in (None, self.name)
        return ProviderSpec(
            name=other.name or self.name,
            model=other.model or (self.model if same else None),
            base_url=other.base_url or (self.base_url if same else None),
            script=other.script or (self.script if same else None),
            script_dirs=other.script_dirs or self.script_dirs,
            thinking=other.thinking if other.thinking is not None else (self.thinking if same else None),
            reasoning_effort=other.reasoning_effort or (self.reasoning_effort if same else None),
        )

    def reasoning_options(self, name: str) -> dict[str, object]:
        """What the provider `name` is made with of this spec's reasoning, checked: thinking is Anthropic's, a
        reasoning effort an OpenAI-compatible server's; a value the API would refuse is a SessionUsageError."""
        options: dict[str, object] = {}
        if self.thinking:
            if name != "anthropic":
                raise SessionUsageError(f"a thinking budget is for the anthropic provider, not {name} (an "
                                        "OpenAI-compatible server takes a reasoning effort)")  # fmt: skip
            if not MIN_THINKING_TOKENS <= self.thinking <= MAX_THINKING_TOKENS:
                raise SessionUsageError(f"the thinking budget is {MIN_THINKING_TOKENS} to {MAX_THINKING_TOKENS} "
                                        f"tokens (or 0: none), not {self.thinking}")  # fmt: skip
            options["thinking_budget"] = self.thinking
        if self.thinking is not None and self.thinking < 0:
            raise SessionUsageError(f"the thinking budget cannot be negative ({self.thinking})")
        if self.reasoning_effort:
            if name != "openai":
                raise SessionUsageError(f"a reasoning effort is for the openai provider (OpenAI-compatible servers), "
                                        f"not {name} (Anthropic's models take a thinking budget)")  # fmt: skip
            if self.reasoning_effort not in REASONING_EFFORTS:
                raise SessionUsageError(f"the reasoning effort is one of {', '.join(REASONING_EFFORTS)}, not "
                                        f"{self.reasoning_effort!r}")  # fmt: skip
            options["reasoning_effort"] = self.reasoning_effort
        return options

    def make(self, task: str | None = None, levels: Iterable[int] = (), played: int = 0) -> Provider:
        """The Provider; for a scripted one, its script from the response after the `played` ones. A missing key,
        an unknown name or a script that cannot be read is a SessionUsageError, before anything is made."""
        from workbench.agent.providers import make_provider

        name = self.name or "anthropic"
        options = self.reasoning_options(name)
        try:
            if name == "scripted":
                script = self.script or (find_script(task, set(levels), self.script_dirs) if task else None)
                if script is None:
                    found = f" for task {task}" if task and self.script_dirs else ""
                    raise ScriptMissing(f"the scripted provider needs a script (a script file or a saved session): "
                                        f"none was given, recorded or found{found}")  # fmt: skip
                if is_session_script(Path(script)):
                    return session_as_script(Path(script), self.model, played)
                return make_provider(name, self.model, script=script, start_at=played)
            return make_provider(name, self.model, self.base_url, **options)
        except (MissingKeyError, ValueError, OSError) as exc:
            if isinstance(exc, SessionUsageError):
                raise
            raise SessionUsageError(str(exc)) from None


def find_script(task: str, levels: set[int], dirs: Iterable[Path]) -> Path | None:
    """A script for a demo session on a task: `<task>_<guided|unguided>.json`, else `<task>.json`,
    else any `<task>*.json`, searched in each folder in turn."""
    condition = "guided" if levels else "unguided"
    for folder in dirs:
        for name in (f"{task}_{condition}.json", f"{task}.json"):
            if (folder / name).is_file():
                return folder / name
        matches = sorted(folder.glob(f"{task}*.json"))
        if matches:
            return matches[0]
    return None


def is_session_script(path: Path) -> bool:
    return path.is_dir() or path.name == "events.jsonl"


def session_turns(path: Path) -> list[ScriptedTurn]:
    """A saved session's model responses, in order, as a script's turns (a folder or its events.jsonl)."""
    from workbench.session.log import read_log

    events = read_log(path / "events.jsonl" if path.is_dir() else path).events
    return [ScriptedTurn(e.content, e.stop_reason, e.usage) for e in events if isinstance(e, ModelResponse)]


def session_as_script(path: Path, model: str | None, played: int = 0) -> Provider:
    """A scripted provider that plays a saved session's responses from the one after `played`."""
    return ScriptedProvider(session_turns(path), model or "scripted", start_at=played, source=str(path.resolve()))
