"""Synthetic session logs for the report tests: TEST DATA with known latencies, speedups, usage and judge scores.

No eval ran to make these; they let the tests check the report's arithmetic exactly (speedups need timed evals).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from workbench.judge import Judgement, LevelScore
from workbench.judge.judge import judgement_event
from workbench.session import events as ev
from workbench.session.events import SCHEMA_VERSION, event_to_dict

LEVEL_NAMES = ("L1", "L2", "L3")


def eval_result(task: str, correct: bool, latencies: dict[str, float] | None, reference: float = 1.0) -> dict:
    """An eval result whose workloads ran at `latencies` ms against a reference at `reference` ms each."""
    workloads = []
    for name, ms in (latencies or {"w": 1.0}).items():
        timed = latencies is not None and correct
        workloads.append({
            "name": name, "correct": correct,
            "latency_ms": {"median": ms, "mean": ms, "err": 0.0, "n": 10} if timed else None,
            "reference_ms": {"median": reference, "mean": reference, "err": 0.0, "n": 10} if timed else None,
            "speedup": reference / ms if timed else None,
            "timing_note": None if timed else "interpret mode: not timed",
        })  # fmt: skip
    speedups = [w["speedup"] for w in workloads if w["speedup"]]
    geo = None
    if correct and speedups:
        product = 1.0
        for s in speedups:
            product *= s
        geo = product ** (1 / len(speedups))
    return {"task": task, "solution": "solution.py", "solution_sha256": "0", "device": None,
            "static": {"ok": True, "violations": []}, "workloads": workloads, "correct": correct,
            "speedup_geomean": geo, "error": None, "ceilings": None, "version": 1}  # fmt: skip


def judgement(task: str, design: tuple[int, int, int], impl: tuple[int, int, int]) -> Judgement:
    def part(scores: tuple[int, int, int]) -> dict[str, LevelScore]:
        return {lv: LevelScore(s, "test") for lv, s in zip(LEVEL_NAMES, scores)}

    return Judgement(task=task, design=part(design), implementation=part(impl), provider="scripted", model="judge",
                     prompt_sha256="0", attempts=1)  # fmt: skip


def write_session(root: Path, key: str, task: str, model: str, levels: list[int], mode: str,
                  submissions: list[tuple], usage: dict[str, int], cost: float | None,
                  judged: Judgement | None = None, scoring: str | None = None) -> Path:  # fmt: skip
    """A finished session: one model response per turn with `usage` and `cost`, the given submissions ((turn, result)
    or (turn, result, by)), run under `scoring` (None: a log that records no rule)."""
    provider, name = model.split(":")
    folder = root / key / "s-0"
    folder.mkdir(parents=True)
    turns = max([sub[0] for sub in submissions], default=1)
    events: list[ev.Event] = [
        ev.SessionStart(turn=0, version=SCHEMA_VERSION, session_id=key, task=task, levels=levels, provider=provider,
                        model=name, scripted=False, base_url=None, budget=turns, wall_clock_s=None,
                        cost_limit_usd=None, mode=mode, parent=None, versions={}, device="synthetic", system="",
                        tools=[], initial_messages=[], scoring=scoring)
    ]  # fmt: skip
    for turn in range(1, turns + 1):
        events.append(ev.ModelResponse(turn=turn, content=[], stop_reason="end_turn", usage=usage, model=name,
                                       latency_s=0.0, retries=0, cost=cost))  # fmt: skip
        events += [ev.Submission(turn=turn, by=sub[2] if len(sub) > 2 else "agent", final=False, summary="",
                                 result=sub[1]) for sub in submissions if sub[0] == turn]  # fmt: skip
        events.append(ev.TurnEnd(turn=turn, user_message=None, files_changed=[], best_speedup=None, usage=usage,
                                 cost=cost, tools=[]))  # fmt: skip
    if judged is not None:
        events.append(judgement_event(judged, turns))
    events.append(ev.SessionEnd(turn=turns, reason="submitted", turns=turns, usage=usage, cost=cost, best_speedup=None,
                                submissions=len(submissions)))  # fmt: skip
    lines = [json.dumps(event_to_dict(replace(e, seq=i))) for i, e in enumerate(events)]
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n")
    return folder
