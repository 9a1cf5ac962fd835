"""A live session: the loop runs in its worker thread; its callbacks come to the UI as messages.

The person runs, pauses, steps, interrupts, takes over (the editor becomes editable), evaluates and
submits (in thread workers), leaves notes, and hands back. The UI thread never waits on the loop.
"""

from __future__ import annotations

import threading

from textual import on, work
from textual.binding import Binding
from textual.message import Message

from workbench.agent.conversation import Delta
from workbench.session.log import Event
from workbench.session.loop import AgentLoop, LoopCallbacks, LoopState
from workbench.session.store import build_loop
from workbench.tui.dialogs import NoteDialog
from workbench.tui.launch import LiveSession
from workbench.tui.session_view import SessionView
from workbench.tui.timeline import fold

# (action, title, help) for the footer's bindings and the command palette
CONTROLS = [
    ("run_pause", "Run / pause", "Run the agent, or pause it after the current turn"),
    ("step", "Step", "Run one turn, then pause"),
    ("interrupt", "Interrupt", "Cancel the model call or tool in flight, then pause"),
    ("take_over", "Take over / hand back", "Edit solution.py yourself while the agent waits; again to hand back"),
    ("evaluate", "Evaluate now", "Evaluate the editor's solution.py (while taken over)"),
    ("submit", "Submit", "Record a submission of the editor's solution.py (while taken over)"),
    ("note", "Note for the agent", "A note delivered with the agent's next request"),
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

    def __init__(self, live: LiveSession, paused: bool = False) -> None:
        super().__init__(live.history[0])
        self.live = live
        self.start_paused = paused
        self.busy = ""  # what a human worker is doing, shown with the state
        self.closers: list[threading.Thread] = []  # threads closing the session after the screen
        callbacks = LoopCallbacks(self._from_loop_event, self._from_loop_delta, self._from_loop_state)
        self.loop: AgentLoop = build_loop(live.setup, live.folder, live.log, live.state, callbacks)

    def on_mount(self) -> None:
        super().on_mount()
        self.sub_title = f"live · {self.live.folder}"
        self.progress = fold(self.live.history)
        self.transcript.add_events(self.live.history)
        self.show_solution(self.progress.solution)
        self.loop.start(paused=self.start_paused)
        self.refresh_timing()

    def on_unmount(self) -> None:
        self.shutdown()

    def shutdown(self) -> threading.Thread:
        """Stop the loop (the session stays resumable) and close its log once it has ended, in a
        thread: a tool in flight takes a moment to cancel and the UI does not wait for it."""
        if self.loop.status != LoopState.FINISHED:
            self.loop.stop()

        def close() -> None:
            self.loop.wait()
            self.live.log.close()

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

    @on(LoopEvent)
    def _on_loop_event(self, message: LoopEvent) -> None:
        event = message.event
        self.progress.apply(event)
        self.transcript.add_event(event)
        if event["kind"] == "files" and "solution.py" in event["changed"] and self.editor.read_only:
            self.show_solution(self.progress.solution)
        self.refresh_timing()

    @on(LoopDelta)
    def _on_loop_delta(self, message: LoopDelta) -> None:
        self.transcript.add_delta(message.delta)

    @on(LoopStateChanged)
    def _on_loop_state(self, message: LoopStateChanged) -> None:
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

    def action_note(self) -> None:
        def deliver(text: str | None) -> None:
            if text and self.loop.status != LoopState.FINISHED:
                self.loop.note(text)

        self.app.push_screen(NoteDialog(), deliver)

    # -- workers: the loop's human_* calls write files and run evals ---------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="human")
    def _human(self, what: str, source: str) -> None:
        self._set_busy(f"{what}…")
        try:
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
