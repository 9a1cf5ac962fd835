"""Which files of a session the judge reads: the scored submission's, as the session's scoring rule decides.

The judge scores what was scored, not what the workspace holds at the end: an agent may go on editing after
its scored submission (or a person may). Under `final` (the paper's rule, and the rule of logs that record none)
the last submission counts; under `best`, the best correct one (the fastest correct timed one, else the latest
correct one), or the last when none was correct. A session that ended without a correct submission was submitted
for automatically with its best correct evaluation (by "auto"), which is then the last submission. A submission
carries solution.py and DESIGN.md as submitted (log schema 2); for an older log, the files are the workspace as
the log recorded it at the end of the submission's turn. A session without any submission is judged on its
workspace at the end, and the judgement says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.session.events import Event, Files, SessionStart, Submission, TurnEnd
from workbench.session.history import rebuild


@dataclass(frozen=True)
class JudgedFiles:
    """The files to judge, the turn they are of, and what they are (recorded in the judgement)."""

    files: dict[str, str]
    turn: int
    source: str  # "submission" or "workspace"
    description: str  # in words, for the report: "the final submission (turn 6, by agent)"
    rule: str | None = None  # the scoring rule that chose the submission
    seq: int | None = None  # the submission's event
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "description": self.description, "rule": self.rule, "seq": self.seq,
                "by": self.by}  # fmt: skip


def scored_submission(live: list[Event], rule: str) -> Submission | None:
    """The submission that the rule scores, of the session's events (as resume sees them); None: none was made."""
    submissions = [e for e in live if isinstance(e, Submission)]
    if not submissions:
        return None
    correct = [s for s in submissions if s.correct]
    if rule == "best" and correct:
        return max(correct, key=lambda s: (s.correct_speedup is not None, s.correct_speedup or 0.0, s.seq))
    return submissions[-1]


def scored_files(live: list[Event]) -> JudgedFiles:
    """The files of the session's scored submission (see the module's docstring)."""
    start = next(e for e in live if isinstance(e, SessionStart))
    rule = start.scoring or "final"
    chosen = scored_submission(live, rule)
    if chosen is None:
        state = rebuild(live)
        return JudgedFiles(dict(state.files), state.turn, "workspace",
                           f"the workspace at the end (turn {state.turn}): the session made no submission")  # fmt: skip
    files = chosen.files if chosen.files is not None else _files_at(live, chosen)
    return JudgedFiles(dict(files), chosen.turn, "submission", _describe(chosen, rule), rule, chosen.seq, chosen.by)


def _describe(chosen: Submission, rule: str) -> str:
    if chosen.by == "auto":
        what = "the automatic submission of the best correct evaluation (no correct submission was made)"
    elif rule == "best" and chosen.correct:
        what = "the best correct submission (scoring rule best)"
    elif rule == "best":
        what = "the last submission (scoring rule best; none was correct)"
    else:
        what = "the final submission (scoring rule final)"
    kept = "" if chosen.files is not None else "; an older log: the workspace as recorded at the end of that turn"
    return f"{what}, turn {chosen.turn} by {chosen.by}{kept}"


def _files_at(live: list[Event], chosen: Submission) -> dict[str, str]:
    """For a log that kept no files with its submissions: the events up to the submission, and the workspace
    changes its turn recorded after it (a turn's changes are logged at its end, after its tools ran)."""
    index = next(i for i, e in enumerate(live) if e.seq == chosen.seq)
    state = rebuild(live[: index + 1])
    for event in live[index + 1 :]:
        if isinstance(event, TurnEnd) or event.turn != chosen.turn:
            break
        if isinstance(event, Files):
            state.apply(event)
    return state.files
