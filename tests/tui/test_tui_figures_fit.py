"""An eval's figures are never cut in a narrow pane: the timing panel's table gives way on its words (workload, result)
and the transcript's eval panel carries its speedup in its body, which wraps, not in its title, which is cut."""

import io

import pytest
from rich.console import Console
from tui_helpers import GUIDED

from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.tui.timeline import up_to_turn
from workbench.tui.widgets.event_render import eval_panel
from workbench.tui.widgets.timing import workloads_table


def painted(renderable, width: int) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def at_turn(turn: int):
    return rebuild(up_to_turn(read_log(GUIDED / "events.jsonl").events, turn))


@pytest.mark.parametrize("width", [44, 56, 80])
def test_every_figure_of_the_last_eval_is_shown_whole_in_the_timing_table(width):
    state = at_turn(3)  # the L1 rung on the H200: figures up to 23017.9 µs and 115.18x
    text = painted(workloads_table(state), width)
    for w in state.last_eval.result["workloads"]:
        if w.get("speedup"):
            figures = [f"{w['latency_ms']['median'] * 1000:.1f}", f"{w['reference_ms']['median'] * 1000:.1f}",
                       f"{w['speedup']:.2f}x", f"{w['sol_fraction']:.0%}"]  # fmt: skip
            assert all(figure in text.split() for figure in figures), (figures, text)


@pytest.mark.parametrize("width", [36, 40, 60])
def test_the_eval_panel_shows_its_speedup_whole_in_a_narrow_transcript(width):
    event = at_turn(3).last_eval
    text = painted(eval_panel(event), width)
    assert f"speedup {event.result['speedup_geomean']:.2f}x" in text and "EVAL by agent: CORRECT" in text
