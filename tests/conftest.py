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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--live", action="store_true", help="also run tests against the real model APIs (keys needed)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    no_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    not_live = pytest.mark.skip(reason="talks to a real API: run with --live")
    for item in items:
        if "gpu" in item.keywords and not _has_cuda():
            item.add_marker(no_gpu)
        if "live" in item.keywords and not config.getoption("--live"):
            item.add_marker(not_live)


@pytest.fixture
def fixture_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    return FIXTURE_ROOT
