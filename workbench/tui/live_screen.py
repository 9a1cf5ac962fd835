"""A live session: the loop runs in its worker thread (a `LiveRun`, which goes on when this screen is left); its
callbacks come to the UI as messages.

The person runs, pauses, steps, interrupts, takes over (the editor becomes editable, or ctrl+e opens
solution.py in $EDITOR), evaluates and submits (in thread workers), leaves notes, and hands back. In a session a
person drives from the start (human mode) there is no model: the editor is theirs, and `t` hands the session to a
model (a resume with a provider). Saves of solution.py made outside the app are watched: while taken over they are
recorded as the person's edit and evaluated; while the agent drives they are only pointed out. The UI thread never
waits on the loop.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from workbench.session.events import Event, Files, ToolCall, TurnEnd
from workbench.session.loop import LoopState
from workbench.tui.dialogs import HandOverDialog, NoteDialog, ProviderChoice
from workbench.tui.feed_screen import FeedScreen
from workbench.tui.runs import LiveRun
from workbench.tui.session_view import VIEW_KEYS
from workbench.tui.workspace_watch import watch_solution

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

# (action, title, help) for the footer's bindings and the command palette
CONTROLS = [
    ("run_pause", "Run / pause", "Run the agent, or pause it after the current turn"),
    ("step", "Step", "Run one turn, then pause"),
    ("interrupt", "Interrupt", "Cancel the model call or tool in flight, then pause"),
    ("take_over", "Take over / hand back", "Edit solution.py yourself while the agent waits; again to hand back"),
    ("hand_over", "Hand to a model", "A session you drive goes on with a model you choose (its key must be set)"),
    ("evaluate", "Evaluate now", "Evaluate the editor's solution.py (while taken over)"),
    ("submit", "Submit", "Record a submission of the editor's solution.py and go on working (while taken over)"),
    ("submit_final", "Submit & finish", "Submit the editor's solution.py as final; the session ends (taken over)"),
    ("note", "Note for the agent", "A note delivered with the agent's next request"),
    ("external_editor", "Edit in $EDITOR", "Open solution.py in $EDITOR (while taken over); a save is evaluated"),
    ("toggle_folds", "Fold / unfold results", "Show long tool results whole, or folded to their first lines"),
]
TAKEN_OVER_ONLY = {"evaluate", "submit", "submit_final", "external_editor"}


class LiveScreen(FeedScreen):
    BINDINGS = [
        # the footer shows keys in this order and cuts the rest on a narrow terminal: the most used first
        Binding("space", "run_pause", "Run/pause"),
        Binding("s", "step", "Step"),
        Binding("e", "evaluate", "Evaluate"),
        Binding("u", "submit", "Submit"),
        Binding("U", "submit_final", "Submit & finish"),
        Binding("n", "note", "Note"),
        # ctrl+t works in the editor too; the footer shows it where t would be typed as a letter
        Binding("t", "take_over", "Take over/hand back"),
        Binding("ctrl+t", "take_over", "Take over/hand back"),
        Binding("t", "hand_over", "Hand to a model"),
        Binding("ctrl+t", "hand_over", "Hand to a model"),
        Binding("i", "interrupt", "Interrupt"),
        Binding("f", "toggle_folds", "Fold/unfold"),
        Binding("ctrl+e", "external_editor", "$EDITOR"),
        # taken over, the editor is modal: it takes the letter keys; esc leaves it to the screen's keys above
        # (TextArea's own escape does that; this binding only names it in the footer), i or enter goes back in
        Binding("i,enter", "edit", "Edit solution.py"),
        Binding("escape", "leave_editor", "Leave editor", tooltip="Leave the editor: the single keys act again"),
        Binding("escape", "back", "Home"),  # (a key bound here replaces its bindings of SessionView)
        *VIEW_KEYS,
    ]

    class OutsideSave(Message):
        """solution.py was written in the workspace (by anyone: the filter is on the UI thread)."""

    def __init__(self, run: LiveRun) -> None:
        super().__init__(run, run.session.start_event)
        self.run = run
        self.live = run.session
        self.loop = run.loop
        self.busy = ""  # what a human worker is doing, shown with the state
        self._agent_writing = False  # between the agent's first tool call of a turn and the turn's end
        self._pointed_out = ""  # the outside save last pointed out while the agent drives
        self._typed: str | None = None  # what the person last typed in the editor

    def on_mount(self) -> None:
        super().on_mount()
        self.sub_title = f"{'you drive' if self.run.human else 'live'} · {self.live.folder}"
        self.state_changed()
        self.loop.work.mkdir(parents=True, exist_ok=True)
        self.observer = watch_solution(self.loop.work, self._post_outside_save)

    def on_unmount(self) -> None:
        """The session goes on without its screen; what the person typed in the editor is recorded, not lost."""
        self.observer.stop()
        typed = self._typed  # the editor is gone by now
        if typed is not None and self.loop.status == LoopState.TAKEN_OVER and typed != self._disk_solution():
            try:
                self.loop.human_edit(typed)
            except (OSError, RuntimeError):
                pass  # the loop ended meanwhile: the workspace is as it was last recorded
        super().on_unmount()

    def show_all(self, events: list[Event]) -> None:
        super().show_all(events)
        if self.loop.status == LoopState.TAKEN_OVER:
            self.show_solution(self._disk_solution())  # the person's, as last saved

    def state_label(self) -> str:
        label = self.run.state_text()
        return f"{label} · {self.busy}" if self.busy else label

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing now are left out of the footer (and do nothing); `?` lists them all."""
        status, agent = self.loop.status, not self.run.human
        live = status != LoopState.FINISHED
        allowed = {
            "run_pause": agent and status in (LoopState.RUNNING, LoopState.PAUSED),
            "step": agent and status in (LoopState.RUNNING, LoopState.PAUSED),
            "interrupt": agent and status == LoopState.RUNNING,
            "take_over": agent and live,
            "hand_over": not agent and live,
            "note": live,
            "edit": status == LoopState.TAKEN_OVER and not self.editing,
            "leave_editor": self.editing,
            "back": not self.editing,  # esc leaves the editor first
            "search": not self.editing,  # / is typed in the editor
        }
        if action in TAKEN_OVER_ONLY:
            return status == LoopState.TAKEN_OVER
        return allowed.get(action, True)

    @property
    def editing(self) -> bool:
        """The person types in the editor: letter keys are text, not commands."""
        editor = self.focused
        return isinstance(editor, TextArea) and editor.id == "editor" and not editor.read_only

    def action_edit(self) -> None:
        self.editor.focus()

    def action_leave_editor(self) -> None:
        self.transcript.log_widget.focus()

    @on(TextArea.Changed, "#editor")
    def _on_typed(self, event: TextArea.Changed) -> None:
        if not event.text_area.read_only:
            self._typed = event.text_area.text

    def _post_outside_save(self) -> None:  # from watchdog's thread
        self.post_message(self.OutsideSave())

    def shown_events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, (ToolCall, TurnEnd)):
                self._agent_writing = isinstance(event, ToolCall)
        solution_changed = any(isinstance(e, Files) and "solution.py" in e.changed for e in events)
        if solution_changed and self.editor.read_only:
            self.show_solution(self.progress.solution)

    def state_changed(self) -> None:
        taken = self.loop.status == LoopState.TAKEN_OVER
        if taken and self.editor.read_only:
            self.show_solution(self._disk_solution())
            self.editor.focus()
        self.editor.read_only = not taken
        self.editor.set_class(taken, "editable")

    # -- controls -----------------------------------------------------------------------------------
    def action_run_pause(self) -> None:
        if self.loop.status == LoopState.RUNNING:
            self.loop.pause()
            self.notify("pausing after this turn")
        elif self.loop.status == LoopState.PAUSED:
            self.loop.run()

    def action_step(self) -> None:
        if self.loop.status in (LoopState.PAUSED, LoopState.RUNNING):
            self.loop.step()

    def action_interrupt(self) -> None:
        if self.loop.status == LoopState.RUNNING:
            self.loop.interrupt()

    def action_take_over(self) -> None:
        if self.loop.status == LoopState.TAKEN_OVER:
            self._hand_back(self.editor.text)
        elif self.loop.status != LoopState.FINISHED:
            self.loop.take_over()
            self.notify("taking over after this turn" if self.loop.status == LoopState.RUNNING else "taking over")

    def action_hand_over(self) -> None:
        """A session the person drives goes on with a model: chosen in a form, checked (its key) before anything
        changes, then the session is resumed with it. The editor's text is recorded first."""
        app = cast("WorkbenchApp", self.app)

        def chosen(choice: ProviderChoice | None) -> None:
            if choice is not None and self.loop.status != LoopState.FINISHED:
                app.hand_over(self.run, choice, self.editor.text)

        app.push_screen(HandOverDialog(app.hand_over_providers(self.start.task, set(self.start.levels))), chosen)

    def action_evaluate(self) -> None:
        if self._require_takeover():
            self._human("evaluate", self.editor.text)

    def action_submit(self) -> None:
        if self._require_takeover():
            self._human("submit", self.editor.text)

    def action_submit_final(self) -> None:
        if self._require_takeover():
            self._human("submit_final", self.editor.text)

    def action_toggle_folds(self) -> None:
        self.transcript.log_widget.action_toggle_folds()

    def action_external_editor(self) -> None:
        """solution.py in $EDITOR, the app suspended until it exits; the save is picked up as an outside save."""
        if not self._require_takeover():
            return
        command = os.environ.get("EDITOR", "").strip()
        if not command:
            self.notify("$EDITOR is not set: set it to open solution.py in your editor", severity="warning")
            return
        if self.editor.text != self._disk_solution():
            self.loop.human_edit(self.editor.text)  # the editor opens what the person sees
        argv = [*shlex.split(command), str(self.loop.work / "solution.py")]
        try:
            with self.app.suspend():
                code = subprocess.run(argv, check=False).returncode
        except SuspendNotSupported:  # no terminal to hand over (headless): the editor runs without one
            code = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True).returncode
        except OSError as exc:
            self.notify(f"cannot run $EDITOR: {exc}", severity="error")
            return
        if code:
            self.notify(f"$EDITOR exited with status {code}", severity="warning")
        self._on_outside_save()  # at once, not waiting for the watcher (which then finds nothing new)

    @on(OutsideSave)
    def _on_outside_save(self) -> None:
        self.flush_events()
        source = self._disk_solution()
        if self.loop.status == LoopState.TAKEN_OVER:
            if source != self.editor.text:
                self.show_solution(source)
                self.notify("solution.py saved outside the app: recorded as your edit, evaluating")
                self._human("evaluate", source, record=True)
        elif not self._agent_writing and source not in (self.progress.solution, self._pointed_out):
            self._pointed_out = source
            self.notify("solution.py changed outside the app (take over to have it evaluated)", severity="warning")

    def action_note(self) -> None:
        def deliver(text: str | None) -> None:
            if text and self.loop.status != LoopState.FINISHED:
                self.loop.note(text)

        self.app.push_screen(NoteDialog(), deliver)

    # -- workers: the loop's human_* calls write files and run evals ---------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="human")
    def _human(self, what: str, source: str, record: bool = False) -> None:
        self._set_busy(f"{what.replace('_final', '')}…")
        try:
            if record:  # already on disk, saved outside the app: record it as the person's edit
                self.loop.human_edit(source)
            else:
                self._apply_edit(source)
            if what == "evaluate":
                result = self.loop.human_evaluate()
            else:
                result = self.loop.human_submit(final=what == "submit_final")
            verdict = "correct" if result is not None and result.correct else "not correct"
            done = "; the session ends" if what == "submit_final" else ""
            self.app.call_from_thread(self.notify, f"{what.replace('_final', '')}: {verdict}{done}")
        except Exception as exc:  # a worker's boundary: tell the person, keep the session
            self.app.call_from_thread(self.notify, f"{what.replace('_final', '')} failed: {exc}", severity="error")
        finally:
            self._set_busy("")

    @work(thread=True, exclusive=True, exit_on_error=False, group="human")
    def _hand_back(self, source: str) -> None:
        try:
            self._apply_edit(source)
            self.loop.hand_back()
        except Exception as exc:
            self.app.call_from_thread(self.notify, f"hand back failed: {exc}", severity="error")

    def _apply_edit(self, source: str) -> None:
        if source != self._disk_solution():
            self.loop.human_edit(source)

    def _set_busy(self, text: str) -> None:
        self.busy = text
        self.app.call_from_thread(self.refresh_timing)

    def _disk_solution(self) -> str:
        path = self.loop.work / "solution.py"
        return path.read_text() if path.exists() else ""

    def _require_takeover(self) -> bool:
        if self.loop.status != LoopState.TAKEN_OVER:
            self.notify("take over first (t)", severity="warning")
            return False
        return True
