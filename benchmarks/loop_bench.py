"""The agent loop's own cost per turn, with the scripted provider and no evals: wall time per turn
(model and tool time excluded: the script answers at once and the tools are file edits) and log
bytes per turn. Prints a table.

    python benchmarks/loop_bench.py [--turns 350]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn  # noqa: E402
from workbench.session.history import rebuild  # noqa: E402
from workbench.session.loop import Limits, LoopCallbacks  # noqa: E402
from workbench.session.store import SessionSetup, build_loop, create_session, load_session  # noqa: E402
from workbench.tasks import load_task  # noqa: E402


def script(turns: int, body: str) -> list[ScriptedTurn]:
    return [
        ScriptedTurn([
            {"type": "text", "text": f"Turn {i}: a small change to the kernel."},
            {"type": "tool_use", "id": f"t{i}", "name": "write_file",
             "input": {"path": "solution.py", "content": body.replace("BLOCK=1024", f"BLOCK={1024 + i}")}},
        ])
        for i in range(turns)
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=350)
    parser.add_argument("--task", default="rmsnorm_residual")
    args = parser.parse_args()
    task = load_task(args.task)
    assert task.expert_path is not None
    body = task.expert_path.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        provider = ScriptedProvider(script(args.turns, body))
        setup = SessionSetup(task, set(), provider, Limits(args.turns), "interpret")
        folder, log = create_session(setup, Path(tmp))
        loop = build_loop(setup, folder, log, rebuild(load_session(folder)[0]), LoopCallbacks())
        size_before = (folder / "events.jsonl").stat().st_size
        started = time.perf_counter()
        loop.start()
        reason = loop.wait()
        elapsed = time.perf_counter() - started
        size = (folder / "events.jsonl").stat().st_size - size_before
        read_started = time.perf_counter()
        rebuild(load_session(folder)[0])
        rebuild_s = time.perf_counter() - read_started
    print(f"{'turns':>6} {'ended':>8} {'ms/turn':>9} {'log KiB/turn':>13} {'log MiB':>8} {'rebuild s':>10}")
    print(f"{args.turns:6d} {reason:>8} {elapsed / args.turns * 1e3:9.2f} {size / args.turns / 1024:13.1f} "
          f"{size / 2**20:8.2f} {rebuild_s:10.3f}")  # fmt: skip
    print(f"(each turn writes solution.py of {len(body)} characters, which the log holds twice: in the tool call "
          "and in the turn's file snapshot)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
