"""The Ladder tab at 120x40 and 80x24: a table wider than the pane is stacked, one small table per workload, and the
tab scrolls, so every latency and step figure of the ladder is shown whole (no `16…` for 163.4)."""

import re

import pytest
from conftest import REPO
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from tui_helpers import GUIDED, app_test, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.ladder_layout import fit_tables, table_width
from workbench.tui.replay_screen import ReplayScreen

FIGURE = re.compile(r"\d+\.\d+x?")  # a latency in µs (163.4) or a step (1.20x)


def region_text(screen, widget) -> list[str]:
    """The screen's text where the widget is, as painted."""
    region = widget.region
    strips = screen._compositor.render_strips()
    return [strip.crop(region.x, region.right).text for strip in strips[region.y : region.bottom]]


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return WorkbenchApp(sessions=GUIDED.parent)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda size: f"{size[0]}x{size[1]}")
@app_test
async def test_every_ladder_figure_is_shown_whole(examples, size):
    app = examples
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        screen = app.screen
        await pilot.press("4")
        ladder = screen.query_one("#ladder-md", Markdown)
        await wait_until(pilot, lambda: "Design ladder" in ladder.source)
        tables = [line for line in ladder.source.splitlines() if line.startswith("|")]
        figures = FIGURE.findall("\n".join(tables))
        assert len(figures) >= 20  # the recorded run's latencies and steps, per workload
        scroll = screen.query_one("#tab-ladder VerticalScroll", VerticalScroll)
        seen: list[str] = []
        while True:  # page through the tab, reading what is painted
            await pilot.pause(0.1)
            seen += region_text(screen, scroll)
            if scroll.scroll_y >= scroll.max_scroll_y:
                break
            scroll.scroll_to(y=scroll.scroll_y + scroll.size.height - 1, animate=False, immediate=True)
        painted = "\n".join(seen)
        assert "…" not in painted
        tokens = set(re.split(r"[\s│┃|]+", painted))
        assert [figure for figure in figures if figure not in tokens] == []


def test_only_a_table_wider_than_the_pane_is_stacked():
    table = "intro\n\n| workload | plain | L1 |\n| --- | ---: | ---: |\n| big-one | 163.4 | 136.4 |\n\nafter\n"
    assert table_width([["workload", "plain", "L1"], ["big-one", "163.4", "136.4"]]) == 8 + 5 + 5 + 9 + 1
    assert fit_tables(table, 40) == table
    stacked = fit_tables(table, 20)
    assert "| workload | big-one |\n| --- | ---: |\n| plain | 163.4 |\n| L1 | 136.4 |" in stacked
    assert stacked.startswith("intro\n") and stacked.endswith("after\n")
