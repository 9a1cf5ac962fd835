"""Human mode: a person drives a session on a task with no script and no API key (edit, evaluate, submit), logged
like any session; handing it to a model without its key says so in one line; handing it to one goes on as an agent
session with the person's work."""

import json

import pytest
from conftest import FIXTURES
from textual.widgets import Button, DataTable, Label, Select
from tui_helpers import app_test, footer_keys, wait_until

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs import HandOverDialog, NewSessionDialog
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen

SCRIPT = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
KERNEL = SCRIPT[1]["content"][1]["input"]["content"].replace("(n // 1024,)", "(triton.cdiv(n, 1024),)")


@pytest.fixture
def no_keys(fixture_root, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


async def start_from_the_form(pilot, app) -> LiveScreen:
    """n on the first task, the form's defaults, Start."""
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    app.screen.query_one("#tasks", DataTable).focus()
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, NewSessionDialog) and app.screen.query(Button))
    assert app.screen.query_one("#provider", Select).value == "human"  # the default with no key set
    await pilot.click("#start")
    await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
    screen = app.screen
    await wait_until(pilot, lambda: screen.loop.status == LoopState.TAKEN_OVER and not screen.editor.read_only)
    return screen


async def write_and_evaluate(pilot, screen, source: str) -> None:
    screen.editor.load_text(source)
    screen.editor.focus()
    await pilot.press("escape")  # out of the editor: the screen's keys work again
    await pilot.press("e")
    await wait_until(pilot, lambda: any(e.kind == "eval_result" for e in screen.transcript.shown), what="the eval")


@app_test
async def test_a_person_drives_a_task_with_no_script_and_no_key(no_keys, tmp_path):
    app = WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[tmp_path / "no-scripts"], mode="interpret")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_from_the_form(pilot, app)
        screen.editor.focus()
        await pilot.press("escape")  # out of the editor, whose typing takes the letter keys
        keys = footer_keys(screen)
        assert {"e", "u", "n", "t"} <= keys and not {"space", "s"} & keys  # no model: nothing to run or step
        assert screen.active_bindings["i"].binding.action == "edit"  # back into the editor, nothing to interrupt
        await write_and_evaluate(pilot, screen, KERNEL)
        await pilot.press("u")
        await wait_until(pilot, lambda: any(e.kind == "submission" for e in screen.transcript.shown),
                         what="the submission")  # fmt: skip
        assert "person driving" in screen.query_one("#timing").summary
        folder = screen.live.folder
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    start = events[0]
    assert (start.provider, start.model, start.task) == ("human", "person", "scale_add")
    assert [e.action for e in events if e.kind == "human"][:4] == ["takeover", "edit", "evaluate", "submit"]
    evals = [e for e in events if e.kind in ("eval_result", "submission")]
    assert [(e.kind, e.by, e.correct) for e in evals] == [("eval_result", "human", True), ("submission", "human", True)]
    assert not any(e.kind in ("model_request", "model_response") for e in events)
    assert events[-1].kind == "session_end" and events[-1].reason == "interrupted"  # resumable: the app quit


@app_test
async def test_handing_over_without_a_key_says_so_and_keeps_the_persons_session(no_keys, tmp_path):
    app = WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[tmp_path / "no-scripts"], mode="interpret")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_from_the_form(pilot, app)
        screen.editor.focus()
        await pilot.press("escape")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, HandOverDialog) and app.screen.query(Button))
        assert app.screen.query_one("#provider", Select).value == "anthropic"
        await pilot.click("#start")
        await wait_until(pilot, lambda: app.screen is screen and app._notifications, what="the refusal")
        [message] = [n.message for n in app._notifications]
        assert "ANTHROPIC_API_KEY" in message and "\n" not in message
        assert screen.loop.status == LoopState.TAKEN_OVER and not screen.run.ended


@app_test
async def test_a_persons_session_handed_to_a_model_goes_on_with_their_work(no_keys, tmp_path):
    app = WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_from_the_form(pilot, app)
        await write_and_evaluate(pilot, screen, KERNEL)
        screen.editor.load_text(KERNEL + "# a last touch, not evaluated\n")
        screen.editor.focus()
        await pilot.press("escape")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, HandOverDialog) and app.screen.query(Button))
        app.screen.query_one("#provider", Select).value = "scripted"
        assert not str(app.screen.query_one("#form-error", Label).render())
        await pilot.click("#start")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen is not screen
                         and app.screen.is_mounted, what="the model's live screen")  # fmt: skip
        agent = app.screen
        assert agent.live.folder == screen.live.folder and not agent.run.human
        await wait_until(pilot, lambda: agent.run.ended, what="the model's session to end")
    app.wait_closed()
    events = read_log(screen.live.folder / "events.jsonl").events
    kinds = [e.kind for e in events]
    first_end = kinds.index("session_end")
    assert events[first_end].reason == "interrupted" and kinds[first_end + 1] == "session_resumed"
    assert events[first_end + 1].provider == "scripted"
    edits = [e for e in events[:first_end] if e.kind == "human" and e.action == "edit"]
    assert "+# a last touch, not evaluated" in edits[-1].diff  # what was typed is recorded before the model goes on
    delivered = next(e for e in events if e.kind == "human" and e.action == "note_delivered")
    assert "A person worked on this task" in delivered.text_for_agent and "triton.cdiv" in delivered.text_for_agent
    assert events[-1].kind == "session_end" and events[-1].reason == "submitted"
    assert any(e.kind == "turn_end" for e in events[first_end:])


def test_a_session_handed_to_a_model_is_the_models_when_resumed_again(no_keys, tmp_path):
    """Resumed or branched from the app after a hand-over, it goes on with the model, not with the person."""
    from workbench.session.service import PersonAtKeyboard, Session
    from workbench.session.specs import ProviderSpec, make_limits
    from workbench.tui.launch import branch_session, hand_over, resume_session

    person = Session.new("scale_add", set(), PersonAtKeyboard(), make_limits(20), "interpret", tmp_path)
    person.close()
    again = resume_session(person.folder, [FIXTURES / "scripts"])
    assert again.setup.provider.name == "human"  # nobody handed it over yet: the person's
    again.close()
    model, note = hand_over(person.folder, ProviderSpec("scripted", script=FIXTURES / "scripts" / "scale_add.json"))
    assert "left solution.py as it was" in note
    model.close()  # as a kill leaves it: resumed with the model, no end
    later = resume_session(person.folder, [FIXTURES / "scripts"])
    assert later.setup.provider.name == "scripted"
    later.close()
    branch = branch_session(person.folder, 0, tmp_path / "branches", [FIXTURES / "scripts"])
    assert branch.setup.provider.name == "scripted"
    branch.close()


def test_a_persons_session_compares_with_an_agents(no_keys, tmp_path):
    """The same summary for both: correct submissions, the turn of the first correct one, tokens, cost."""
    from workbench.session.service import PersonAtKeyboard, Session
    from workbench.session.specs import ProviderSpec, make_limits
    from workbench.tui.comparison import Side

    person = Session.new("scale_add", set(), PersonAtKeyboard(), make_limits(20), "interpret", tmp_path)
    loop = person.attach()
    loop.take_over()
    loop.start(paused=True)
    while loop.status != LoopState.TAKEN_OVER:
        loop.wait(0.01)
    loop.human_edit(KERNEL)
    assert loop.human_evaluate().correct and loop.human_submit().correct
    loop.stop()
    loop.wait(30)
    person.close()
    agent = Session.new("scale_add", set(), ProviderSpec("scripted", script=FIXTURES / "scripts" / "scale_add.json"),
                        make_limits(20), "interpret", tmp_path)  # fmt: skip
    assert agent.run() == "submitted"
    ours, theirs = Side.load(person.folder).summary(), Side.load(agent.folder).summary()
    assert ours["correct"] == "yes (1/1 submissions correct)" and ours["first correct submission"] == "turn 0"
    assert theirs["correct"] == "yes (1/1 submissions correct)" and theirs["first correct submission"] == "turn 5"
    assert (ours["condition"], ours["outcome"], ours["cost"]) == ("human", "interrupted", "n/a")


def test_a_persons_final_submission_ends_the_session_as_submitted(no_keys, tmp_path):
    """An agent's final submit ends its session; a person's does too (the app's U), and the folder says who drove."""
    from workbench.session.service import PersonAtKeyboard, Session
    from workbench.session.specs import make_limits

    person = Session.new("scale_add", {1}, PersonAtKeyboard(), make_limits(20), "interpret", tmp_path)
    assert person.folder.name.startswith("scale_add-human-L1-")
    loop = person.attach()
    loop.take_over()
    loop.start(paused=True)
    while loop.status != LoopState.TAKEN_OVER:
        loop.wait(0.01)
    loop.human_edit(KERNEL)
    assert loop.human_submit().correct  # not final: the person goes on
    assert loop.wait(0.2) is None and loop.status == LoopState.TAKEN_OVER
    assert loop.human_submit(final=True).correct
    assert loop.wait(30) == "submitted"
    person.close()
    events = read_log(person.folder / "events.jsonl").events
    submissions = [(e.by, e.final) for e in events if e.kind == "submission"]
    assert submissions == [("human", False), ("human", True)]
    assert events[-1].kind == "session_end" and events[-1].reason == "submitted"


@app_test
async def test_U_submits_as_final_and_the_session_ends(no_keys, tmp_path):
    app = WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[tmp_path / "no-scripts"], mode="interpret")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await start_from_the_form(pilot, app)
        screen.editor.load_text(KERNEL)
        screen.editor.focus()
        await pilot.press("escape")
        assert "U" in footer_keys(screen)
        await pilot.press("U")
        await wait_until(pilot, lambda: screen.loop.status == LoopState.FINISHED, what="the session's end")
        assert screen.loop.end_reason == "submitted"
        assert "U" not in footer_keys(screen)  # nothing left to submit
        folder = screen.live.folder
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    assert [(e.by, e.final, e.correct) for e in events if e.kind == "submission"] == [("human", True, True)]
    assert events[-1].reason == "submitted"
