"""Judge fixtures: the rmsnorm_residual task, the guided example session's files, and scripted answers."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

from conftest import REPO

from workbench.agent.conversation import ModelRequest, ModelResponse
from workbench.agent.provider import DeltaCallback, RetryCallback
from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.tasks import Task, load_task

EXAMPLE = REPO / "sessions" / "examples" / "rmsnorm_residual-guided-L123-20261129-153101-9270"
DESIGN = EXAMPLE / "work" / "DESIGN.md"  # 8 lines
SOLUTION = EXAMPLE / "work" / "solution.py"  # 35 lines

# A valid answer for the example's files: (score, [(start, end, quote)]) per level.
VALID = {
    "design": {
        "L1": (75, [(3, 3, "the add and the norm in one kernel; the sum is rounded to bf16")]),
        "L2": (50, [(5, 6, "x and residual are read once, h and y\n  written once")]),
        "L3": (25, [(7, 7, "BLOCK is the next power of two of the width")]),
    },
    "implementation": {
        "L1": (100, [(19, 19, "h = (x + r).to(tl.bfloat16)"), (22, 22, "rstd = tl.rsqrt(tl.sum(hf * hf, axis=1)")]),
        "L2": (50, [(16, 16, "w = tl.load(w_ptr + offs_n, mask=mask_n, other=0.0)")]),
        "L3": (25, [(32, 32, "num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16")]),
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
                "evidence": [{"file": files[part], "start": s, "end": e, "quote": q} for s, e, q in cites],
            }
            for level, (score, cites) in spec[part].items()
        }
        for part in parts
    }


def with_citation(part: str, level: str, start: int, end: int, quote: str) -> dict:
    """VALID with one level's citations replaced by a single given one."""
    spec = copy.deepcopy(VALID)
    spec[part][level] = (spec[part][level][0], [(start, end, quote)])
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
