"""A live session: the loop runs in its worker thread; its callbacks come to the UI as messages.

The person runs, pauses, steps, interrupts, takes over (the editor becomes editable, or ctrl+e opens
solution.py in $EDITOR), evaluates and submits (in thread workers), leaves notes, and hands back. Saves of
solution.py made outside the app are watched: while taken over they are recorded as the person's edit
and evaluated; while the agent drives they are only pointed out. The UI thread never waits on the loop.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import threading

from textual import on, work
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.message import Message

from workbench.agent.conversation import Delta
from workbench.session.events import Event, Files, ToolCall, TurnEnd
from workbench.session.history import rebuild
from workbench.session.loop import AgentLoop, LoopCallbacks, LoopState
from workbench.session.service import Session
from workbench.tui.dialogs import NoteDialog
from workbench.tui.session_view import SessionView
from workbench.tui.workspace_watch import watch_solution

BATCH_S = 0.05  # events from the loop are shown together, at most this late

# (action, title, help) for the footer's bindings and the command palette
CONTROLS = [
    ("run_pause", "Run / pause", "Run the agent, or pause it after the current turn"),
    ("step", "Step", "Run one turn, then pause"),
    ("interrupt", "Interrupt", "Cancel the model call or tool in flight, then pause"),
    ("take_over", "Take over / hand back", "Edit solution.py yourself while the agent waits; again to hand back"),
    ("evaluate", "Evaluate now", "Evaluate the editor's solution.py (while taken over)"),
    ("submit", "Submit", "Record a submission of the editor's solution.py (while taken over)"),
    ("note", "Note for the agent", "A note delivered with the agent's next request"),
    ("external_editor", "Edit in $EDITOR", "Open solution.py in $EDITOR (while taken over); a save is evaluated"),
    ("toggle_folds", "Fold / unfold results", "Show long tool results whole, or folded to their first lines"),
]


class LiveScreen(SessionView):
    BINDINGS = [
        Binding("space", "run_pause", "Run/pause"),
        Binding("s", "step", "Step"),
        Binding("i", "interrupt", "Interrupt"),
        Binding("t,ctrl+t", "take_over", "Take over/hand back", key_display="t"),
        Binding("e", "evaluate", "Evaluate"),
        Binding("u", "submit", "Submit"),
        Binding("n", "note", "Note"),
        Binding("f", "toggle_folds", "Fold/unfold"),
        Binding("ctrl+e", "external_editor", "$EDITOR"),
    ]

    class LoopEvent(Message):
        def __init__(self, event: Event) -> None:
            super().__init__()
            self.event = event

    class LoopDelta(Message):
        def __init__(self, delta: Delta) -> None:
            super().__init__()
            self.delta = delta

    class LoopStateChanged(Message):
        def __init__(self, state: LoopState) -> None:
            super().__init__()
            self.state = state

    class OutsideSave(Message):
        """solution.py was written in the workspace (by anyone: the filter is on the UI thread)."""

    def __init__(self, live: Session, paused: bool = False) -> None:
        super().__init__(live.start_event)
        self.live = live
        self.start_paused = paused
        self.busy = ""  # what a human worker is doing, shown with the state
        self.closers: list[threading.Thread] = []  # threads closing the session after the screen
        callbacks = LoopCallbacks(self._from_loop_event, self._from_loop_delta, self._from_loop_state)
        self.loop: AgentLoop = live.attach(callbacks)  # started once the screen is up
        self._agent_writing = False  # between the agent's first tool call of a turn and the turn's end
        self._pointed_out = ""  # the outside save last pointed out while the agent drives
        self._pending: list[Event] = []  # events from the loop not shown yet

    def on_mount(self) -> None:
        super().on_mount()
        self.sub_title = f"live · {self.live.folder}"
        self.progress = rebuild(self.live.history)
        self.transcript.add_events(self.live.history)
        self.show_solution(self.progress.solution)
        self.loop.start(paused=self.start_paused)
        self.refresh_timing()
        self.loop.work.mkdir(parents=True, exist_ok=True)
        self.observer = watch_solution(self.loop.work, self._post_outside_save)

    def on_unmount(self) -> None:
        self.observer.stop()
        self.shutdown()

    def shutdown(self) -> threading.Thread:
        """Stop the loop (the session stays resumable) and close its log once it has ended, in a
        thread: a tool in flight takes a moment to cancel and the UI does not wait for it."""
        if self.loop.status != LoopState.FINISHED:
            self.loop.stop()

        def close() -> None:
            self.loop.wait()
            self.live.close()

        closer = threading.Thread(target=close, name="session-close", daemon=True)
        closer.start()
        self.closers.append(closer)
        return closer

    def state_label(self) -> str:
        label = self.loop.status.value
        return f"{label} · {self.busy}" if self.busy else label

    # -- from the loop's thread, as messages (post_message is thread-safe and does not wait) ---------
    def _from_loop_event(self, event: Event) -> None:
        self.post_message(self.LoopEvent(event))

    def _from_loop_delta(self, delta: Delta) -> None:
        self.post_message(self.LoopDelta(delta))

    def _from_loop_state(self, state: LoopState) -> None:
        self.post_message(self.LoopStateChanged(state))

    def _post_outside_save(self) -> None:  # from watchdog's thread
        self.post_message(self.OutsideSave())

    @on(LoopEvent)
    def _on_loop_event(self, message: LoopEvent) -> None:
        # batched: a fast agent logs events faster than the screen can be laid out once per event
        self._pending.append(message.event)
        if len(self._pending) == 1:
            self.set_timer(BATCH_S, self._flush_events)

    def _flush_events(self) -> None:
        events, self._pending = self._pending, []
        if not events:
            return
        for event in events:
            self.progress.apply(event)
            if isinstance(event, (ToolCall, TurnEnd)):
                self._agent_writing = isinstance(event, ToolCall)
        self.transcript.add_events(events)
        solution_changed = any(isinstance(e, Files) and "solution.py" in e.changed for e in events)
        if solution_changed and self.editor.read_only:
            self.show_solution(self.progress.solution)
        self.refresh_timing()

    @on(LoopDelta)
    def _on_loop_delta(self, message: LoopDelta) -> None:
        self.transcript.add_delta(message.delta)

    @on(LoopStateChanged)
    def _on_loop_state(self, message: LoopStateChanged) -> None:
        self._flush_events()
        taken = message.state == LoopState.TAKEN_OVER
        if taken and self.editor.read_only:
            self.show_solution(self._disk_solution())
            self.editor.focus()
        self.editor.read_only = not taken
        self.editor.set_class(taken, "editable")
        self.refresh_timing()

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

    def action_evaluate(self) -> None:
        if self._require_takeover():
            self._human("evaluate", self.editor.text)

    def action_submit(self) -> None:
        if self._require_takeover():
            self._human("submit", self.editor.text)

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
        self._flush_events()
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
        self._set_busy(f"{what}…")
        try:
            if record:  # already on disk, saved outside the app: record it as the person's edit
                self.loop.human_edit(source)
            else:
                self._apply_edit(source)
            result = self.loop.human_evaluate() if what == "evaluate" else self.loop.human_submit()
            verdict = "correct" if result is not None and result.correct else "not correct"
            self.app.call_from_thread(self.notify, f"{what}: {verdict}")
        except Exception as exc:  # a worker's boundary: tell the person, keep the session
            self.app.call_from_thread(self.notify, f"{what} failed: {exc}", severity="error")
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
