"""The human-tuned demo session: a person works sliding_window_max by hand, driven through the Session service the way
the app's human mode drives it (taken over from the start; solution.py edited, evaluated, a note, then a final
submission, which ends it as an agent's final submit does). It is logged like any session, its provider `human`.

The person's kernels are the task's L1+L2 ladder rung, then that rung with the span and warps they tuned (TUNING,
two stated edits), so every solution the demo shows is a checked file or a stated edit of one.

    python benchmarks/human_demo.py --mode interpret --sessions OUT
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demo_scripts import rung_source  # noqa: E402

from workbench.session.loop import AgentLoop, LoopState  # noqa: E402
from workbench.session.service import PersonAtKeyboard, Session  # noqa: E402
from workbench.session.specs import make_limits  # noqa: E402

TASK = "sliding_window_max"
TUNING = (  # what the person changed by hand in the L1+L2 rung: (old, new), each found once
    ("    span = max(1024, w)\n", "    span = max(4096, 8 * w)\n"),
    ("W=w, SPAN=span)", "W=w, SPAN=span, num_warps=8)"),
)
NOTE = ("Spans of at least 4096 elements and 8 windows: the w - 1 halo each program re-reads is at most an eighth "
        "of its span, and 8 warps share the larger tile.")  # fmt: skip
TAKEOVER_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Step:
    action: str  # edit (text: the new solution.py), evaluate, note (text: the note), submit, finish (a final submit)
    text: str = ""


def tuned(source: str) -> str:
    for old, new in TUNING:
        if source.count(old) != 1:
            raise ValueError(f"{TASK}: the person's edit must find its text once in the L1+L2 rung: {old!r}")
        source = source.replace(old, new)
    return source


def steps() -> list[Step]:
    """What the person does, in order."""
    first = rung_source(TASK, "l1_l2")
    return [Step("edit", first), Step("evaluate"), Step("edit", tuned(first)), Step("evaluate"), Step("note", NOTE),
            Step("finish")]  # fmt: skip


def drive(task: str, plan: list[Step], mode: str, root: Path, budget: int = 350) -> Path:
    """A person's session on `task` under `root`, the plan's steps done in order (a final submission ends it;
    without one it is left, interrupted and resumable). Its folder; an eval that cannot run raises after the session
    is closed."""
    session = Session.new(task, set(), PersonAtKeyboard(), make_limits(budget), mode, root)
    print(f"session {session.folder} (a person drives it)", flush=True)
    loop = session.attach()
    loop.take_over()  # as the app's human mode: the person has the workspace from the start
    loop.start(paused=True)
    try:
        _wait_taken_over(loop)
        for step in plan:
            _do(loop, step)
    finally:
        loop.stop()
        loop.wait(TAKEOVER_TIMEOUT_S)
        session.close()
    return session.folder


def _wait_taken_over(loop: AgentLoop) -> None:
    """The loop's worker logs the take-over and hands the workspace over on its own thread."""
    deadline = time.monotonic() + TAKEOVER_TIMEOUT_S
    while loop.status != LoopState.TAKEN_OVER:
        if loop.wait(0.01) is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the session never handed the workspace to the person (status {loop.status.value})")


def _do(loop: AgentLoop, step: Step) -> None:
    if step.action == "edit":
        loop.human_edit(step.text)
        print("  person: edited solution.py", flush=True)
    elif step.action == "note":
        loop.note(step.text)
        print("  person: a note", flush=True)
    elif step.action in ("evaluate", "submit", "finish"):
        if step.action == "evaluate":
            result = loop.human_evaluate()
        else:
            result = loop.human_submit(final=step.action == "finish")
        verdict = "an error" if result is None else ("correct" if result.correct else "not correct")
        print(f"  person: {step.action}: {verdict}", flush=True)
    else:
        raise ValueError(f"unknown step {step.action!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("cuda", "interpret"), required=True)
    parser.add_argument("--sessions", type=Path, required=True, help="the folder the session is made in")
    args = parser.parse_args(argv)
    drive(TASK, steps(), args.mode, args.sessions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
