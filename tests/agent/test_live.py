"""Against the real APIs, only with `pytest --live` and a key: the same provider code as the fakes."""

import os
import threading

import pytest

from workbench.agent.conversation import Message, ModelRequest, TextBlock, ToolSpec

pytestmark = pytest.mark.live

ECHO = ToolSpec("echo", "Echo a word back.", {"type": "object", "properties": {"word": {"type": "string"}},
                                              "required": ["word"]})  # fmt: skip


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set")
def test_anthropic_streams_a_tool_call():
    from workbench.agent.anthropic_provider import AnthropicProvider

    provider = AnthropicProvider(max_tokens=200)
    request = ModelRequest("Use the echo tool.", [ECHO], [Message("user", [TextBlock("Echo the word 'kernel'.")])])
    deltas = []
    response = provider.complete(request, deltas.append, threading.Event())
    uses = response.message().tool_uses()
    assert uses and uses[0].name == "echo" and uses[0].input.get("word") == "kernel"
    assert response.usage.output_tokens > 0 and deltas
