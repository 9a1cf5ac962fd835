"""Providers by name: the one place that turns "anthropic" or "openai" (and "scripted") into a Provider.

Each factory imports its provider only when called, so choosing one never loads another's SDK. A new
provider registers a factory in FACTORIES (or through `register_provider`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.agent.provider import Provider

# (model or None for the provider's default, base_url or None, provider-specific options) -> Provider
ProviderFactory = Callable[..., Provider]


def _anthropic(model: str | None, base_url: str | None, **options: Any) -> Provider:
    from workbench.agent.anthropic_provider import DEFAULT_MODEL, AnthropicProvider

    return AnthropicProvider(model or DEFAULT_MODEL, base_url=base_url, **options)


def _openai(model: str | None, base_url: str | None, **options: Any) -> Provider:
    from workbench.agent.openai_provider import DEFAULT_MODEL, OpenAIProvider

    return OpenAIProvider(model or DEFAULT_MODEL, base_url=base_url, **options)


def _scripted(model: str | None, base_url: str | None, script: str | Path, start_at: int = 0) -> Provider:
    # Replays a script (or a saved session) instead of calling a model; base_url means nothing to it. The script's
    # path goes into the session's log, so that a resume or a branch in another process plays the same script.
    from workbench.agent.scripted import ScriptedProvider, load_script

    path = Path(script)
    return ScriptedProvider(load_script(path), model or "scripted", start_at=start_at, source=str(path.resolve()))


FACTORIES: dict[str, ProviderFactory] = {"anthropic": _anthropic, "openai": _openai, "scripted": _scripted}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make `name` available to make_provider; a factory takes (model, base_url, **options)."""
    FACTORIES[name] = factory


def make_provider(name: str, model: str | None = None, base_url: str | None = None, **options: Any) -> Provider:
    """The provider called `name`, for `model` (None: its default) at `base_url` (None: its default).

    `options` go to the provider's constructor (api_key, max_retries, backoff_base_s, max_tokens, ...;
    `script=` path and `start_at=` for "scripted"). An unknown name is a ValueError listing the known ones.
    """
    factory = FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown provider {name!r} (known: {', '.join(sorted(FACTORIES))})")
    return factory(model, base_url, **options)
