"""The exported page in a real browser: headless Chromium loads it from a file (no network) and shows the transcript,
the plot and the evals, with untrusted text as text; its screenshot is a rendered page of the asked size.

Skipped only where Chromium is absent (CI installs it: .ci/run)."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from export_sessions import GUIDED, SCRIPT, write_timed_session
from png_pixels import colours, read_png

from workbench.export import export_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
WIDTH, HEIGHT = 1280, 900


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", *args, page.resolve().as_uri()]  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


class Dom(HTMLParser):
    """The DOM Chromium serialised after loading: its elements and its text."""

    def __init__(self, serialised: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(serialised)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def count(self, tag: str, cls: str | None = None) -> int:
        return sum(1 for t, a in self.elements if t == tag and (cls is None or a.get("class") == cls))


@pytest.fixture(scope="module")
def timed_page(tmp_path_factory):
    folder = write_timed_session(tmp_path_factory.mktemp("sessions") / "timed")
    out = folder.parent / "timed.html"
    export_html(folder, out, compare=GUIDED)
    return out


def test_the_loaded_page_shows_the_sessions_with_untrusted_text_as_text(timed_page, tmp_path):
    dom = Dom(chromium(timed_page, tmp_path / "profile", "--dump-dom").stdout)
    assert dom.count("script") == 0 and dom.count("img") == 0  # the transcript's tags stayed text after the load
    text = "".join(dom.text)
    assert SCRIPT in text and "alert(2)" in text  # ... and are shown as the model wrote them
    assert dom.count("details", "turn") == 6 + 7  # every turn of both sessions, set-up included, folded
    assert dom.count("svg") == 1 and dom.count("polyline") == 2 and dom.count("table", "summary") == 1
    assert "eval interrupted" in text and "speedup unavailable" not in text  # both sessions were timed


def test_a_screenshot_is_a_rendered_page_of_the_asked_size(timed_page, tmp_path):
    shot = tmp_path / "page.png"
    chromium(timed_page, tmp_path / "profile", f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}",
             "--hide-scrollbars")  # fmt: skip
    width, height, rows = read_png(shot)
    assert (width, height) == (WIDTH, HEIGHT)
    counts = colours(rows, bpp=len(rows[0]) // width)
    background = max(counts.values())
    assert background < 0.97 * width * height  # text, tables and the plot cover part of the page
    assert len(counts) > 50  # anti-aliased text and coloured marks, not a flat image
