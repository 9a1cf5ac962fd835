"""The agent loop: one model response and its tool calls a turn, under a budget, in a worker thread.

Its owner (the headless runner, the Textual app, a test) controls it from any thread: run, pause
(after the current turn), step (one turn, then pause), interrupt (cancel the model call or tool in
flight), take over and hand back, a note for the agent, stop. It reports every logged event, and
the model's output as it streams, through callbacks; it never blocks the caller.
"""

from __future__ import annotations

import difflib
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from workbench.agent.conversation import (
    Block,
    Delta,
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    sendable,
)
from workbench.agent.provider import (
    ContextTooLong,
    Interrupted,
    Provider,
    ProviderError,
    reasoning_effort_of,
    thinking_budget_of,
)
from workbench.harness import EvalResult
from workbench.session import events as ev
from workbench.session.context import (
    KEEP_RECENT,
    ContextGauge,
    context_window,
    needs_compaction,
    output_budget,
    output_reserve,
    plan_cut,
    request_chars,
    request_thinking,
    summary_text,
    with_summary,
)
from workbench.session.events import Event
from workbench.session.history import SessionState
from workbench.session.log import SessionLog
from workbench.session.tools import ToolBox, compact_eval
from workbench.session.workspace import (
    BlobHashes,
    apply_files,
    diff_files,
    keep_blobs,
    restore_blobs,
    text_files,
    write_whole,
)


def nudge(turns_left: int) -> str:
    return (f"You ended your turn without calling a tool. Only submit with final=true ends the session; you have "
            f"{turns_left} turns left. Keep working, and submit when your kernel is ready.")  # fmt: skip


SUBMITTED_FILES = ("solution.py", "DESIGN.md")  # kept with each submission: what the judge reads of it
TOO_LONG_RETRIES = 3  # compactions, each keeping half as much, before a prompt the server refuses ends the session


class CallbackFailed(RuntimeError):
    """A front end's callback raised (its cause is the callback's exception): the session ends on it."""


class LoopState(Enum):
    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    TAKEN_OVER = "taken over"
    FINISHED = "finished"


@dataclass
class Limits:
    """The rules a session runs under."""

    budget: int = 350  # turns
    wall_clock_s: float | None = None
    cost_usd: float | None = None
    context_window: int | None = None  # tokens; None: the model's (session/context.py)
    scoring: str = "final"  # which submission counts: "final" (the last one, the paper's rule) or "best"


@dataclass
class LoopCallbacks:
    on_event: Callable[[Event], None] = lambda event: None
    on_delta: Callable[[Delta], None] = lambda delta: None
    on_state: Callable[[LoopState], None] = lambda state: None


@dataclass
class _Controls:
    pause_after_turn: bool = False
    steps_left: int | None = None  # None: run freely
    take_over: bool = False
    stop: bool = False
    notes: list[str] = field(default_factory=list)


class AgentLoop:
    def __init__(
        self,
        provider: Provider,
        tools: ToolBox,
        log: SessionLog,
        state: SessionState,
        system: str,
        limits: Limits,
        callbacks: LoopCallbacks | None = None,
        price: Callable[[str, Any], float | None] | None = None,
    ) -> None:
        self.provider, self.tools, self.log, self.state = provider, tools, log, state
        self.system, self.limits = system, limits
        self.callbacks = callbacks or LoopCallbacks()
        self.price = price
        self.status = LoopState.IDLE
        self.end_reason: str | None = None
        self._controls = _Controls()
        self._cond = threading.Condition()
        self._human_lock = threading.Lock()  # the person's edits, from the app's worker threads, one at a time
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()
        self._takeover_source: str | None = None
        self._final_submission = False
        self._stop_reason: str | None = None  # set when a provider error ends the session
        self._limit_hit: str | None = None  # which limit ended it: turns, wall_clock or cost (a resume may raise it)
        self._blob_hashes = BlobHashes()
        self.failure: str | None = None  # why the session ended on an error, for the front end to say
        self._deadline: threading.Timer | None = None
        self._front_end_failed = False
        self.window = context_window(provider.model, limits.context_window)
        self.gauge = ContextGauge()
        self.thinking = thinking_budget_of(provider)  # what the session asks for; each request gets what fits
        self.reasoning_effort = reasoning_effort_of(provider)
        self._max_tokens = output_reserve(self.window, self.thinking)
        self._thinking_note: str | None = None  # the last one logged: a note is logged when it changes

    @property
    def work(self) -> Path:
        return self.tools.work

    # -- controls (any thread) -------------------------------------------------------------------
    def start(self, paused: bool = False) -> None:
        """Start the worker; with paused=True it waits for run() or step()."""
        with self._cond:
            self._set(LoopState.PAUSED if paused else LoopState.RUNNING)
        self._thread = threading.Thread(target=self._worker, name="agent-loop", daemon=True)
        self._thread.start()
        if self.limits.wall_clock_s is not None:
            # the limit holds inside a turn too: a model stream of pings, or a tool, is cancelled at the deadline
            left = max(0.0, self.limits.wall_clock_s - (time.monotonic() - self._started))
            self._deadline = threading.Timer(left, self._out_of_time)
            self._deadline.daemon = True
            self._deadline.start()

    def _out_of_time(self) -> None:
        with self._cond:
            if self.status == LoopState.FINISHED:
                return
            self._stop_reason = self._stop_reason or "budget"
            self._limit_hit = self._limit_hit or "wall_clock"
        self.stop()

    def run(self) -> None:
        with self._cond:
            self._controls.pause_after_turn, self._controls.steps_left = False, None
            if self.status == LoopState.PAUSED:
                self._set(LoopState.RUNNING)
            self._cond.notify_all()

    def pause(self) -> None:
        """Pause once the current turn is done."""
        with self._cond:
            self._controls.pause_after_turn = True
            self._cond.notify_all()

    def step(self) -> None:
        """Run one turn, then pause."""
        with self._cond:
            self._controls.steps_left = 1
            self._controls.pause_after_turn = False
            if self.status == LoopState.PAUSED:
                self._set(LoopState.RUNNING)
            self._cond.notify_all()

    def interrupt(self) -> None:
        """Cancel the model call or tool in flight; the loop then pauses with a valid conversation."""
        with self._cond:
            self._controls.pause_after_turn = True
            self._cancel.set()
            self._cond.notify_all()

    def stop(self) -> None:
        """End the session (reason: interrupted) as soon as what is in flight is cancelled."""
        with self._cond:
            self._controls.stop = True
            self._cancel.set()
            self._cond.notify_all()

    def note(self, text: str) -> None:
        """A note from the person, delivered to the agent with its next request."""
        with self._cond:
            self._controls.notes.append(text)
            self._log(ev.Human(turn=self.state.turn, action="note", text=text))

    def requeue_notes(self, notes: list[str]) -> None:
        """Notes logged before a crash but never delivered (a resumed session passes them on)."""
        with self._cond:
            self._controls.notes.extend(notes)

    def take_over(self) -> None:
        """The agent waits after its current turn; the person edits, evaluates and submits."""
        with self._cond:
            self._controls.take_over = True
            self._cond.notify_all()

    def hand_back(self, message: str = "") -> None:
        """Give control back; the agent is told what the person changed in solution.py, with the diff."""
        with self._cond:
            if self.status != LoopState.TAKEN_OVER:
                raise RuntimeError("hand_back() without take_over()")
            before = self._takeover_source or ""
            after = self._read_solution()
            diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                                "solution.py (before)", "solution.py (after)"))  # fmt: skip
            text = "A person took over while you waited"
            text += f" and changed solution.py:\n```diff\n{diff}```" if diff else " and left solution.py as it was."
            if message:
                text += f"\nTheir message: {message}"
            self._controls.take_over = False
            self._record_files()
            self._log(ev.Human(turn=self.state.turn, action="handback", diff=diff, text=message, text_for_agent=text))
            self.state.conversation.add_user_text(text)
            self._set(LoopState.RUNNING)
            self._cond.notify_all()

    def human_edit(self, source: str) -> None:
        """The person's new solution.py (only while taken over)."""
        with self._human_lock:  # two saves in quick succession: each diffed against the one recorded before it
            self._require_takeover()
            # Against the last recorded version: a save made outside the app is already on disk, and is not written
            # again (a write is a save to the app's watcher).
            on_disk = self._read_solution()
            before = self.state.files.get("solution.py", on_disk)
            if on_disk != source:
                write_whole(self.work / "solution.py", source)
            if before == source:
                return  # nothing changed since the last recorded version: no edit to record
            diff = "".join(difflib.unified_diff(before.splitlines(True), source.splitlines(True),
                                                "solution.py", "solution.py"))  # fmt: skip
            self._log(ev.Human(turn=self.state.turn, action="edit", diff=diff))
            self._record_files()

    def human_evaluate(self, workloads: list[str] | None = None) -> EvalResult:
        self._require_takeover()
        outcome = self.tools.execute("evaluate", {"workloads": workloads} if workloads else {}, threading.Event())
        assert outcome.eval_result is not None or outcome.is_error
        self._log(ev.Human(turn=self.state.turn, action="evaluate", text=outcome.text))
        if outcome.eval_result is not None:
            self._log_eval(outcome.eval_result, by="human")
        return outcome.eval_result  # type: ignore[return-value]

    def human_submit(self, final: bool = False) -> EvalResult:
        """The person's submission of solution.py. A final one ends the session ("submitted"), correct or not, as
        an agent's final submit does; otherwise the person goes on working."""
        self._require_takeover()
        outcome = self.tools.execute("submit", {"final": final}, threading.Event())
        assert outcome.eval_result is not None
        self._log(ev.Human(turn=self.state.turn, action="submit", text=outcome.text))
        self._log_submission(outcome.eval_result, final=final, by="human")
        if final:
            with self._cond:
                self._stop_reason = self._stop_reason or "submitted"
            self.stop()
        return outcome.eval_result

    def wait(self, timeout: float | None = None) -> str | None:
        """Wait for the session to end; its end reason, or None on timeout. A worker that is gone without finishing
        (which its boundary should make impossible) reads as an error, never as a session still running."""
        if self._thread is not None:
            self._thread.join(timeout)
            if not self._thread.is_alive() and self.status != LoopState.FINISHED:
                self.failure = self.failure or "the session's worker ended without finishing the session"
                return self.end_reason or "error"
        return self.end_reason if self.status == LoopState.FINISHED else None

    # -- the worker --------------------------------------------------------------------------------
    def _worker(self) -> None:
        try:
            while True:
                reason = self._wait_until_runnable()
                reason = reason or self._limit_reached()
                if reason:
                    self._finish(reason)
                    return
                self._turn()
                if self._final_submission:
                    self._finish("submitted")
                    return
                self._after_turn()
        except Exception as exc:  # the worker's boundary: record, end, never die silently
            self._end_after_failure(exc, traceback.format_exc())

    def _end_after_failure(self, exc: Exception, trace: str) -> None:
        """End the session on an exception from a turn, the log or a callback. Writing the log may be what failed
        (a full disk) and telling the front end may be (a closed stdout): the session ends all the same, with the
        reason kept in `failure` for the front end to say, so that nothing waits on a worker that is gone."""
        cause = exc.__cause__ if isinstance(exc, CallbackFailed) and exc.__cause__ else exc
        self.failure = f"{type(cause).__name__}: {cause}"
        if isinstance(exc, CallbackFailed):
            self.failure = f"the front end failed ({self.failure})"
        try:
            self._log(ev.Error(turn=self.state.turn, message=self.failure, traceback=trace))
        except Exception:  # noqa: BLE001 - the log or the front end is what failed; the end must still happen
            pass
        self._finish("error")

    def _wait_until_runnable(self) -> str | None:
        with self._cond:
            while True:
                if self._controls.stop:
                    return "interrupted"
                if self._controls.take_over and self.status != LoopState.TAKEN_OVER:
                    self._takeover_source = self._read_solution()
                    self._log(ev.Human(turn=self.state.turn, action="takeover"))
                    self._set(LoopState.TAKEN_OVER)
                if self.status == LoopState.RUNNING:
                    self._cancel.clear()
                    return None
                self._cond.wait()

    def _after_turn(self) -> None:
        with self._cond:
            if self._controls.steps_left is not None:
                self._controls.steps_left -= 1
                if self._controls.steps_left <= 0:
                    self._controls.steps_left = None
                    self._controls.pause_after_turn = True
            if self._controls.pause_after_turn and not self._controls.stop:
                self._controls.pause_after_turn = False
                self._log(ev.Human(turn=self.state.turn, action="pause"))
                self._set(LoopState.PAUSED)

    def _limit_reached(self) -> str | None:
        if self.state.turn >= self.limits.budget:
            self._limit_hit = "turns"
        elif self.limits.wall_clock_s is not None and time.monotonic() - self._started > self.limits.wall_clock_s:
            self._limit_hit = "wall_clock"
        elif self.limits.cost_usd is not None and self.state.cost >= self.limits.cost_usd:
            self._limit_hit = "cost"
        else:
            return None
        return "budget"

    def _turn(self) -> None:
        turn = self.state.turn + 1
        with self._cond:
            notes, self._controls.notes = self._controls.notes, []
        for text in notes:
            delivered = f"A note from the person watching: {text}"
            self._log(ev.Human(turn=self.state.turn, action="note_delivered", text=text, text_for_agent=delivered))
            self.state.conversation.add_user_text(delivered)
        response = self._request(turn, notes)
        if response is None:
            return
        unmetered = int(not response.usage_reported) + response.retried_unmetered
        billed = response.usage.plus(response.retried_usage) if response.usage_reported else response.retried_usage
        cost = self._count_spend(response.model, billed, unmetered)
        self.state.responses += 1
        self._log(ev.ModelResponse(turn=turn, content=[b.to_dict() for b in response.content],
                                   stop_reason=response.stop_reason, usage=vars(response.usage), model=response.model,
                                   latency_s=response.latency_s, retries=response.retries, cost=cost,
                                   usage_reported=response.usage_reported, retried_usage=vars(response.retried_usage),
                                   retried_unmetered=response.retried_unmetered))  # fmt: skip
        # What the API accepts back: no empty or blank text, no tool call cut off at max_tokens (history.py folds
        # the logged response the same way, so a resume rebuilds this very message).
        blocks, cut_calls = sendable(response.content, response.stop_reason)
        text = " ".join(b.text for b in blocks if isinstance(b, TextBlock)).strip()
        if text:
            self.state.context.words[turn] = text
        if blocks:
            self.state.conversation.messages.append(Message("assistant", blocks))
        calls = [b for b in blocks if isinstance(b, ToolUseBlock)]
        content: list[Block] = list(self._run_tools(turn, calls))
        if cut_calls:
            cut_off = (f"Your reply was cut off at the max_tokens limit ({self._max_tokens}) in the middle of a call "
                       f"to "
                       f"{', '.join(cut_calls)}; that call was not run. Make each call smaller (edit_file for changes, "
                       "several writes for a long file).")  # fmt: skip
            content.append(TextBlock(cut_off))
        user: Message | None = None
        if not self._final_submission:
            if not calls:
                content.append(TextBlock(nudge(self.limits.budget - turn)))
            content.append(TextBlock(self._counter(turn)))  # last: the cached prefix ends before it
            user = Message("user", content)
            self.state.conversation.messages.append(user)
        self.state.turn = turn
        changed = self._record_files(turn)
        self._log(ev.TurnEnd(turn=turn, user_message=user.to_dict() if user else None, files_changed=changed,
                             best_speedup=self.state.best_speedup, usage=dict(vars(self.state.usage)),
                             cost=self.state.known_cost, unmetered=self.state.unmetered,
                             tools=[c.name for c in calls]))  # fmt: skip

    def _request(self, turn: int, notes: list[str]) -> ModelResponse | None:
        """The model's response for this turn, the conversation compacted first when it nears the window (and again,
        harder, when the server still finds the prompt too long); None when the turn ends without one."""
        # tokens of recent turns a compaction keeps
        keep = int(KEEP_RECENT * (self.window - output_reserve(self.window, self.thinking)))
        for attempt in range(TOO_LONG_RETRIES + 1):
            request = ModelRequest(self.system, self.tools.specs, list(self.state.conversation.messages))
            chars = request_chars(request)
            tokens = self.gauge.tokens(chars)
            if attempt or needs_compaction(self.window, tokens, self.thinking):
                if self._compact(turn, tokens, keep, "too_long" if attempt else "window"):
                    request = ModelRequest(self.system, self.tools.specs, list(self.state.conversation.messages))
                    chars = request_chars(request)
                    tokens = self.gauge.tokens(chars)
                elif attempt:
                    break  # nothing left to take out
            request.max_tokens = self._max_tokens = output_budget(self.window, tokens, self.thinking)
            request.thinking_budget, thinking_note = request_thinking(self.thinking, request.max_tokens,
                                                                      request.messages)  # fmt: skip
            request.reasoning_effort = self.reasoning_effort
            if attempt == 0:
                note = thinking_note if thinking_note != self._thinking_note else None
                self._thinking_note = thinking_note
                self._log(ev.ModelRequest(turn=turn, messages=len(request.messages), notes_delivered=notes,
                                          thinking_note=note))  # fmt: skip
            try:
                response = self.provider.complete(request, self.callbacks.on_delta, self._cancel, self._on_retry)
            except ContextTooLong as exc:
                # the server counts more than the estimate: keep half of what was kept, or of what was sent
                self._log(ev.ModelRetry(turn=turn, attempt=attempt + 1, reason=f"prompt too long: {exc}", delay_s=0))
                keep = min(keep, tokens) // 2
                continue
            except Interrupted as exc:
                self._log(ev.Interrupt(turn=turn, during="model", partial_text=exc.partial_text))
                self._cancel.clear()
                return None
            except ProviderError as exc:
                self._provider_failed(turn, exc)
                return None
            if response.usage_reported and response.usage.prompt_tokens:
                self.gauge.observe(chars, response.usage.prompt_tokens)
            return response
        self._provider_failed(turn, ProviderError("the prompt is still too long for the model after compacting"))
        return None

    def _provider_failed(self, turn: int, exc: ProviderError) -> None:
        spent = getattr(exc, "spent", None)  # attempts that broke off before it gave up were paid for too
        if spent:
            cost = self._count_spend(self.provider.model, spent.usage, spent.unmetered)
            self._log(ev.Error(turn=turn, message=str(exc), cost=cost, spent_usage=vars(spent.usage),
                               spent_unmetered=spent.unmetered))  # fmt: skip
        else:
            self._log(ev.Error(turn=turn, message=str(exc)))
        with self._cond:
            self._controls.stop = True  # an unrecoverable provider error ends the session
        self._stop_reason = "error"

    def _compact(self, turn: int, tokens: int, keep: int, reason: str) -> bool:
        """Take the middle of the conversation out, keeping the first message (with a summary of what went) and the
        recent turns within `keep` of the window; logged, so that every rebuild of the conversation does the same."""
        messages = self.state.conversation.messages
        cut = plan_cut(messages, keep, self.gauge, forced=reason == "too_long")
        if cut is None:
            return False
        kept_turns = sum(1 for m in messages[cut:] if m.role == "assistant")
        first = self.state.compacted_through + 1
        removed = [first, max(first, self.state.turn - kept_turns)]
        summary = summary_text((removed[0], removed[1]), turn, self.state.context, self.state.files, self.state.blobs)
        after = [with_summary(messages[0], summary), *messages[cut:]]
        tokens_after = self.gauge.tokens(request_chars(ModelRequest(self.system, self.tools.specs, after)))
        event = ev.Compaction(turn=self.state.turn, cut=cut, first_message=after[0].to_dict(), removed_turns=removed,
                              tokens_before=tokens, tokens_after=tokens_after, reason=reason)  # fmt: skip
        self.state.conversation.messages = after
        self.state.compacted_through = removed[1]
        self._log(event)
        return True

    def _counter(self, turn: int) -> str:
        request = ModelRequest(self.system, self.tools.specs, self.state.conversation.messages)
        full = 100 * self.gauge.tokens(request_chars(request)) / self.window
        return f"[turn {turn}/{self.limits.budget}, context {full:.0f}% full]"

    def _run_tools(self, turn: int, calls: list[ToolUseBlock]) -> list[ToolResultBlock]:
        results = []
        for call in calls:
            if self._cancel.is_set():
                results.append(ToolResultBlock(call.id, "not run: interrupted by the person", is_error=True))
                continue
            self._log(ev.ToolCall(turn=turn, id=call.id, name=call.name, input=call.input))
            outcome = self.tools.execute(call.name, call.input, self._cancel)
            if self._cancel.is_set():
                self._log(ev.Interrupt(turn=turn, during="tool", tool=call.name))
            self._log(ev.ToolResult(turn=turn, id=call.id, name=call.name, text=outcome.text,
                                    is_error=outcome.is_error))  # fmt: skip
            if outcome.eval_result is not None:
                if outcome.submission:
                    self._log_submission(outcome.eval_result, final=outcome.final, by="agent", turn=turn)
                    self._final_submission = self._final_submission or outcome.final
                else:
                    self._log_eval(outcome.eval_result, by="agent", turn=turn)
            results.append(ToolResultBlock(call.id, outcome.text, outcome.is_error))
        return results

    # -- records -------------------------------------------------------------------------------------
    def _count_spend(self, model: str, usage: Usage, unmetered: int) -> float | None:
        """Tokens the server billed, into the session's totals; returns their cost, unknown (None) when nothing of
        it was reported."""
        known = any(vars(usage).values())
        cost = self.price(model, usage) if self.price and (known or not unmetered) else None
        self.state.usage.add(usage)
        self.state.cost += cost or 0.0
        self.state.cost_known = self.state.cost_known or cost is not None
        self.state.unmetered += unmetered
        return cost

    def _log(self, event: Event) -> Event:
        """Append the event (the log numbers and times it) and tell the front end."""
        logged = self.log.append(event)
        self._tell(self.callbacks.on_event, logged)
        return logged

    def _tell(self, callback: Callable[[Any], None], value: Any) -> None:
        """A front end's callback; once one has failed (stdout closed under `| head`), the others are not called,
        and the failure ends the session (CallbackFailed, through the worker's boundary)."""
        if self._front_end_failed:
            return
        try:
            callback(value)
        except Exception as exc:
            self._front_end_failed = True
            raise CallbackFailed(str(exc)) from exc

    def _log_eval(self, result: EvalResult, by: str, turn: int | None = None) -> None:
        best = result.correct and (
            (result.speedup_geomean or 0.0) > (self.state.best_speedup or 0.0)
            or (result.speedup_geomean is None and self.state.best_speedup is None)  # untimed: the latest correct
        )
        event = ev.EvalResult(turn=self.state.turn if turn is None else turn, by=by, summary=compact_eval(result),
                              result=_json(result), solution=self._read_solution() if best else None)  # fmt: skip
        self.state.note_eval(event)
        self._log(event)

    def _log_submission(self, result: EvalResult, final: bool, by: str, turn: int | None = None) -> None:
        files = {path: (self.work / path).read_text(errors="replace") for path in SUBMITTED_FILES
                 if (self.work / path).is_file()}  # fmt: skip
        event = ev.Submission(turn=self.state.turn if turn is None else turn, by=by, final=final,
                              summary=compact_eval(result), result=_json(result), files=files)  # fmt: skip
        self.state.note_eval(event)
        self._log(event)

    def _submit_best(self) -> None:
        """A session that ends without a correct submission (out of turns, time or money, or on a provider's error)
        submits its best correct evaluation instead, marked as such (by "auto"): many correct evaluations and no
        submit must not score as a failure."""
        if self.state.correct_submissions or self.state.best_solution is None:
            return
        write_whole(self.work / "solution.py", self.state.best_solution)
        self._record_files()
        outcome = self.tools.execute("submit", {"final": True}, threading.Event())
        if outcome.eval_result is not None:
            self._log_submission(outcome.eval_result, final=True, by="auto")

    def _record_files(self, turn: int | None = None) -> list[str]:
        now = text_files(self.work)
        changed, deleted = diff_files(self.state.files, now)
        blobs = self._blob_hashes.of(self.work, now)
        blobs_changed, blobs_deleted = diff_files(self.state.blobs, blobs)
        if blobs_changed:  # in the store before the log names them: a log never points at a missing blob
            keep_blobs(self.work, blobs_changed, self.log.path.parent / "blobs")
        if changed or deleted or blobs_changed or blobs_deleted:
            self.state.files, self.state.blobs = now, blobs
            self.state.blobs_known.update(blobs_changed)
            has_blobs = bool(blobs or blobs_deleted)  # a workspace that never had one logs none: older logs read alike
            self._log(ev.Files(turn=self.state.turn if turn is None else turn, changed=changed, deleted=deleted,
                               blobs_changed=blobs_changed if has_blobs else None,
                               blobs_deleted=blobs_deleted if has_blobs else None))  # fmt: skip
        return sorted(changed) + sorted(deleted) + sorted(blobs_changed) + sorted(blobs_deleted)

    def _finish(self, reason: str) -> None:
        reason = self._stop_reason or reason
        self.end_reason = reason
        if self._deadline is not None:
            self._deadline.cancel()
        if reason in ("budget", "error") and not self._front_end_failed:
            try:
                self._submit_best()
            except Exception as exc:  # noqa: BLE001 - the session ends all the same; the log says why
                self.failure = self.failure or f"the automatic submission failed: {type(exc).__name__}: {exc}"
        try:
            limit = self._limit_hit if reason == "budget" else None
            self._log(ev.SessionEnd(turn=self.state.turn, reason=reason, limit=limit, turns=self.state.turn,
                                    usage=dict(vars(self.state.usage)), cost=self.state.known_cost,
                                    unmetered=self.state.unmetered, best_speedup=self.state.best_speedup,
                                    submissions=self.state.submissions))  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - a log that cannot be written, a front end that is gone
            self.failure = self.failure or f"{type(exc).__name__}: {exc}"
        with self._cond:
            self._set(LoopState.FINISHED)

    def _on_retry(self, attempt: int, reason: str, delay: float) -> None:
        self._log(ev.ModelRetry(turn=self.state.turn, attempt=attempt, reason=reason, delay_s=delay))

    def _set(self, status: LoopState) -> None:
        self.status = status
        try:
            self._tell(self.callbacks.on_state, status)
        except CallbackFailed:
            if status != LoopState.FINISHED:
                raise  # finished is finished whatever the front end does with it

    def _read_solution(self) -> str:
        path = self.work / "solution.py"
        return path.read_text() if path.exists() else ""

    def _require_takeover(self) -> None:
        if self.status != LoopState.TAKEN_OVER:
            raise RuntimeError("the person must take over first")


def _json(result: EvalResult) -> dict[str, Any]:
    from workbench.jsonsafe import json_safe

    data: dict[str, Any] = json_safe(result.to_dict())
    return data


def restore_workspace(work: Path, files: dict[str, str], state: SessionState | None = None,
                      store: Path | None = None) -> None:  # fmt: skip
    """Make the workspace's files what the log says they were (resume after a kill mid-turn): its text files, and
    with `state` and the session's blob `store`, its larger and binary files too."""
    changed, deleted = diff_files(text_files(work), files)
    apply_files(work, changed, deleted)
    if state is not None and store is not None and (state.blobs or state.blobs_known):
        restore_blobs(work, state.blobs, state.blobs_known, store)
