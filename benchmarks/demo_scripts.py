"""The demo sessions' scripts, written from the tasks' design ladders: workbench/agent/scripts/<task>_guided.json and
<task>_unguided.json, the scripted turns the app's new-session form and benchmarks/record_demos.py play.

Every kernel a scripted agent writes is a file kept (and tested in interpret mode) under guidance/<task>/ladder/, or
the expert, or a stated edit of the plain rung, so a demo never shows code nobody checked. The story of a pair:
- unguided: read the task, write the direct design (the plain rung), evaluate, make a small tweak that keeps the
  design, evaluate, submit. It never saw GUIDANCE.md and cites no item of it.
- guided (L1+L2+L3): read GUIDANCE.md, write the plain rung as a baseline, then the L1 rung, the L1+L2 rung and the
  expert, evaluating after each and citing the ids of the items each step applies; then submit.
The texts claim no figure: what a step bought is in its eval, on whatever device records the session.

    python benchmarks/demo_scripts.py           write the scripts
    python benchmarks/demo_scripts.py --check   exit 1, naming them, when a committed script differs from this
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "workbench" / "agent" / "scripts"
RUNGS = ("plain", "l1", "l1_l2", "expert")  # the guided climb, lowest first; the expert realises L3 too
PARSES = "python -c \"import ast; ast.parse(open('solution.py').read()); print('solution.py parses')\""


@dataclass(frozen=True)
class Story:
    """What the agent says on one task; the code comes from the ladder."""

    task: str
    plain: str  # unguided: why the direct design
    tweak: tuple[str, str]  # unguided: an edit of the plain rung (old, new) that keeps its design
    tweak_why: str
    unguided_note: str  # unguided: DESIGN.md, naming no guidance item
    climb: tuple[str, str, str, str]  # guided: what each rung of RUNGS applies, citing its items' ids
    guided_note: str  # guided: DESIGN.md, item by item


STORIES = (
    Story(
        task="rmsnorm_residual",
        plain="The reference adds, then normalises. A direct port: an elementwise kernel adds x and residual in "
        "fp32 and writes h, then one program per row reads h back, sums its squares over a masked power-of-two "
        "block, divides by the true width and scales by rsqrt and the weight.",
        tweak=("    BLOCK = 1024\n", "    BLOCK = 4096\n"),
        tweak_why="Correct. The add kernel gives each program 1024 elements; 4096 per program means a quarter as "
        "many programs, each with more loads in flight. Same two kernels; evaluate to see whether it helps.",
        unguided_note="# Design\n\n"
        "- Two kernels, as the reference: an elementwise add writes h (added in fp32, rounded once), then one\n"
        "  program per row reads h back, sums its squares in fp32 over a masked power-of-two block, divides by the\n"
        "  true width and scales by rsqrt and the weight.\n"
        "- The add kernel runs 4096 elements per program; the norm kernel's warps follow the row block.\n",
        climb=(
            "GUIDANCE.md is about one pass over memory. First the reference's two statements as two kernels (add, "
            "then norm): a correct baseline to measure each item against.",
            "Baseline correct. Now L1.1: the add and the norm fused in one kernel, x and residual added in fp32, "
            "h rounded and stored, the rounded h squared and reduced once in fp32, scaled with tl.rsqrt. L1.2: the "
            "masked next_power_of_2 row block, the mean over the true width. Still one program per row.",
            "L2.1: one launch, each row tile loaded once into registers and kept there until its last store. "
            "L2.2: one program per row tile, no persistent loop. "
            "L2.3: several short rows per tile, reduced along axis 1 with a row mask.",
            "L3.1: one tile of live state per program, no prefetch into registers. L3.2: warps and 16-byte "
            "vectors sized from the row (8 warps up to 4096 elements, 16 from 8192). L3.3: the weight kept in "
            "cache with evict_last, x and residual left at the default policy.",
        ),
        guided_note="# Design\n\n"
        "- L1.1: one kernel; x + residual in fp32, h rounded to bf16 and stored, the rounded h squared and reduced\n"
        "  once in fp32, `tl.rsqrt`, y cast once at the store.\n"
        "- L1.2: BLOCK_N = next_power_of_2(hidden), every load and store masked, the mean over hidden.\n"
        "- L2.1: a row tile stays in registers from its load to its last store; h is never read back.\n"
        "- L2.2: grid = cdiv(rows, ROWS_PER_TILE), one tile per program, no grid-stride loop.\n"
        "- L2.3: ROWS_PER_TILE rows per tile for short rows, `tl.sum(..., axis=1)`, rows masked.\n"
        "- L3.1: one tile of loads per program, no next-tile prefetch (registers buy residency instead).\n"
        "- L3.2: warps from the tile size: 8 up to 4096 elements, 16 from 8192.\n"
        "- L3.3: `evict_last` on the weight; the streams keep the default policy.\n",
    ),
    Story(
        task="sliding_window_max",
        plain="Each output is the maximum of w inputs. The direct kernel: a program owns a block of consecutive "
        "outputs of one row and steps over the w offsets of the window, keeping a running maximum.",
        tweak=("    BLOCK = 1024\n", "    BLOCK = 2048\n"),
        tweak_why="Correct. I'll give each program 2048 outputs instead of 1024: half as many programs, longer "
        "vectors per load. Same loop over the window; evaluate to see whether it helps.",
        unguided_note="# Design\n\n"
        "- One program per block of 2048 consecutive outputs of a row; it loops over the w offsets of the window,\n"
        "  loading x[t + j] for all its outputs at each step and keeping a running maximum in fp32.\n"
        "- The loads of neighbouring steps overlap, so x is read from memory about once.\n",
        climb=(
            "GUIDANCE.md's first level changes the algorithm. First the direct method, w loads and maxima per "
            "output, as a correct baseline to measure each item against.",
            "Baseline correct. Now L1.1, van Herk / Gil-Werman: cut each row into segments of w; "
            "y[t] = max(h[t], g[t + w - 1]) with h a reverse max-scan and g a forward max-scan within segments, "
            "about 3 comparisons per element whatever w is. As a first step the scans go through memory: one "
            "kernel writes h and g, a second combines them.",
            "L2.1: one program per span of whole segments with a w - 1 halo, both scans in registers on a "
            "[SPAN / w, w] tile and its copy shifted by w - 1, so h and g never go through memory and x crosses "
            "HBM about once, in one launch.",
            "L3.1: spans of max(2048, 2w) elements at 4 warps: small programs, many per SM, the halo re-read "
            "served by L1/L2; the scans stay in fp32.",
        ),
        guided_note="# Design\n\n"
        "- L1.1: van Herk / Gil-Werman. Segments of w; h is a reverse and g a forward `tl.associative_scan` with a\n"
        "  maximum combine; y[t] = max(h[t], g[t + w - 1]): no loop over the w elements of a window.\n"
        "- L2.1: a program owns SPAN outputs of one row, SPAN a multiple of w, on a (spans, rows) grid; the span and\n"
        "  its copy shifted by w - 1 are scanned as [SPAN / w, w] tiles in registers; y stored directly.\n"
        "- L3.1: SPAN = max(2048, 2 * w), num_warps = 4, loads upcast to fp32 and y cast back at the store.\n",
    ),
)


def rung_path(task: str, rung: str) -> Path:
    folder = ROOT / "guidance" / task
    return folder / "expert.py" if rung == "expert" else folder / "ladder" / f"{rung}.py"


def rung_source(task: str, rung: str) -> str:
    return rung_path(task, rung).read_text()


class _Turns:
    """Scripted turns with tool ids numbered across the script, as a model's would be unique."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self._ids = 0

    def add(self, text: str, *calls: tuple[str, dict[str, Any]]) -> None:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for name, tool_input in calls:
            self._ids += 1
            content.append({"type": "tool_use", "id": f"toolu_{self._ids:03d}", "name": name, "input": tool_input})
        self.turns.append({"content": content})


def unguided(story: Story) -> list[dict[str, Any]]:
    old, new = story.tweak
    if rung_source(story.task, "plain").count(old) != 1:
        raise ValueError(f"{story.task}: the tweak's text must occur once in the plain rung: {old!r}")
    script = _Turns()
    script.add("I'll read the task, the reference and the template first.", _read("task.md"),
               _read("reference.py"), _read("solution.py"))  # fmt: skip
    script.add(story.plain, _write("solution.py", rung_source(story.task, "plain")), ("evaluate", {}))
    script.add(story.tweak_why, ("edit_file", {"path": "solution.py", "old": old, "new": new}), ("evaluate", {}))
    script.add("A short design note, a check that the file parses, then I submit this version.",
               _write("DESIGN.md", story.unguided_note), ("bash", {"command": PARSES}),
               ("submit", {"final": True}))  # fmt: skip
    return script.turns


def guided(story: Story) -> list[dict[str, Any]]:
    script = _Turns()
    script.add("I'll read the guidance, the task and the reference first.", _read("GUIDANCE.md"), _read("task.md"),
               _read("reference.py"))  # fmt: skip
    for rung, text in zip(RUNGS, story.climb, strict=True):
        script.add(text, _write("solution.py", rung_source(story.task, rung)), ("evaluate", {}))
    script.add("Every item is in and each step was evaluated. The design note, item by item, a check that the file "
               "parses, then I submit.", _write("DESIGN.md", story.guided_note), ("bash", {"command": PARSES}),
               ("submit", {"final": True}))  # fmt: skip
    return script.turns


def _read(path: str) -> tuple[str, dict[str, Any]]:
    return "read_file", {"path": path}


def _write(path: str, content: str) -> tuple[str, dict[str, Any]]:
    return "write_file", {"path": path, "content": content}


def scripts() -> dict[Path, str]:
    """Every demo script's path and its text, as written from the ladders now."""
    made: dict[Path, str] = {}
    for story in STORIES:
        for condition, turns in (("unguided", unguided(story)), ("guided", guided(story))):
            made[SCRIPTS / f"{story.task}_{condition}.json"] = json.dumps(turns, indent=1) + "\n"
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a committed script differs")
    args = parser.parse_args(argv)
    made = scripts()
    stale = [path for path, text in made.items() if not path.is_file() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} differs from what the ladders give: run python {Path(__file__).name}")
        return 1 if stale else 0
    for path in stale:
        path.write_text(made[path])
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
