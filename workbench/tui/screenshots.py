"""Screenshots of the app's screens, taken by driving the real app headless:

    python -m workbench.tui.screenshots docs/screenshots [--png]

at 120x40, a common window's size: home (the tasks and the example sessions), a live scripted session on
rmsnorm_residual stepped three turns, the guided sliding_window_max example in replay at its third turn (its L1
rung, timed on the H200) and with its Ladder tab open (the task's design ladder from the recorded GPU run), and
the guided and unguided sliding_window_max examples compared at that turn, where their designs part.
Writes home.svg, session.svg, replay.svg, ladder.svg and compare.svg, and with --png a PNG of each drawn by
headless Chromium (for pages and viewers that show no SVG).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Markdown, TabbedContent

from workbench.session.loop import LoopState
from workbench.tasks import project_root
from workbench.tui.app import WorkbenchApp
from workbench.tui.compare_screen import CompareScreen
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen
from workbench.tui.replay_screen import ReplayScreen

SIZE = (120, 40)
DEMO_TASK = "sliding_window_max"  # the pair that tells the story best: its L1 changes the algorithm (docs/app.md)
PNG_SCALE = 1  # device pixels per SVG pixel (2 is sharper on a dense screen, and 3-4 times the bytes)


async def _until(pilot: Pilot, condition: Callable[[], object], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not reach the screen to capture")
        await pilot.pause(0.05)


def _paused_after(screen: LiveScreen, turn: int) -> Callable[[], bool]:
    return lambda: screen.progress.turn >= turn and screen.loop.status == LoopState.PAUSED


def demo_pair(examples: Path) -> tuple[Path, Path]:
    """The guided and the unguided example session of DEMO_TASK."""
    folders = sorted(examples.iterdir())
    guided = next(f for f in folders if f.name.startswith(f"{DEMO_TASK}-guided-"))
    unguided = next(f for f in folders if f.name.startswith(f"{DEMO_TASK}-unguided-"))
    return guided, unguided


async def take(out: Path) -> list[Path]:
    guided, unguided = demo_pair(project_root() / "sessions" / "examples")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as scratch:
        app = WorkbenchApp(sessions=project_root() / "sessions", mode="interpret")
        async with app.run_test(size=SIZE) as pilot:

            def save(name: str) -> None:
                written.append(Path(app.save_screenshot(f"{name}.svg", str(out))))

            await _until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)
            await pilot.pause()
            save("home")

            app.open_session(guided)
            await _until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#cursor-bar"))
            await pilot.press("home", "right", "right", "right")
            await pilot.pause()
            save("replay")
            app.screen.query_one(TabbedContent).active = "tab-ladder"
            ladder = app.screen.query_one("#ladder-md", Markdown)
            await _until(pilot, lambda: "Design ladder" in ladder.source)
            await pilot.pause(0.3)
            save("ladder")
            await pilot.press("escape")

            await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
            app.push_screen(CompareScreen(guided, unguided))
            await _until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.is_mounted)
            await pilot.press("home", "right", "right", "right")
            await pilot.pause(0.5)
            save("compare")
            await pilot.press("escape")

            await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
            app.sessions_root = Path(scratch)  # the demo session is not kept
            screen = app.start_session("rmsnorm_residual", "L1,L2,L3", "scripted", paused=True)
            assert screen is not None
            await _until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
            for turn in (1, 2, 3):
                await pilot.press("s")
                await _until(pilot, _paused_after(screen, turn))
            await pilot.pause(0.3)
            assert isinstance(app.screen, LiveScreen)
            save("session")
            await pilot.press("escape")
        app.wait_closed()
    return written


def render_png(svg: Path, browser: str) -> Path:
    """Draw an SVG screenshot into a PNG beside it with headless Chromium, at the SVG's own size."""
    found = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg.read_text()[:400])
    if found is None:
        raise ValueError(f"{svg}: no viewBox, not a screenshot of the app")
    width, height = (round(float(v)) for v in found.groups())
    png = svg.with_suffix(".png")
    with tempfile.TemporaryDirectory() as profile:
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   f"--user-data-dir={profile}", f"--force-device-scale-factor={PNG_SCALE}",
                   f"--window-size={width},{height}", f"--screenshot={png}", svg.resolve().as_uri()]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0 or not png.exists():
        raise RuntimeError(f"Chromium could not draw {svg.name}: {done.stderr.strip()[-300:]}")
    return png


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def main(argv: list[str]) -> int:
    png = "--png" in argv
    args = [a for a in argv if a != "--png"]
    if len(args) != 1:
        print("usage: python -m workbench.tui.screenshots OUT_DIR [--png]", file=sys.stderr)
        return 2
    browser = chromium()
    if png and browser is None:
        print("--png needs Chromium (chromium or google-chrome on PATH)", file=sys.stderr)
        return 2
    for path in asyncio.run(take(Path(args[0]))):
        print(path)
        if png and browser is not None:
            print(render_png(path, browser))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
