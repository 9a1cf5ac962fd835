"""WorkbenchApp: the home screen, live sessions and replays; `run_app(argv)` is `workbench` with no command."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.screen import Screen

from workbench.guidance import parse_levels
from workbench.session.log import LogError
from workbench.session.service import Session
from workbench.session.specs import ProviderSpec, find_script
from workbench.session.store import sessions_root
from workbench.tasks import TaskFormatError, load_task
from workbench.tui.catalog import BUILTIN_SCRIPTS, available_providers
from workbench.tui.dialogs import NewSessionChoice, NewSessionDialog
from workbench.tui.home import HomeScreen
from workbench.tui.launch import LaunchError, new_session, resume_session
from workbench.tui.live_screen import CONTROLS, LiveScreen
from workbench.tui.replay_screen import ReplayScreen


class WorkbenchApp(App[None]):
    CSS_PATH = "workbench.tcss"
    TITLE = "D2K Workbench"

    def __init__(self, sessions: Path | None = None, script_dirs: list[Path] | None = None,
                 mode: str | None = None, budget: int = 350) -> None:  # fmt: skip
        super().__init__()
        self.sessions_root = sessions_root(sessions)
        self.script_dirs = [*(script_dirs or []), BUILTIN_SCRIPTS]
        self.mode = mode
        self.budget = budget
        self.closers: list[threading.Thread] = []  # live sessions being closed after their screen

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, LiveScreen):
            for action, title, help_text in CONTROLS:
                yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))

    # -- opening and starting sessions ------------------------------------------------------------
    def open_session(self, folder: Path) -> None:
        """A saved session in replay (read-only); an unfinished one can be resumed from there (r)."""
        try:
            screen = ReplayScreen(folder)
        except (LogError, OSError, KeyError) as exc:
            self.notify(f"cannot open {folder.name}: {exc}", severity="error")
            return
        self.push_screen(screen)
        if screen.end_reason in (None, "interrupted"):
            self.notify("this session has not ended: press r to resume it live")

    def new_session_dialog(self, task: str) -> None:
        try:
            has_guidance = load_task(task).guidance_path is not None
        except TaskFormatError as exc:
            self.notify(str(exc), severity="error")
            return
        providers = available_providers(find_script(task, set(), self.script_dirs) is not None)
        if not providers:
            self.notify("no script for this task and no API key set", severity="error")
            return

        def start(choice: NewSessionChoice | None) -> None:
            if choice is not None:
                self.start_session(task, choice.levels, choice.provider, model=choice.model, budget=choice.budget,
                                   base_url=choice.base_url)  # fmt: skip

        self.push_screen(NewSessionDialog(task, providers, has_guidance, self.budget), start)

    def start_session(self, task: str, levels_text: str, provider_name: str, paused: bool = False,
                      model: str | None = None, budget: int | None = None,
                      base_url: str | None = None) -> LiveScreen | None:  # fmt: skip
        try:
            levels = parse_levels(levels_text) if levels_text else set()
            provider = ProviderSpec(provider_name, model, base_url, script_dirs=tuple(self.script_dirs))
            live = new_session(task, levels, provider, self.mode, self.sessions_root, budget or self.budget)
        except (LaunchError, ValueError, OSError) as exc:
            self.notify(str(exc), severity="error")
            return None
        return self._go_live(live, paused)

    def resume(self, folder: Path) -> None:
        try:
            live = resume_session(folder, self.script_dirs)
        except (LaunchError, LogError, ValueError, OSError) as exc:
            self.notify(str(exc), severity="error")
            return
        self.pop_screen()
        self._go_live(live, paused=True)

    def _go_live(self, live: Session, paused: bool) -> LiveScreen:
        screen = LiveScreen(live, paused=paused)
        screen.closers = self.closers
        self.push_screen(screen)
        return screen

    def wait_closed(self, timeout: float = 30.0) -> None:
        """Wait for the live sessions the app stopped to write their end and close their logs."""
        for closer in self.closers:
            closer.join(timeout)


def run_app(argv: list[str] | None = None) -> int:
    """`workbench` with no command: the app. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="workbench", description="the D2K Workbench app")
    parser.add_argument("--sessions", type=Path, help="sessions folder (default: ./sessions or $WORKBENCH_SESSIONS)")
    parser.add_argument("--scripts", type=Path, action="append", help="a folder of scripts for scripted sessions")
    parser.add_argument("--mode", choices=("cuda", "interpret"), help="how evals of new sessions run")
    parser.add_argument("--budget", type=int, default=350, help="turns of a new session (default 350)")
    args = parser.parse_args(argv)
    app = WorkbenchApp(args.sessions, args.scripts, args.mode, args.budget)
    app.run()
    app.wait_closed()
    return 0
