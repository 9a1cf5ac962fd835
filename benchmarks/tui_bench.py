"""The app's speed on a long session: a 350-turn scripted session (text, code writes, bash output and
eval results, with no real evals), opened in replay and streamed live under `App.run_test()`.
Measures the time to first paint of the replay, a jump from turn 0 to the last and back, the latency of a
keypress while a live session streams (to its action, to the first frame painted after it, and until the
app is idle again, which includes the streamed turns' own updates), and peak memory (RSS: tracemalloc
slows the app several times over). Prints a table.

    python benchmarks/tui_bench.py [--turns 350]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn  # noqa: E402
from workbench.harness.result import EvalResult  # noqa: E402
from workbench.session.history import rebuild  # noqa: E402
from workbench.session.loop import AgentLoop, Limits, LoopCallbacks  # noqa: E402
from workbench.session.prompt import SYSTEM_PROMPT  # noqa: E402
from workbench.session.store import SessionSetup, create_session, load_session  # noqa: E402
from workbench.session.tools import ToolBox  # noqa: E402
from workbench.tasks import load_task  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = next((REPO / "sessions" / "examples").glob("rmsnorm_residual-guided-*")) / "events.jsonl"
TEXT = (
    "Turn {i}: the last eval says the kernel is memory bound, so this turn changes `BLOCK` and the number "
    "of warps.\n\n- loads are coalesced along the row\n- the residual add is fused into the same pass\n"
)


def _sample_result() -> dict[str, Any]:
    for line in EXAMPLE.read_text().splitlines():
        event = json.loads(line)
        if event["kind"] == "eval_result":
            return dict(event["result"])
    raise LookupError(f"no eval_result in {EXAMPLE}")


class FakeEvalToolBox(ToolBox):
    """The real tools, except that evaluate answers at once with a recorded result."""

    sample: dict[str, Any] = {}

    def _evaluate(self, workloads: list[str] | None, cancel: threading.Event) -> EvalResult:
        return EvalResult.from_dict(self.sample or _sample_result())


def script(turns: int, body: str, evals: bool = True, delay_s: float = 0.0) -> list[ScriptedTurn]:
    """Turns that cycle through a code write, a bash command with output, an eval and a long file read."""
    out = []
    for i in range(turns):
        text = {"type": "text", "text": TEXT.format(i=i)}
        match i % 4:
            case 0:
                call = {"name": "write_file", "input": {"path": "solution.py", "content": f"# turn {i}\n{body}"}}
            case 1:
                call = {"name": "bash", "input": {"command": "seq 1 40; wc -l solution.py"}}
            case 2 if evals:
                call = {"name": "evaluate", "input": {}}
            case _:
                call = {"name": "read_file", "input": {"path": "solution.py"}}
        out.append(ScriptedTurn([text, {"type": "tool_use", "id": f"t{i}", **call}], delay_s=delay_s))
    return out


def make_session(root: Path, task_name: str, turns: int, body: str | None = None) -> Path:
    """A finished scripted session of `turns` turns under root, written by the real loop and log."""
    task = load_task(task_name)
    if body is None:
        source = task.expert_path or task.file("solution.py")
        body = source.read_text()
    setup = SessionSetup(task, set(), ScriptedProvider(script(turns, body)), Limits(turns), "interpret")
    folder, log = create_session(setup, root)
    tools = FakeEvalToolBox(task, folder / "work", "interpret")
    loop = AgentLoop(setup.provider, tools, log, rebuild(load_session(folder)[0]), SYSTEM_PROMPT, setup.limits,
                     LoopCallbacks())  # fmt: skip
    loop.start()
    loop.wait()
    log.close()
    return folder


async def _until(pilot: Any, condition: Callable[[], object], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        await pilot.pause(0.001)


async def measure(folder: Path, sessions: Path, task: str, body: str, turns: int) -> dict[str, float]:
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.launch import new_session
    from workbench.tui.live_screen import LiveScreen
    from workbench.tui.replay_screen import ReplayScreen

    numbers: dict[str, float] = {}
    # the first frame the replay screen writes with its transcript and editor filled in
    first_paint: list[float] = []
    write_frame = ReplayScreen._compositor_refresh

    def timed_frame(screen: ReplayScreen) -> None:
        write_frame(screen)
        if not first_paint and screen.is_mounted and screen.transcript.shown and screen.editor.text:
            first_paint.append(time.perf_counter())

    ReplayScreen._compositor_refresh = timed_frame  # type: ignore[method-assign,assignment]
    app = WorkbenchApp(sessions=sessions, mode="interpret", budget=turns)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        started = time.perf_counter()
        app.open_session(folder)
        await _until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        await _until(pilot, lambda: replay.transcript.shown and replay.editor.text and first_paint)
        numbers["open replay: first paint (s)"] = first_paint[0] - started
        await pilot.pause()  # until every message the opening queued is handled
        numbers["open replay: until idle (s)"] = time.perf_counter() - started
        ReplayScreen._compositor_refresh = write_frame  # type: ignore[method-assign]

        for key, turn, name in (("home", 0, "jump to turn 0 (s)"), ("end", replay.last, "jump to the last turn (s)")):
            started = time.perf_counter()
            await pilot.press(key)
            await _until(pilot, lambda turn=turn: replay.cursor == turn)  # type: ignore[misc]
            await pilot.pause()
            numbers[name] = time.perf_counter() - started
        started = time.perf_counter()
        await pilot.press("left")
        await pilot.pause()
        numbers["replay: one turn back (s)"] = time.perf_counter() - started
        await pilot.press("escape")

        # live: most of the turns run at once, the last ones stream slowly while keys are pressed
        fast = script(turns - 20, body, evals=False)
        slow = script(20, body, evals=False, delay_s=0.05)
        live = new_session(task, set(), ScriptedProvider(fast + slow), "interpret", sessions, turns)
        screen = app.go_live(live, paused=False)
        await _until(pilot, lambda: screen.is_mounted and screen.progress.turn >= turns - 18, timeout=300)
        assert isinstance(screen, LiveScreen)
        log = screen.transcript.log_widget
        acted: list[float] = []
        toggle = log.action_toggle_folds

        def timed_toggle() -> None:
            toggle()
            acted.append(time.perf_counter())

        log.action_toggle_folds = timed_toggle  # type: ignore[method-assign]
        painted: list[float] = []  # when the screen's compositor wrote a frame
        paint = screen._compositor_refresh

        def timed_paint() -> None:
            paint()
            painted.append(time.perf_counter())

        screen._compositor_refresh = timed_paint  # type: ignore[method-assign]
        to_action, to_paint, to_idle = [], [], []
        for _ in range(8):
            started = time.perf_counter()
            await pilot.press("f")  # returns once the screen's widgets have handled their messages
            to_idle.append(time.perf_counter() - started)
            to_action.append(acted[-1] - started)
            # the first frame written after the action ran: when the person sees the change
            frames = [t for t in painted if t >= acted[-1]]
            while not frames:
                await pilot.pause(0.001)
                frames = [t for t in painted if t >= acted[-1]]
            to_paint.append(frames[0] - started)
        numbers["live: key to action, median (s)"] = sorted(to_action)[len(to_action) // 2]
        numbers["live: key to action, max (s)"] = max(to_action)
        numbers["live: key to painted frame, median (s)"] = sorted(to_paint)[len(to_paint) // 2]
        numbers["live: key to painted frame, max (s)"] = max(to_paint)
        numbers["live: key to idle screen, median (s)"] = sorted(to_idle)[len(to_idle) // 2]
        await pilot.press("escape")
    app.wait_closed()
    return numbers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=350)
    parser.add_argument("--task", default="rmsnorm_residual")
    args = parser.parse_args()
    task = load_task(args.task)
    body = (task.expert_path or task.file("solution.py")).read_text()
    with tempfile.TemporaryDirectory() as tmp:
        made = time.perf_counter()
        folder = make_session(Path(tmp) / "made", args.task, args.turns, body)
        made_s = time.perf_counter() - made
        numbers = asyncio.run(measure(folder, Path(tmp) / "sessions", args.task, body, args.turns))
        numbers["peak RSS (MiB)"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        log_mib = (folder / "events.jsonl").stat().st_size / 2**20
    print(f"session: {args.turns} turns, log {log_mib:.1f} MiB, made in {made_s:.1f} s")
    print(f"{'measure':<36} {'value':>10}")
    for name, value in numbers.items():
        print(f"{name:<36} {value:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
