"""make_provider: names to providers, defaults, and the registry a new provider joins."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest
from conftest import FIXTURES

from workbench.agent import providers
from workbench.agent.anthropic_provider import DEFAULT_MODEL, AnthropicProvider
from workbench.agent.conversation import ModelRequest, ModelResponse, Usage
from workbench.agent.openai_provider import OpenAIProvider
from workbench.agent.providers import make_provider, register_provider


def test_known_names_make_their_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    anthropic = make_provider("anthropic", None)
    assert isinstance(anthropic, AnthropicProvider) and anthropic.model == DEFAULT_MODEL
    openai = make_provider("openai", "gpt-5", base_url="http://127.0.0.1:1/v1", max_retries=2)
    assert isinstance(openai, OpenAIProvider) and openai.model == "gpt-5" and openai.backoff.max_retries == 2


def test_scripted_replays_a_script_file() -> None:
    provider = make_provider("scripted", None, script=FIXTURES / "scripts" / "scale_add.json")
    assert provider.name == "scripted" and provider.model == "scripted"


def test_an_unknown_name_is_a_one_line_value_error() -> None:
    with pytest.raises(ValueError, match=r"unknown provider 'gemini' \(known: anthropic, openai, scripted\)"):
        make_provider("gemini", None)


def test_a_registered_factory_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    class Echo:
        name = "echo"

        def __init__(self, model: str) -> None:
            self.model = model

        def complete(
            self, request: ModelRequest, on_delta: Any, cancel: threading.Event, on_retry: Any = None
        ) -> ModelResponse:
            return ModelResponse([], "end_turn", Usage(), self.model)

    monkeypatch.setattr(providers, "FACTORIES", dict(providers.FACTORIES))
    register_provider("echo", lambda model, base_url, **options: Echo(model or "echo-1"))
    assert make_provider("echo", None).model == "echo-1"


def test_choosing_a_provider_loads_no_other_sdk() -> None:
    code = "import sys; from workbench.agent.providers import make_provider; print('anthropic' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr
