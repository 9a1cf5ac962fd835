"""Running the judge: ask the model, check its answer, ask once more if it was invalid, and score.

`judge_files` judges a solution (and design note) on disk; `judge_session` judges the files of a saved
session's scored submission (or its workspace after a turn) and appends the judgement to the session's log.
Text in the files addressed to the judge is flagged in the judgement, and a citation of it does not count.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path

from workbench.agent.conversation import Message, ModelRequest, TextBlock
from workbench.agent.provider import Provider
from workbench.guidance import GuidanceItem, load_guidance
from workbench.judge.injection import find_flags
from workbench.judge.prompt import JudgePrompt, build_prompt
from workbench.judge.result import DESIGN_FILE, LEVELS, PARTS, SOLUTION_FILE, Judgement, LevelScore
from workbench.judge.scored import JudgedFiles, scored_files
from workbench.judge.validate import CheckedAnswer, JudgedText, check_answer
from workbench.session import events
from workbench.session.events import Event
from workbench.session.history import complete_prefix, rebuild
from workbench.session.log import LogError
from workbench.session.service import HeldSession, Session
from workbench.session.writer import SessionBusy
from workbench.tasks import Task, TaskFormatError, load_task

MAX_TOKENS = 8192
NO_DESIGN = "no design note"


class JudgeUsageError(ValueError):
    """Bad input to the judge (a missing file, a task without guidance, a turn out of range): one line."""


@dataclass(frozen=True)
class JudgeInputs:
    """Everything the judge sees. Nothing here comes from an evaluation: the judge is runtime-blind."""

    task: str
    task_md: str
    items: list[GuidanceItem]
    solution: str
    design: str | None  # None or blank: there is no design note


def judge(inputs: JudgeInputs, provider: Provider, cancel: threading.Event | None = None) -> Judgement:
    """Score the design note and the solution against the guidance. An invalid answer is sent back once
    with its problems listed; a level still invalid then scores 0, its reason saying why."""
    design = inputs.design if inputs.design is not None and inputs.design.strip() else None
    prompt = build_prompt(inputs.task_md, inputs.items, inputs.solution, design)
    parts = PARTS if design is not None else ("implementation",)
    flags = find_flags(DESIGN_FILE, design or "") + find_flags(SOLUTION_FILE, inputs.solution)
    files = {name: JudgedText(name, text, flags)
             for name, text in ((SOLUTION_FILE, inputs.solution), (DESIGN_FILE, design or ""))}  # fmt: skip
    messages = [Message("user", [TextBlock(prompt.user)])]
    answers = [_ask(provider, prompt, messages, cancel)]
    first = check_answer(answers[0], files, parts, inputs.items)
    valid, rejected = dict(first.valid), first
    if first.invalid:
        messages += [Message("assistant", [TextBlock(answers[0] or "(empty answer)")]),
                     Message("user", [TextBlock(retry_message(first, design is not None))])]  # fmt: skip
        answers.append(_ask(provider, prompt, messages, cancel))
        rejected = check_answer(answers[1], files, parts, inputs.items)
        valid.update(rejected.valid)  # the corrected answer wins; a level valid only the first time keeps it
    scores: dict[str, dict[str, LevelScore]] = {part: {} for part in PARTS}
    for part in PARTS:
        for level in LEVELS:
            if part not in parts:
                scores[part][level] = LevelScore(0, NO_DESIGN)
            elif (part, level) in valid:
                scores[part][level] = valid[(part, level)]
            else:
                why = "; ".join(rejected.invalid[(part, level)])
                scores[part][level] = LevelScore(0, f"the judge's answer was rejected twice: {why}", valid=False)
    return Judgement(
        task=inputs.task,
        design=scores["design"],
        implementation=scores["implementation"],
        provider=provider.name,
        model=provider.model,
        prompt_sha256=prompt.sha256,
        attempts=len(answers),
        problems=first.problems(),
        answers=answers,
        solution_sha256=_sha256(inputs.solution),
        design_sha256=_sha256(design) if design is not None else None,
        flags=flags,
    )


def retry_message(checked: CheckedAnswer, with_design: bool) -> str:
    scope = "all six levels" if with_design else "the three implementation levels"
    listed = "\n".join(f"- {problem}" for problem in checked.problems())
    return (
        f"Your answer was rejected:\n{listed}\n\nAnswer again with the complete JSON object ({scope}) in the same "
        "shape. Cite only line ranges that exist, quote text that is on the cited lines, as listed, and name the "
        "item each citation evidences."
    )


def _ask(provider: Provider, prompt: JudgePrompt, messages: list[Message], cancel: threading.Event | None) -> str:
    request = ModelRequest(prompt.system, [], list(messages), max_tokens=MAX_TOKENS)
    response = provider.complete(request, lambda delta: None, cancel or threading.Event())
    return response.message().text()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _guidance(task: Task) -> list[GuidanceItem]:
    if task.guidance_path is None:
        raise JudgeUsageError(f"task {task.name} has no guidance: there is no expert design to judge against")
    return load_guidance(task.guidance_path)


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeUsageError(f"{path}: cannot read the {what} ({getattr(exc, 'strerror', None) or exc})") from None


def judge_files(task: str | Path | Task, solution_path: Path, design_path: Path | None, provider: Provider,
                root: Path | None = None) -> Judgement:  # fmt: skip
    """Judge a solution file and an optional design note against a task (a name, a folder or a Task)."""
    loaded = task if isinstance(task, Task) else load_task(task, root)
    design = _read(design_path, "design note") if design_path is not None else None
    inputs = JudgeInputs(loaded.name, _read(loaded.file("task.md"), "task"), _guidance(loaded),
                         _read(solution_path, "solution"), design)  # fmt: skip
    return judge(inputs, provider)


def judge_session(session_folder: Path, provider: Provider, turn: int | None = None,
                  root: Path | None = None) -> Judgement:  # fmt: skip
    """Judge the files of a session's scored submission (or its workspace after turn `turn`: see scored.py),
    append a `judgement` event with the result to its events.jsonl, and return the judgement. The session's
    writer lock is taken first and held until the judgement is logged: a session another process runs is refused
    before anything is sent to (and paid for with) the judge's model."""
    try:
        held = Session.claim(session_folder, "judge")
    except SessionBusy as exc:
        raise JudgeUsageError(f"{exc}: judge it when that ends") from None
    except LogError as exc:
        raise JudgeUsageError(str(exc)) from None
    with held:
        return _judge_held(held, provider, turn, root)


def _judge_held(held: HeldSession, provider: Provider, turn: int | None, root: Path | None) -> Judgement:
    record = held.record  # read under the lock: nothing else appends until the judgement is logged
    if turn is None:
        chosen = scored_files(record.effective)
    else:
        if not 0 <= turn <= record.turns:
            raise JudgeUsageError(f"{record.folder.name} has {record.turns} complete turns; "
                                  f"--turn must be 0..{record.turns}")  # fmt: skip
        files = rebuild(complete_prefix(record.effective, up_to_turn=turn)).files
        chosen = JudgedFiles(dict(files), turn, "workspace", f"the workspace after turn {turn} (--turn)")
    try:
        task = load_task(record.start.task, root)
    except TaskFormatError as exc:
        raise JudgeUsageError(f"the session's task {record.start.task!r} cannot be loaded: {exc}") from None
    solution = chosen.files.get(SOLUTION_FILE)
    if solution is None:
        raise JudgeUsageError(f"{record.folder.name} has no {SOLUTION_FILE} in {chosen.description}")
    inputs = JudgeInputs(task.name, _read(task.file("task.md"), "task"), _guidance(task), solution,
                         chosen.files.get(DESIGN_FILE))  # fmt: skip
    judgement = judge(inputs, provider)
    judgement.session = record.folder.name
    judgement.turn = chosen.turn
    judgement.judged = chosen.to_dict()
    held.append(judgement_event(judgement, chosen.turn))
    return judgement


def judgement_event(judgement: Judgement, turn: int) -> events.Judgement:
    """The `judgement` event that records a judgement of the session's files at `turn`."""
    fields = judgement.to_dict()
    del fields["turn"]  # the event's own
    return events.Judgement(turn=turn, **fields)


def read_judgements(logged: list[Event]) -> list[Judgement]:
    """The judgements recorded in a session's events, oldest first."""
    return [Judgement.from_dict(events.event_to_dict(e)) for e in logged if isinstance(e, events.Judgement)]
