"""Session fixtures: a scripted session on the fixture task, run in the interpreter."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import FIXTURE_ROOT, FIXTURES

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn, load_script
from workbench.session.events import SCHEMA_VERSION, Event, SessionStart
from workbench.session.history import rebuild
from workbench.session.loop import AgentLoop, Limits, LoopCallbacks
from workbench.session.store import SessionSetup, build_loop, create_session, load_session
from workbench.tasks import load_task

SCRIPT = FIXTURES / "scripts" / "scale_add.json"


def a_start(**changes) -> SessionStart:
    """A session_start with every field it needs, for logs written by hand."""
    fields = dict(turn=0, version=SCHEMA_VERSION, session_id="s", task="scale_add", levels=[], provider="scripted",
                  model="scripted", scripted=True, script=None, base_url=None, budget=20, wall_clock_s=None,
                  cost_limit_usd=None, mode="interpret", parent=None, versions={}, device="cpu", system="",
                  tools=[], initial_messages=[])  # fmt: skip
    return SessionStart(**{**fields, **changes})


class Recorder:
    """Collects the loop's events and lets a test wait for one (a condition, not a sleep)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, predicate, timeout: float = 120.0) -> Event:
        with self._cond:
            ok = self._cond.wait_for(lambda: any(predicate(e) for e in self.events), timeout)
            assert ok, f"timed out; last events: {[e.kind for e in self.events[-10:]]}"
            return next(e for e in self.events if predicate(e))

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


@pytest.fixture
def task(fixture_root):
    return load_task("scale_add", FIXTURE_ROOT)


@pytest.fixture
def make_loop(task, tmp_path):
    def make(turns: list[ScriptedTurn] | None = None, budget: int = 20, levels: set[int] | None = None,
             recorder: Recorder | None = None) -> tuple[AgentLoop, Path, Recorder]:  # fmt: skip
        provider = ScriptedProvider(turns if turns is not None else load_script(SCRIPT))
        setup = SessionSetup(task, levels or set(), provider, Limits(budget), "interpret")
        folder, log = create_session(setup, tmp_path / "sessions")
        recorder = recorder or Recorder()
        state = rebuild(load_session(folder)[0])
        return build_loop(setup, folder, log, state, LoopCallbacks(on_event=recorder)), folder, recorder

    return make
