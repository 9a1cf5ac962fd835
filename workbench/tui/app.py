"""WorkbenchApp: the home screen, live sessions and replays; `run_app(argv)` is `workbench` with no command.

The app holds the sessions it runs (`runs`: they go on when their screen is left, and stop, resumable, when the app
quits) and those it follows as other processes write them (`follows`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from workbench.guidance import parse_levels
from workbench.session.log import LogError
from workbench.session.loop import LoopState
from workbench.session.service import HUMAN, PersonAtKeyboard, Session
from workbench.session.specs import ProviderSpec, find_script
from workbench.session.store import sessions_root
from workbench.tasks import TaskFormatError, load_task
from workbench.tui.catalog import BUILTIN_SCRIPTS, available_providers, hand_over_providers
from workbench.tui.dialogs import NewSessionChoice, NewSessionDialog, ProviderChoice
from workbench.tui.follow_screen import FollowScreen
from workbench.tui.home import HomeScreen
from workbench.tui.launch import LaunchError, check_provider, hand_over, new_session, resume_session
from workbench.tui.live_screen import CONTROLS, LiveScreen
from workbench.tui.replay_screen import ReplayScreen
from workbench.tui.runs import FollowedRun, LiveRun
from workbench.tui.settings import Settings, load_settings, save_settings, settings_path

HAND_OVER_WAIT_S = 60.0  # for the person's session to end before the model's resume takes it


class WorkbenchApp(App[None]):
    CSS_PATH = "workbench.tcss"
    TITLE = "D2K Workbench"
    # the screen's class by terminal width: workbench.tcss stacks panels and tightens the footer when narrow
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (160, "-wide")]
    BINDINGS = [
        Binding("q", "quit", "Quit"),  # on every screen (typed as a letter where a text field has the focus)
        Binding("question_mark", "help", "Keys", key_display="?"),
    ]

    def __init__(self, sessions: Path | None = None, script_dirs: list[Path] | None = None,
                 mode: str | None = None, budget: int = 350, settings: Path | None = None) -> None:  # fmt: skip
        """`settings`: the file the theme is kept in (`workbench` passes the user's; None keeps nothing)."""
        super().__init__()
        self.settings_file = settings
        self.settings = Settings()
        self._settings_loaded = False  # the theme set while restoring is not saved back
        self.sessions_root = sessions_root(sessions)
        self.script_dirs = [*(script_dirs or []), BUILTIN_SCRIPTS]
        self.mode = mode
        self.budget = budget
        self.runs: dict[Path, LiveRun] = {}  # the sessions this app writes, by their resolved folder
        self.follows: dict[Path, FollowedRun] = {}  # sessions other processes write, followed

    def on_mount(self) -> None:
        self._restore_settings()
        self.push_screen(HomeScreen())

    def _restore_settings(self) -> None:
        if self.settings_file is not None:
            self.settings, notice = load_settings(self.settings_file)
            if notice:
                self.notify(notice, severity="warning")
            theme = self.settings.theme
            if theme in self.available_themes:
                self.theme = theme
            elif theme:
                self.notify(f"theme {theme!r} in the settings is not known: the default is used", severity="warning")
        self._settings_loaded = True

    def watch_theme(self, theme: str) -> None:
        """A theme chosen (in the command palette) is kept for the next start."""
        if self.settings_file is None or not self._settings_loaded or theme == self.settings.theme:
            return
        self.settings.theme = theme
        try:
            save_settings(self.settings_file, self.settings)
        except OSError as exc:
            self.notify(f"cannot save the theme: {exc}", severity="warning")

    def on_unmount(self) -> None:
        for run in self.runs.values():
            run.stop()  # interrupted, resumable: a session does not outlive the app that writes it
        for follow in self.follows.values():
            follow.stop()

    def action_help(self) -> None:
        """The keys of the screen on top, all of them (the footer shows only those that do something now)."""
        from workbench.tui.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, LiveScreen):
            for action, title, help_text in CONTROLS:
                if screen.check_action(action, ()) is not False:  # as the footer: only what does something now
                    yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))

    # -- opening and starting sessions ------------------------------------------------------------
    def open_session(self, folder: Path) -> None:
        """A session this app runs: its live screen again. One another process writes: followed live, read-only.
        Else a replay (read-only); an unfinished one can be resumed from there (r)."""
        run = self.runs.get(folder.resolve())
        if run is not None and not run.ended:
            self.push_screen(LiveScreen(run))
            return
        follow = self.follow(folder)
        if follow is not None:
            self.push_screen(FollowScreen(follow))
            return
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

        def start(choice: NewSessionChoice | None) -> None:
            if choice is not None:
                self.start_session(task, choice.levels, choice.provider, paused=choice.paused, model=choice.model,
                                   budget=choice.budget, base_url=choice.base_url)  # fmt: skip

        self.push_screen(NewSessionDialog(task, providers, has_guidance, self.budget), start)

    def start_session(self, task: str, levels_text: str, provider_name: str, paused: bool = False,
                      model: str | None = None, budget: int | None = None,
                      base_url: str | None = None) -> LiveScreen | None:  # fmt: skip
        try:
            levels = parse_levels(levels_text) if levels_text else set()
            provider = (PersonAtKeyboard() if provider_name == HUMAN else
                        ProviderSpec(provider_name, model, base_url, script_dirs=tuple(self.script_dirs)))  # fmt: skip
            live = new_session(task, levels, provider, self.mode, self.sessions_root, budget or self.budget)
        except (LaunchError, ValueError, OSError) as exc:
            self.notify(str(exc), severity="error")
            return None
        return self.go_live(live, paused)

    def resume(self, folder: Path) -> None:
        try:
            live = resume_session(folder, self.script_dirs)
        except (LaunchError, LogError, ValueError, OSError) as exc:
            self.notify(str(exc), severity="error")
            return
        follow = self.follows.pop(folder.resolve(), None)
        if follow is not None:
            follow.stop()
        self.pop_screen()
        self.go_live(live, paused=True)

    def go_live(self, live: Session, paused: bool, note: str | None = None) -> LiveScreen:
        """Run a session this process writes (on as a background run from now on) and show it."""
        run = LiveRun(live)
        self.runs[live.folder.resolve()] = run
        if note:
            run.loop.note(note)
        run.start(paused=paused)
        screen = LiveScreen(run)
        self.push_screen(screen)
        return screen

    def follow(self, folder: Path) -> FollowedRun | None:
        """The session followed as another process writes it; None when no other process does (or it ended)."""
        key = folder.resolve()
        if key in self.runs:
            return None
        follow = self.follows.get(key)
        if follow is not None and (follow.error or follow.ended or follow.writer() is None):
            follow.stop()  # done: ended, or its writer is gone (a screen showing it keeps what it read)
            del self.follows[key]
            follow = None
        if follow is None:
            follow = FollowedRun.if_written_elsewhere(folder)
            if follow is not None:
                self.follows[key] = follow
        return follow

    # -- a person's session handed to a model -----------------------------------------------------
    def hand_over_providers(self, task: str, levels: set[int]) -> list[str]:
        return hand_over_providers(find_script(task, levels, self.script_dirs) is not None)

    def hand_over(self, run: LiveRun, choice: ProviderChoice, source: str) -> None:
        """Resume the person's session with the chosen model. A missing key (or script) says so in one line and
        the person's session goes on as it was."""
        start = run.session.start_event
        spec = ProviderSpec(choice.provider, choice.model, choice.base_url, script_dirs=tuple(self.script_dirs))
        try:
            check_provider(spec, start.task, set(start.levels))
        except LaunchError as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"handing the session to {choice.provider}…")
        self._hand_over(run, spec, source)

    @work(thread=True, exclusive=True, exit_on_error=False, group="hand-over")
    def _hand_over(self, run: LiveRun, spec: ProviderSpec, source: str) -> None:
        try:
            if run.loop.status == LoopState.TAKEN_OVER and source != run.disk_solution():
                run.loop.human_edit(source)  # what the person typed is theirs, recorded before the model goes on
            run.stop()
            if not run.wait_closed(HAND_OVER_WAIT_S):
                raise LaunchError("the session did not stop in time; try again")
            session, note = hand_over(run.folder, spec)
        except (LaunchError, OSError, RuntimeError) as exc:
            self.call_from_thread(self.notify, f"cannot hand over: {exc}", severity="error")
            return
        self.call_from_thread(self._handed_over, run, session, note)

    def _handed_over(self, run: LiveRun, session: Session, note: str) -> None:
        if isinstance(self.screen, LiveScreen) and self.screen.run is run:
            self.pop_screen()
        self.go_live(session, paused=False, note=note)

    def wait_closed(self, timeout: float = 30.0) -> None:
        """Wait for the live sessions the app stopped to write their end and close their logs."""
        for run in list(self.runs.values()):
            run.stop()
            run.wait_closed(timeout)


def run_app(argv: list[str] | None = None) -> int:
    """`workbench` with no command: the app. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="workbench", description="the D2K Workbench app")
    parser.add_argument("--sessions", type=Path, help="sessions folder (default: ./sessions or $WORKBENCH_SESSIONS)")
    parser.add_argument("--scripts", type=Path, action="append", help="a folder of scripts for scripted sessions")
    parser.add_argument("--mode", choices=("cuda", "interpret"), help="how evals of new sessions run")
    parser.add_argument("--budget", type=int, default=350, help="turns of a new session (default 350)")
    args = parser.parse_args(argv)
    app = WorkbenchApp(args.sessions, args.scripts, args.mode, args.budget, settings=settings_path())
    app.run()
    app.wait_closed()
    return 0
