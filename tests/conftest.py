"""Shared fixtures: the project's tasks, a fixture task root, and GPU detection for `gpu` tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_ROOT = FIXTURES / "root"
FIXTURE_SOLUTIONS = FIXTURES / "solutions"


def _has_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def fixture_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    return FIXTURE_ROOT
