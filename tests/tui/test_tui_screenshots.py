"""The screenshot tool drives the real app to each of its screens and writes an SVG of each, and a PNG of one
drawn by Chromium."""

import asyncio
import re
import struct

import pytest
from conftest import REPO
from tui_helpers import GUIDED

from workbench.session.log import read_log
from workbench.tui.screenshots import PNG_SCALE, chromium, render_png, take


def test_every_screen_is_captured(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    written = asyncio.run(take(tmp_path))
    assert sorted(p.name for p in written) == ["compare.svg", "home.svg", "ladder.svg", "replay.svg", "session.svg"]
    text = {p.stem: p.read_text() for p in written}
    assert all(t.startswith("<svg") for t in text.values())
    assert "Sessions" in text["home"] and "compare" in text["compare"] and "live" in text["session"]
    assert "turn&#160;3/6" in text["replay"]
    assert "Design&#160;ladder:&#160;sliding_window_max" in text["ladder"]
    [l1] = [e for e in read_log(GUIDED / "events.jsonl").events if e.kind == "eval_result" and e.turn == 3]
    speedup = f"speedup&#160;{l1.result['speedup_geomean']:.2f}x"  # the guided demo's L1 rung, as the H200 timed it
    assert "turn&#160;3/6" in text["compare"] and speedup in text["compare"] and speedup in text["replay"]
    browser = chromium()
    if browser is None:
        pytest.skip("no Chromium to draw the PNG with")
    png = render_png(tmp_path / "compare.svg", browser)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    svg_width, svg_height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', text["compare"]).groups())
    assert (width, height) == (round(svg_width) * PNG_SCALE, round(svg_height) * PNG_SCALE)
    assert len(data) > 50_000  # a drawn screen of text, not an empty page
