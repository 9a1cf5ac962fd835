"""The session log's events, typed: one frozen dataclass a kind, and the one place where they meet JSON.

Every event has the header `seq`, `time`, `turn` (and `inherited`, true on the events a branch copied from its
parent); each kind adds its own fields, named as they are in `events.jsonl`. `event_from_dict` and
`event_to_dict` are the only conversions between an event and a line's JSON object. Payloads that the readers
use as they are stay plain JSON values: an eval's result, a message's content blocks, token usage, a judgement's
scores.

Versions and fields:
- `session_start` carries the log's schema `version`; a newer one than `SCHEMA_VERSION` is refused.
- A field added after the first logs were written has a default, so that those logs read (`unmetered`,
  `retried_usage`, `usage_reported`, `script`, `torn_line_dropped`).
- A field the writers set on some events of a kind only (a `human` event's `diff`, a `files` event's blobs, an
  `error`'s spend) is None where it is absent, and left out of the line then, as it always was.
- A field this workbench does not know is refused, as a missing or ill-typed one is: a field comes with a new
  schema version, so an unknown one in a version this workbench reads is a log written wrongly or edited by hand,
  and reading on would drop it without a word.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, ClassVar, TypeAlias, Union, cast, get_args, get_origin, get_type_hints

# 2 (2026-12-02): compaction events; a session's context window; an eval's solution when it is a new best, a
# submission's files (for the judge and the automatic submission); version 1 logs read unchanged.
SCHEMA_VERSION = 2
UNLOGGED = -1  # the seq of an event not appended yet: the log numbers (and times) what it appends


class LogError(ValueError):
    """A log that cannot be read: missing, malformed, or from a newer schema."""


_LEFT_OUT_WHEN_NONE = "left_out_when_none"


def sometimes(decided_by: str | None = None) -> Any:
    """A field written on some events of its kind only: None when absent, and then left out of the line. With
    `decided_by`, it is written (None or not) whenever that field is: the fields of one record go together."""
    return field(default=None, metadata={_LEFT_OUT_WHEN_NONE: decided_by})


@dataclass(frozen=True, kw_only=True)
class EventBase:
    """The header every event has. `kind` is the class's, not a field."""

    kind: ClassVar[str]
    seq: int = UNLOGGED
    time: float = 0.0
    turn: int
    inherited: bool = False  # copied from the parent by a branch; written only when true


class _Evaluation:
    """What `eval_result` and `submission` tell of their result (a dict as the harness's EvalResult.to_dict)."""

    result: dict[str, Any]

    @property
    def correct(self) -> bool:
        return bool(self.result.get("correct"))

    @property
    def correct_speedup(self) -> float | None:
        return correct_speedup(self.result)


def correct_speedup(result: dict[str, Any]) -> float | None:
    """An eval result's speedup when it is correct and timed: the one definition of what "best correct speedup"
    takes the best of."""
    value = result.get("speedup_geomean")
    return float(value) if result.get("correct") and isinstance(value, (int, float)) else None


@dataclass(frozen=True, kw_only=True)
class SessionStart(EventBase):
    """What it takes to reproduce the set-up (store.start_event)."""

    kind = "session_start"
    version: int
    session_id: str
    task: str
    levels: list[int]
    provider: str
    model: str
    scripted: bool
    script: str | None = None  # a scripted session's script (logs before the bench lack it)
    base_url: str | None
    budget: int
    wall_clock_s: float | None
    cost_limit_usd: float | None
    mode: str
    parent: dict[str, Any] | None  # a branch's parent: {"session": folder, "turn": n}
    versions: dict[str, str]
    device: str
    system: str
    tools: list[dict[str, Any]]
    initial_messages: list[dict[str, Any]]
    context_window: int | None = sometimes()  # tokens the session's requests are kept inside (version 2 on)
    scoring: str | None = sometimes()  # which submission counts: "final" or "best" (version 2 on; before: final)
    thinking_budget: int | None = sometimes()  # Anthropic's extended thinking, tokens a request (absent: none)
    reasoning_effort: str | None = sometimes()  # an OpenAI-compatible server's: low, medium, high (absent: none)


@dataclass(frozen=True, kw_only=True)
class SessionResumed(EventBase):
    kind = "session_resumed"
    from_turn: int
    discarded: list[int] | None  # [first, end) seqs of a turn cut short, dropped from the session
    torn_line_dropped: bool = False
    provider: str
    model: str
    by: str | None = sometimes()  # "bench" when a bench resumed it
    limits: dict[str, Any] | None = sometimes()  # limits the resume raised: budget, wall_clock_s, cost_limit_usd


@dataclass(frozen=True, kw_only=True)
class ModelRequest(EventBase):
    kind = "model_request"
    messages: int  # how many messages the request held
    notes_delivered: list[str]
    thinking_note: str | None = sometimes()  # why this request's thinking is not the session's (turned down or off)


@dataclass(frozen=True, kw_only=True)
class ModelResponse(EventBase):
    kind = "model_response"
    content: list[dict[str, Any]]  # the assistant message's blocks
    stop_reason: str | None
    usage: dict[str, int]
    model: str
    latency_s: float
    retries: int
    cost: float | None  # of this response and the attempts that broke off before it; None: no price
    usage_reported: bool = True  # False: the server left usage out
    retried_usage: dict[str, int] = field(default_factory=dict)  # what the broken-off attempts were billed
    retried_unmetered: int = 0  # broken-off attempts that reported nothing


@dataclass(frozen=True, kw_only=True)
class ModelRetry(EventBase):
    kind = "model_retry"
    attempt: int
    reason: str
    delay_s: float


@dataclass(frozen=True, kw_only=True)
class ToolCall(EventBase):
    kind = "tool_call"
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolResult(EventBase):
    kind = "tool_result"
    id: str
    name: str
    text: str
    is_error: bool


@dataclass(frozen=True, kw_only=True)
class EvalResult(_Evaluation, EventBase):
    kind = "eval_result"
    by: str  # agent or human
    summary: str  # what the agent was told
    result: dict[str, Any]
    solution: str | None = sometimes()  # solution.py as evaluated, when it is the session's new best correct one


@dataclass(frozen=True, kw_only=True)
class Submission(_Evaluation, EventBase):
    kind = "submission"
    by: str  # agent, human, or auto (the best correct evaluation, submitted when a session ended without one)
    final: bool
    summary: str
    result: dict[str, Any]
    files: dict[str, str] | None = sometimes()  # solution.py and DESIGN.md as submitted: what the judge reads


@dataclass(frozen=True, kw_only=True)
class Files(EventBase):
    """What changed in the workspace: text files with their content, larger or binary ones by hash."""

    kind = "files"
    changed: dict[str, str]
    deleted: list[str]
    blobs_changed: dict[str, str] | None = sometimes()  # path -> sha256 in SESSION/blobs/; absent: no blobs
    blobs_deleted: list[str] | None = sometimes("blobs_changed")


@dataclass(frozen=True, kw_only=True)
class Human(EventBase):
    """A person's action: takeover, edit, evaluate, submit, note, note_delivered, handback, pause."""

    kind = "human"
    action: str
    diff: str | None = sometimes()  # edit, handback
    text: str | None = sometimes()  # note, note_delivered, handback (the message), evaluate and submit (the outcome)
    text_for_agent: str | None = sometimes()  # what the agent is told: handback, note_delivered


@dataclass(frozen=True, kw_only=True)
class Interrupt(EventBase):
    kind = "interrupt"
    during: str  # model or tool
    partial_text: str | None = sometimes()  # during the model: what it had streamed
    tool: str | None = sometimes()  # during a tool: its name


@dataclass(frozen=True, kw_only=True)
class Error(EventBase):
    kind = "error"
    message: str
    traceback: str | None = sometimes()  # an exception in the loop
    cost: float | None = sometimes("spent_usage")  # a request the provider gave up on: what its attempts cost
    spent_usage: dict[str, int] | None = sometimes()
    spent_unmetered: int | None = sometimes("spent_usage")


@dataclass(frozen=True, kw_only=True)
class TurnEnd(EventBase):
    kind = "turn_end"
    user_message: dict[str, Any] | None  # the message that closes the turn; None after the final submission
    files_changed: list[str]
    best_speedup: float | None
    usage: dict[str, int]  # the session's totals so far
    cost: float | None
    unmetered: int = 0
    tools: list[str]


@dataclass(frozen=True, kw_only=True)
class SessionEnd(EventBase):
    kind = "session_end"
    reason: str  # submitted, budget, interrupted, error
    limit: str | None = sometimes()  # with reason budget, which: turns, wall_clock or cost
    turns: int
    usage: dict[str, int]
    cost: float | None
    unmetered: int = 0
    best_speedup: float | None
    submissions: int


@dataclass(frozen=True, kw_only=True)
class Judgement(EventBase):
    """The judge's scores of the session's files at `turn` (as judge.result.Judgement.to_dict)."""

    kind = "judgement"
    task: str
    js_design: float
    js_impl: float
    design: dict[str, Any]  # level -> score, reason, evidence
    implementation: dict[str, Any]
    provider: str
    model: str
    prompt_sha256: str
    attempts: int
    problems: list[str]
    answers: list[str]
    solution_sha256: str
    design_sha256: str | None
    session: str | None
    flags: list[dict[str, Any]] | None = sometimes()  # text of the judged files addressed to the judge (absent: older)
    judged: dict[str, Any] | None = sometimes()  # which files: the scored submission's (the rule, by, seq) or a turn's


@dataclass(frozen=True, kw_only=True)
class Compaction(EventBase):
    """The conversation made shorter to stay inside the context window: its first message replaced by
    `first_message` (the task, and a summary of what the removed turns did), the messages before index `cut` (all but
    the first) removed. Folding it gives back exactly the conversation the model was sent next."""

    kind = "compaction"
    cut: int
    first_message: dict[str, Any]
    removed_turns: list[int]  # [first, last] turn whose messages went
    tokens_before: int  # the estimated prompt, before and after
    tokens_after: int
    reason: str  # "window" (the estimate neared it) or "too_long" (the server refused the prompt)


# fmt: off
Event: TypeAlias = (
    SessionStart | SessionResumed | ModelRequest | ModelResponse | ModelRetry | ToolCall | ToolResult | EvalResult
    | Submission | Files | Human | Interrupt | Error | TurnEnd | SessionEnd | Judgement | Compaction
)
# fmt: on

_BY_KIND: dict[str, type[EventBase]] = {cls.kind: cls for cls in get_args(Event)}
EVENT_KINDS = frozenset(_BY_KIND)
_HEADER = ("seq", "time", "turn", "inherited")  # written first (inherited last), not among the kind's fields


def _json_types(hint: Any) -> tuple[type, ...]:
    """The Python types of the JSON values a field annotated `hint` takes (a shallow check: list, not list[int])."""
    origin = get_origin(hint)
    if hint is Any:
        return (object,)
    if origin in (Union, types.UnionType):
        return tuple(t for arg in get_args(hint) for t in _json_types(arg))
    if hint is float:
        return (float, int)  # JSON has one kind of number: a hand-written log says 0 for 0.0
    return (origin or hint,)


def _field_types(cls: type[EventBase]) -> dict[str, tuple[type, ...]]:
    hints = get_type_hints(cls)
    return {f.name: _json_types(hints[f.name]) for f in fields(cls)}


_FIELD_TYPES = {kind: _field_types(cls) for kind, cls in _BY_KIND.items()}
_REQUIRED = {
    kind: {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING} | {"seq", "time"}
    for kind, cls in _BY_KIND.items()
}


def check_version(version: object) -> None:
    """Refuse a log of a newer schema (or of none): the one-line error that says to upgrade."""
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise LogError(
            f"written by log schema version {version}; this workbench reads up to {SCHEMA_VERSION}"
            " (upgrade the workbench)"
        )


def event_from_dict(data: object) -> Event:
    """The event a line of the log holds; a LogError saying what is wrong when it holds none."""
    if not isinstance(data, dict):
        raise LogError("not a JSON object")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _BY_KIND:
        raise LogError(f"unknown event kind {kind!r}")
    if kind == "session_start":
        check_version(data.get("version"))
    known = _FIELD_TYPES[kind]
    values = {name: value for name, value in data.items() if name != "kind"}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise LogError(f"a {kind} event with fields this workbench does not know: {', '.join(unknown)}")
    missing = sorted(_REQUIRED[kind] - set(values))
    if missing:
        raise LogError(f"a {kind} event without {', '.join(missing)}")
    for name, value in values.items():
        if not isinstance(value, known[name]):
            raise LogError(f"a {kind} event whose {name} is {_json_type(value)}")
    return cast(Event, _BY_KIND[kind](**values))


def event_to_dict(event: EventBase) -> dict[str, Any]:
    """The event as a line's JSON object: the header, the kind, the kind's fields in their order; `inherited` and
    the fields of `sometimes` only where they are set."""
    data: dict[str, Any] = {"seq": event.seq, "time": event.time, "turn": event.turn, "kind": event.kind}
    for f in fields(event):
        if f.name not in _HEADER and not _left_out(event, f):
            data[f.name] = getattr(event, f.name)
    if event.inherited:
        data["inherited"] = True
    return data


def _left_out(event: EventBase, f: Field[Any]) -> bool:
    if _LEFT_OUT_WHEN_NONE not in f.metadata:
        return False
    return getattr(event, f.metadata[_LEFT_OUT_WHEN_NONE] or f.name) is None


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}  # fmt: skip
    return names.get(type(value), type(value).__name__)
