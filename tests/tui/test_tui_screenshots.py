"""The screenshot tool drives the real app to each of its screens and writes an SVG of each."""

import asyncio

from conftest import REPO

from workbench.tui.screenshots import take


def test_every_screen_is_captured(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    written = asyncio.run(take(tmp_path))
    assert sorted(p.name for p in written) == ["compare.svg", "home.svg", "ladder.svg", "replay.svg", "session.svg"]
    text = {p.stem: p.read_text() for p in written}
    assert all(t.startswith("<svg") for t in text.values())
    assert "Sessions" in text["home"] and "compare" in text["compare"] and "live" in text["session"]
    assert "turn&#160;3/6" in text["replay"]
    assert "Design&#160;ladder:&#160;rmsnorm_residual" in text["ladder"]
