"""One word for why a solution was rejected, in the vocabulary of `# expect:` lines in wrong/ files:
`static:<rule>`, `runtime:<forbidden-op|refused|no-launch>`, `incorrect:<failure>`,
`timing:<unverified|implausible>`, `error:<timeout|crash|exception>`, or `correct`. Used by the tests and the GPU
check to prove each wrong solution fails for its reason."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.harness.result import EvalResult

_EXPECT = re.compile(r"^#\s*expect:\s*([a-z]+:[a-z-]+|correct)\b", re.MULTILINE)
_EXPECT_RUNTIME = re.compile(r"^#\s*expect-runtime:\s*([a-z]+:[a-z-]+)\b", re.MULTILINE)
INCORRECT = ("mismatch", "unwritten", "input-modified", "nonfinite", "shape", "dtype", "not-a-tensor")
RUNTIME = ("forbidden-op", "refused", "no-launch")
TIMING = {"timing-unverified": "timing:unverified", "timing-implausible": "timing:implausible"}


def expected_verdict(path: Path) -> str | None:
    """The verdict a known-bad solution declares in its `# expect: KIND:DETAIL` line."""
    match = _EXPECT.search(path.read_text())
    return match.group(1) if match else None


def expected_runtime_verdict(path: Path) -> str | None:
    """For a file the static rules already reject: the verdict the run time gives it without them (its
    `# expect-runtime:` line), so that the runtime wall stays tested where the speed bump comes first."""
    match = _EXPECT_RUNTIME.search(path.read_text())
    return match.group(1) if match else None


def verdicts(result: EvalResult) -> set[str]:
    """Every reason the result gives for rejecting the solution (a static check may find several)."""
    if not result.static.ok:
        return {f"static:{v.rule}" for v in result.static.violations}
    if result.error:
        return {"error:exception"}
    found = set()
    for w in result.workloads:
        if w.correct:
            continue
        if w.failure in RUNTIME:
            found.add(f"runtime:{w.failure}")
        elif w.failure in TIMING:
            found.add(TIMING[w.failure])
        elif w.failure in INCORRECT:
            found.add(f"incorrect:{w.failure}")
        elif w.error and "timed out" in w.error:
            found.add("error:timeout")
        elif w.error and ("died" in w.error or "exited with status" in w.error):
            found.add("error:crash")
        else:
            found.add("error:exception")
    return found or {"correct"}
