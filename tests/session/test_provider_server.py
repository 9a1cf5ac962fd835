"""A session made with a provider object (the bench, a script, the app's hand-over) records that provider's server,
as one made from a ProviderSpec does, so that the log says where the model ran and a resume finds it again."""

from __future__ import annotations

from workbench.agent.anthropic_provider import AnthropicProvider
from workbench.agent.openai_provider import OpenAIProvider
from workbench.session.service import Session
from workbench.session.specs import make_limits


def test_a_provider_objects_server_is_recorded(fixture_root, tmp_path):
    server = "http://127.0.0.1:9/v1"  # never contacted: making a session sends nothing
    openai = Session.new("scale_add", set(), OpenAIProvider("gpt-4.1", api_key="k", base_url=server),
                         make_limits(3), "interpret", tmp_path)  # fmt: skip
    anthropic = Session.new("scale_add", set(), AnthropicProvider("claude-sonnet-4-5", api_key="k", base_url=server),
                            make_limits(3), "interpret", tmp_path)  # fmt: skip
    try:
        assert Session.open(openai.folder).start.base_url == server
        assert Session.open(anthropic.folder).start.base_url == server
    finally:
        openai.close()
        anthropic.close()
