"""The profile tool: Nsight Compute over one workload of solution.py, confined, alone on the GPU, summarised.

ncu profiles only the solution's Triton kernels (by name, so input generation and the reference are not
profiled), under the sandbox the eval uses and holding the GPU lock exclusively (a profile is a measurement; the
lock is taken outside the sandbox, which cannot see it). A timeout or an interrupt kills ncu and everything it
started (its process group). What comes back is the per-kernel summary of profile_report, or ncu's own words
where it could not profile.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
from pathlib import Path

from workbench.harness.lock import GpuUse, lock_path
from workbench.harness.sandbox import confine, safe_environment, unconfined_warning
from workbench.session import profile_driver
from workbench.session.bash import Finished, cap_text, run_killable
from workbench.session.profile_report import (
    METRICS,
    SECTIONS,
    format_summaries,
    kernel_filter,
    parse_details_csv,
    summarise,
    triton_kernel_names,
)
from workbench.session.tool_args import ToolError
from workbench.tasks import Task, Workload

OUTPUT_READ_BYTES = 64 << 20  # ncu's CSV of a few launches is tens of kB; a program that prints on and on is cut
NCU_NOTE_LINES = 8  # of ncu's warnings and errors, shown with the summary


def ncu_command(ncu: str, kernels: list[str], program: list[str]) -> list[str]:
    sections = [arg for section in SECTIONS for arg in ("--section", section)]
    return [ncu, "--clock-control", "none", "--target-processes", "all", "--csv", "--page", "details", *sections,
            "--metrics", ",".join(METRICS), "--kernel-name", kernel_filter(kernels), *program]  # fmt: skip


def ncu_install(ncu: str, opt: Path = Path("/opt/nvidia")) -> list[Path]:
    """What ncu needs to see inside the sandbox: the CUDA toolkit's folder its `ncu` is in (a launcher script), and
    Nsight Compute itself, which the launcher looks for beside the toolkit or under /opt/nvidia (on the H200 image:
    /opt/nvidia/nsight-compute/<version>, and with only bin/ shown the launcher said "Nsight Compute is not
    installed")."""
    home = Path(ncu).resolve().parent
    found = [home.parent if home.name == "bin" else home]
    found += sorted(opt.glob("nsight-compute*")) if opt.is_dir() else []
    return found


def run_profile(task: Task, work: Path, workload: Workload, timeout_s: float,
                cancel: threading.Event | None) -> tuple[str, bool]:  # fmt: skip
    """(text for the model, whether it is an error)."""
    ncu = shutil.which("ncu")
    if ncu is None:
        return "profiling is unavailable: Nsight Compute (ncu) is not installed on this machine", True
    work = work.resolve()
    solution = work / "solution.py"
    if not solution.is_file():
        raise ToolError("there is no solution.py to profile")
    kernels = triton_kernel_names(solution)
    if not kernels:
        raise ToolError("solution.py defines no @triton.jit kernel: there is nothing of the solution to profile")
    with tempfile.TemporaryDirectory(prefix="workbench-profile-") as tmp:
        # the driver goes in as a copy: the sandbox shows neither the project nor the package
        driver = Path(shutil.copy(Path(profile_driver.__file__), tmp))
        program = [sys.executable, "-I", str(driver), str(task.file("inputs.py").resolve()), str(solution),
                   json.dumps(workload.params), str(workload.seed)]  # fmt: skip
        command = ncu_command(ncu, kernels, program)
        env = safe_environment(home=work) | {"TRITON_CACHE_DIR": str(work / ".triton"), "PYTHONUNBUFFERED": "1"}
        env.pop("TRITON_INTERPRET", None)
        note = unconfined_warning()
        if note is None:
            command = confine(command, writable=[work], readable=[Path(tmp), task.path.resolve(), *ncu_install(ncu)],
                              chdir=work, gpu=True, env=env)  # fmt: skip
        output, finished = _run_locked(command, work, env, timeout_s, cancel)
    if finished.timed_out:
        return f"profiling ran past its timeout ({timeout_s:.0f} s) and was stopped", True
    if finished.interrupted:
        return "profiling was interrupted by the person", True
    text, failed = _report(output, finished.exit_code, kernels, f"{task.name}/{workload.name}")
    return text + (f"\n{note}" if note else ""), failed


def _run_locked(command: list[str], work: Path, env: dict[str, str], timeout_s: float,
                cancel: threading.Event | None) -> tuple[str, Finished]:  # fmt: skip
    lock = lock_path()
    lock.parent.mkdir(parents=True, exist_ok=True)
    use = GpuUse(lock)  # outside the sandbox, held exclusively: a profile is a measurement
    try:
        with use.exclusive(), tempfile.TemporaryFile(mode="w+b") as out:
            finished = run_killable(command, cwd=work, env=env, timeout_s=timeout_s, cancel=cancel, out=out)
            out.seek(0)
            output = out.read(OUTPUT_READ_BYTES).decode("utf-8", errors="backslashreplace")
    finally:
        use.handle.close()
    return output, finished


def _report(output: str, exit_code: int | None, kernels: list[str], where: str) -> tuple[str, bool]:
    launches, other = parse_details_csv(output)
    summaries = summarise(launches, kernels)
    notes = [line for line in other if line.startswith(("==WARNING==", "==ERROR=="))][:NCU_NOTE_LINES]
    if exit_code != 0 or not summaries:
        why = (f"profiling failed (exit code {exit_code})" if exit_code != 0 else
               f"ncu profiled no launch of the solution's Triton kernels ({', '.join(kernels)}): does solution() "
               "launch them on this workload?")  # fmt: skip
        rest = "\n".join(line for line in other if line.strip())
        shown = _capped(rest) if rest else "(ncu printed nothing else)"
        return f"{why}\n{shown}", True
    text = format_summaries(summaries, where)
    return text + ("\n" + "\n".join(notes) if notes else ""), False


def _capped(text: str) -> str:
    return cap_text(text, head_chars=2_000, tail_chars=6_000).text()
