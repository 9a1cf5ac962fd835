"""`workbench judge SESSION` end to end through the real provider code: the Anthropic SDK against the strict fake
Messages API and the OpenAI-compatible client against the strict fake chat-completions server. The judge's first
answer cites a comment for an item, so it is asked again with the conversation so far; every request must be one
the real API accepts, and the judgement is logged in the session without the key."""

import json

import pytest
from agent.fake_anthropic import FakeAnthropic
from agent.fake_anthropic import Reply as AnthropicReply
from agent.fake_openai import FakeOpenAI
from agent.fake_openai import Reply as OpenAIReply
from judge_helpers import answer, with_citation
from session_logs import copy_example

from workbench.judge import read_judgements
from workbench.judge.cli import main
from workbench.session.log import read_log

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-judge-secret-0123", "OPENAI_API_KEY": "sk-judge-secret-4567"}
# The example's line 10 is a comment claiming L2.1 ("traffic: x and residual read once ..."): not evidence.
CLAIM = with_citation("implementation", "L2", 10, 10, "traffic: x and residual read once, h and y written once",
                      "L2.1")  # fmt: skip


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


def judge_through(provider: str, model: str, url: str, session, capsys) -> str:
    argv = ["judge", str(session), "--provider", provider, "--model", model, "--base-url", url]
    assert main(argv) == 0
    return capsys.readouterr().out


def check_logged(session, provider: str, model: str) -> None:
    log_text = (session / "events.jsonl").read_text()
    assert not any(key in log_text for key in KEYS.values())
    (judgement,) = read_judgements(read_log(session / "events.jsonl").events)
    assert (judgement.provider, judgement.model, judgement.attempts) == (provider, model, 2)
    assert judgement.problems == ["implementation L2: citation solution.py:10 quotes a comment, docstring or string "
                                  "literal, not code: cite the code that realises the item"]  # fmt: skip
    assert [judgement.implementation[lv].score for lv in ("L1", "L2", "L3")] == [100, 50, 25]
    assert judgement.implementation["L2"].evidence[0].item == "L2.3" and judgement.js_design == 50.0


def test_a_session_is_judged_through_the_anthropic_sdk_every_request_accepted(tmp_path, capsys):
    session = copy_example(tmp_path)
    with FakeAnthropic() as fake:
        fake.push(AnthropicReply(text=json.dumps(CLAIM)), AnthropicReply(text=json.dumps(answer())))
        out = judge_through("anthropic", "claude-sonnet-4-5", fake.url, session, capsys)
    assert fake.rejected == [] and len(fake.requests) == 2 and fake.pending() == 0
    first, retry = (r.body for r in fake.requests)
    assert "solution.py" in first["system"] or "solution.py" in json.dumps(first["system"])
    assert [m["role"] for m in retry["messages"]] == ["user", "assistant", "user"]
    assert "tools" not in retry or not retry["tools"]
    assert all(KEYS["ANTHROPIC_API_KEY"] in " ".join(r.headers.values()) for r in fake.requests)  # the key, sent
    assert "implementation    100   50   25   58.3  JSimpl" in out
    check_logged(session, "anthropic", "claude-sonnet-4-5")


def test_a_session_is_judged_through_the_openai_path_every_request_accepted(tmp_path, capsys):
    session = copy_example(tmp_path)
    with FakeOpenAI() as fake:
        fake.push(OpenAIReply(text=json.dumps(CLAIM)), OpenAIReply(text=json.dumps(answer())))
        out = judge_through("openai", "gpt-4.1", fake.url, session, capsys)
    assert fake.rejected == [] and len(fake.requests) == 2 and fake.pending() == 0
    retry = fake.requests[1].body
    assert [m["role"] for m in retry["messages"]] == ["system", "user", "assistant", "user"]
    assert retry["messages"][2]["content"] == json.dumps(CLAIM)
    assert all(KEYS["OPENAI_API_KEY"] in " ".join(r.headers.values()) for r in fake.requests)  # the key, sent
    assert "implementation    100   50   25   58.3  JSimpl" in out
    check_logged(session, "openai", "gpt-4.1")
