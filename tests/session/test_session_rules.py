"""What ends a session and what the model is sent back, each rule with the failure it fixes: a turn without a tool
after a non-final submit no longer ends the session; a session out of turns submits its best correct evaluation; a
prompt the server finds too long is compacted and asked again; replies the API would refuse are never resent."""

import json

from conftest import FIXTURE_ROOT
from session_helpers import Recorder, make_loop, task  # noqa: F401

from workbench.agent.conversation import TextBlock, ToolUseBlock, sendable
from workbench.agent.provider import ContextTooLong
from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session.history import rebuild
from workbench.session.log import read_log

SOLUTION = (FIXTURE_ROOT / "guidance" / "scale_add" / "expert.py").read_text()


def text(t):
    return {"type": "text", "text": t}


def call(i, name, args):
    return {"type": "tool_use", "id": f"t{i}", "name": name, "input": args}


WRITE = ScriptedTurn([text("Writing."), call(1, "write_file", {"path": "solution.py", "content": SOLUTION})])


def test_a_turn_without_a_tool_after_a_non_final_submit_does_not_end_the_session(make_loop):  # noqa: F811
    turns = [WRITE, ScriptedTurn([call(2, "submit", {"final": False})]), ScriptedTurn([text("Thinking it over.")]),
             ScriptedTurn([call(3, "submit", {"final": True})])]  # fmt: skip
    loop, folder, rec = make_loop(turns)
    loop.start()
    assert loop.wait(timeout=300) == "submitted"
    ends = [e for e in rec.events if e.kind == "turn_end"]
    assert len(ends) == 4  # the session went on after the third turn, which called no tool
    nudged = json.dumps(ends[2].user_message)
    assert "Only submit with final=true ends the session" in nudged and "17 turns left" in nudged


def test_a_session_out_of_turns_submits_its_best_correct_evaluation(make_loop):  # noqa: F811
    turns = [WRITE, ScriptedTurn([call(2, "evaluate", {})]),
             ScriptedTurn([call(3, "write_file", {"path": "solution.py", "content": "broken("})])]  # fmt: skip
    loop, folder, rec = make_loop(turns, budget=3)
    loop.start()
    assert loop.wait(timeout=300) == "budget"
    (submission,) = [e for e in rec.events if e.kind == "submission"]
    assert submission.by == "auto" and submission.correct and submission.final
    assert submission.files["solution.py"] == SOLUTION  # the evaluated solution, not the broken last write
    assert rebuild(read_log(folder / "events.jsonl").events).correct_submissions == 1


class RefusesOnce(ScriptedProvider):
    """A scripted model whose server refuses the request of turn `at` once as longer than the window."""

    def __init__(self, turns, at):
        super().__init__(turns)
        self.at, self.refused = at, False

    def complete(self, request, on_delta, cancel, on_retry=None):
        if self.position == self.at - 1 and not self.refused:
            self.refused = True
            raise ContextTooLong("Anthropic API error 400 invalid_request_error: prompt is too long: 210000 tokens > "
                                 "200000 maximum")  # fmt: skip
        return super().complete(request, on_delta, cancel, on_retry)


def test_a_prompt_the_server_finds_too_long_is_compacted_and_sent_again(make_loop):  # noqa: F811
    turns = [WRITE, *[ScriptedTurn([call(i, "bash", {"command": "echo step"})]) for i in range(2, 7)],
             ScriptedTurn([call(9, "submit", {"final": True})])]  # fmt: skip
    loop, folder, rec = make_loop(turns)
    loop.provider = RefusesOnce(turns, at=7)
    loop.start()
    assert loop.wait(timeout=300) == "submitted"  # not "error": the refusal did not end the session
    (compaction,) = [e for e in rec.events if e.kind == "compaction"]
    assert compaction.reason == "too_long" and compaction.turn == 6
    events = read_log(folder / "events.jsonl").events
    assert [m.to_dict() for m in rebuild(events).conversation.messages] == [
        m.to_dict() for m in loop.state.conversation.messages
    ]
    assert "[Context compacted" in json.dumps(loop.state.conversation.messages[0].to_dict())


def test_blank_text_and_a_call_cut_off_at_max_tokens_are_never_sent_back():
    content = [TextBlock(""), TextBlock(" \n"), TextBlock("Writing."), ToolUseBlock("a", "bash", {"command": "ls"}),
               ToolUseBlock("b", "write_file", {"_unparsed_input": '{"path": "big.md", "content": "ab'})]  # fmt: skip
    kept, dropped = sendable(content, "max_tokens")
    assert kept == [TextBlock("Writing."), ToolUseBlock("a", "bash", {"command": "ls"})] and dropped == ["write_file"]
    kept, dropped = sendable([TextBlock("  ")], "end_turn")
    assert kept == [] and dropped == []  # an empty reply: the loop sends no assistant message for it
