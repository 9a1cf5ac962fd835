"""Judge fixtures: the rmsnorm_residual task, a guided session and its files, and scripted answers.

The session is the judge's own fixture (tests/fixtures/judge/): a scripted rmsnorm_residual session recorded on the
CPU, once the committed example. The judge is runtime-blind, and the tests below cite its design note and kernel
line by line, so they keep a copy that does not change when the demos in sessions/examples are recorded again."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

from conftest import FIXTURES, REPO

from workbench.agent.conversation import ModelRequest, ModelResponse
from workbench.agent.provider import DeltaCallback, RetryCallback
from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.tasks import Task, load_task

EXAMPLE = FIXTURES / "judge" / "rmsnorm_residual-guided-L123-20261129-153101-9270"
DESIGN = EXAMPLE / "work" / "DESIGN.md"  # 8 lines
SOLUTION = EXAMPLE / "work" / "solution.py"  # 35 lines

# A valid answer for the example's files: (score, [(start, end, quote, item)]) per level. rmsnorm_residual has two
# L1 items (100 cites both) and three at L2 and L3 (50 and 25 cite one).
VALID = {
    "design": {
        "L1": (75, [(3, 3, "the add and the norm in one kernel; the sum is rounded to bf16", "L1.1")]),
        "L2": (50, [(5, 6, "x and residual are read once, h and y\n  written once", "L2.1")]),
        "L3": (25, [(8, 8, "4, 8 or 16 warps by width", "L3.2")]),
    },
    "implementation": {
        "L1": (
            100,
            [
                (19, 19, "h = (x + r).to(tl.bfloat16)", "L1.1"),
                (22, 22, "rstd = tl.rsqrt(tl.sum(hf * hf, axis=1)", "L1.1"),
                (13, 13, "mask_n = offs_n < n_cols", "L1.2"),
            ],
        ),  # fmt: skip
        "L2": (50, [(15, 15, "offs = offs_m[:, None] * n_cols + offs_n[None, :]", "L2.3")]),
        "L3": (25, [(32, 32, "num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16", "L3.2")]),
    },
}


def answer(spec: dict[str, Any] | None = None, parts: tuple[str, ...] = ("design", "implementation")) -> dict:
    """A judge answer as a JSON-ready dict, from a spec shaped like VALID."""
    spec = spec or VALID
    files = {"design": "DESIGN.md", "implementation": "solution.py"}
    return {
        part: {
            level: {
                "score": score,
                "reason": f"{part} {level} reason",
                "evidence": [
                    {"item": i, "file": files[part], "start": s, "end": e, "quote": q} for s, e, q, i in cites
                ],  # fmt: skip
            }
            for level, (score, cites) in spec[part].items()
        }
        for part in parts
    }


def with_citation(part: str, level: str, start: int, end: int, quote: str, item: str | None = None) -> dict:
    """VALID with one level's citations replaced by a single given one (for the item of the level's first citation
    unless `item` is given)."""
    spec = copy.deepcopy(VALID)
    score, cites = spec[part][level]
    spec[part][level] = (score, [(start, end, quote, item or cites[0][3])])
    return answer(spec)


def turn(content: dict | str) -> ScriptedTurn:
    text = content if isinstance(content, str) else json.dumps(content)
    return ScriptedTurn([{"type": "text", "text": text}])


class RecordingProvider(ScriptedProvider):
    """A scripted judge that keeps every request it was sent."""

    def __init__(self, answers: list[dict | str]) -> None:
        super().__init__([turn(a) for a in answers], model="scripted-judge")
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest, on_delta: DeltaCallback, cancel: threading.Event,
                 on_retry: RetryCallback | None = None) -> ModelResponse:  # fmt: skip
        self.requests.append(request)
        return super().complete(request, on_delta, cancel, on_retry)

    def prompt_text(self) -> str:
        """Everything the judge was shown, over all requests."""
        return "\n".join(r.system + "\n" + "\n".join(m.text() for m in r.messages) for r in self.requests)


def rmsnorm_task() -> Task:
    return load_task("rmsnorm_residual", REPO)


def write_script(path: Path, answers: list[dict | str]) -> Path:
    turns = [{"content": [{"type": "text", "text": a if isinstance(a, str) else json.dumps(a)}]} for a in answers]
    path.write_text(json.dumps(turns))
    return path
