"""What the exported page holds, read from its HTML: the settings, every eval's figures as the harness measured them
(and none where it measured none), the interrupted eval, the counted submission, the solution at each change, the
plot, and untrusted text escaped."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser

import pytest
from export_sessions import (
    GUIDED,
    INTERPRET_NOTE,
    MARKUP,
    SCRIPT,
    SPEEDUPS,
    TIMED_ID,
    UNGUIDED,
    solution_source,
    write_interpret_session,
    write_timed_session,
)

from workbench.export import export_html
from workbench.session.log import read_log


class Elements(HTMLParser):
    """The page's elements (tag, attributes) and its text, as a browser's parser reads them."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def named(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == name]


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    folder = write_timed_session(tmp_path_factory.mktemp("sessions") / "timed")
    out = folder.parent / "timed.html"
    export_html(folder, out)
    return out.read_text()


def test_untrusted_text_is_shown_as_text_never_as_markup(timed):
    parsed = Elements(timed)
    assert parsed.named("script") == [] and parsed.named("img") == [] and parsed.named("b") == []
    assert not any(key.startswith("on") for _, attrs in parsed.tags for key in attrs)  # no event handler anywhere
    text = "".join(parsed.text)
    assert text.count(SCRIPT) >= 5 and MARKUP in text and TIMED_ID in text  # the model's words, code, notes, names
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in timed


def test_the_page_fetches_and_runs_nothing(timed):
    parsed = Elements(timed)
    policy = [a for a in parsed.named("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert policy and "default-src 'none'" in (policy[0]["content"] or "")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", timed)  # no external asset
    assert parsed.named("link") == [] and len(parsed.named("svg")) == 1


def test_the_settings_say_how_the_session_was_run(timed):
    text = " ".join(Elements(timed).text)
    for expected in ("guided L12 (levels 1, 2)", "anthropic / claude-test", "mode cuda on NVIDIA H200",
                     "350 turns, 3600 s wall clock, $5, context window 200,000 tokens",
                     "best: the best correct submission counts"):  # fmt: skip
        assert expected in text
    # under `best` the faster turn-4 submission counts, not the final one of turn 5
    assert "turn 4 by agent: correct, 2.100x" in text


def test_every_eval_shows_what_the_harness_measured(timed):
    text = " ".join(Elements(timed).text)
    for turn, speedup in SPEEDUPS.items():
        latency = 0.042 / speedup
        assert f"{latency:.4g} ± 0.0003 (n=200)" in text, turn  # the large workload's median, error and runs
        assert f"{speedup:.3f}x" in text and f"{0.0105 / latency:.1%}" in text  # speedup and SOL fraction
    assert "0.0105 (hbm)" in text and "0.042 ± 0.0004 (n=200)" in text  # SOL time with its binding resource; reference
    assert "incorrect (mismatch)" in text and "1480 elements" in text and "y[0, 7]: got 0.785, expected 0.621" in text
    assert "2.5 / 0.3" in text  # max abs / rel error of the mismatch


def test_an_interrupted_eval_is_drawn_as_interrupted(timed):
    text = " ".join(Elements(timed).text)
    assert "eval interrupted" in text and "Interrupted by a person while it ran" in text
    assert "interrupted by a person during the tool evaluate" in text
    assert "turn 3: interrupted" in timed  # its mark in the plot's lane, not a speedup dot
    assert "turn 3: 0" not in timed and 'class="m-interrupted"' in timed


def test_the_plot_draws_each_correct_timed_eval_and_the_best_so_far(timed):
    dots = re.findall(r"<title>turn (\d+): ([\d.]+)x</title>", timed)
    assert sorted((int(t), float(s)) for t, s in dots) == sorted([(2, 1.4), (4, 2.1), (5, 1.2), (5, 1.2)])
    assert timed.count("<polyline") == 1 and timed.count('class="m-incorrect"') == 1


def test_the_solution_is_shown_after_each_turn_that_changed_it(timed):
    turns = re.findall(r"<details class=\"turn\"><summary>([^<]*)</summary>", timed)
    changed = [s for s in turns if "solution.py changed" in s]
    assert [s.split(" · ")[0] for s in changed] == ["set-up (turn 0)", "turn 1", "turn 2"]
    assert timed.count("solution.py after this turn") == 3
    text = "".join(Elements(timed).text)
    assert all(f"Version {v}" in text for v in (0, 1, 2)) and solution_source(2).splitlines()[-1].strip() in text


def test_timing_of_an_interpret_session_is_unavailable_never_invented(tmp_path):
    out = tmp_path / "interpret.html"
    export_html(write_interpret_session(tmp_path / "interpret"), out)
    page = out.read_text()
    text = " ".join(Elements(page).text)
    assert "Timing unavailable: mode interpret measures correctness only." in text
    assert "unavailable (no eval was timed: correctness only)" in text
    assert (
        "speedup unavailable" in text and "<polyline" not in page and not re.search(r"<title>turn \d+: [\d.]+x", page)
    )
    cells = re.findall(r'<span title="([^"]*)" class="unavailable">unavailable</span>', page)
    # 2 evals and the submission (twice: the list and the transcript), 2 workloads, 5 timing figures
    assert len(cells) == 3 * 2 * 2 * 5
    # each says why: the harness's note, or, for a workload that failed before its timing, that nothing was measured
    assert set(cells) == {INTERPRET_NOTE, "not measured"}
    assert not re.search(r"\d+(\.\d+)? ± ", text)  # no latency anywhere


def test_an_example_recorded_on_the_h200_shows_what_it_measured(tmp_path):
    out = tmp_path / "guided.html"
    export_html(GUIDED, out)
    page = out.read_text()
    text = " ".join(Elements(page).text)
    assert "mode cuda on NVIDIA H200" in text and "Timing unavailable" not in text
    events = read_log(GUIDED / "events.jsonl").events
    results = {e.turn: e.result for e in events if e.kind in ("eval_result", "submission")}
    assert sorted(results) == [2, 3, 4, 5, 6]
    for result in results.values():
        assert f"{result['speedup_geomean']:.3f}x" in text  # each eval's speedup as the H200 measured it
        latency = result["workloads"][0]["latency_ms"]
        assert f"{latency['median']:.4g} ± " in text
    dots = re.findall(r"<title>turn (\d+): ([\d.]+)x</title>", page)
    assert {int(turn) for turn, _ in dots} == set(results) and page.count("<polyline") == 1


def test_two_sessions_side_by_side(tmp_path):
    out = tmp_path / "compare.html"
    timed = write_timed_session(tmp_path / "timed")
    export_html(timed, out, compare=GUIDED)
    page = out.read_text()
    parsed = Elements(page)
    text = "".join(parsed.text)
    assert "guided L12 (levels 1, 2)" in text and "guided L123 (levels 1, 2, 3)" in text
    assert len(parsed.named("svg")) == 1 and page.count('<text x="82"') == 2  # one plot, a legend entry each
    assert page.count("<polyline") == 2  # both were timed: a speedup line each
    assert page.count('class="pair"') == 4  # solutions, settings, evals, transcripts
    assert f"--- {TIMED_ID}/solution.py" in text and f"+++ {GUIDED.name}/solution.py" in text
    assert "+def solution(x: torch.Tensor, w: int) -> torch.Tensor:" in text and "-    return x * 2" in text
    summary = re.search(r'<table class="summary">.*?</table>', page, re.S)
    assert summary and GUIDED.name in summary.group() and "timed-&lt;i&gt;gpu&lt;/i&gt;-run" in summary.group()


def test_identical_final_solutions_say_so(tmp_path):
    out, twin = tmp_path / "compare.html", tmp_path / "twin"
    shutil.copytree(GUIDED, twin)  # the same session under another folder: the same final kernel
    export_html(GUIDED, out, compare=twin)
    assert "(identical)" in "".join(Elements(out.read_text()).text)


def test_different_final_solutions_are_diffed(tmp_path):
    out = tmp_path / "compare.html"
    export_html(GUIDED, out, compare=UNGUIDED)  # the expert against the direct method it never left
    text = "".join(Elements(out.read_text()).text)
    assert "guided L123" in text and "unguided" in text and "(identical)" not in text
    assert f"--- {GUIDED.name}/solution.py" in text and "+    BLOCK = 2048" in text
