"""The judge is runtime-blind: no latency, speedup, SOL fraction or cost of a session reaches its prompt, in any
rendering, and the prompt does not change when they do."""

import re
from collections import Counter

from conftest import REPO
from judge_helpers import RecordingProvider, answer
from session_logs import as_version_2, copy_example, files_at, index_of, load, save, submission

from workbench.judge import judge_session

# Figures found nowhere in the task, the guidance or the example's files, in any rounding.
FIGURES = {
    "latency_ms": 0.04218,
    "latency_mean_ms": 0.04263,
    "latency_err_ms": 0.000613,
    "reference_ms": 0.31178,
    "speedup": 7.3916,
    "sol_ms": 0.017529,
    "sol_fraction": 0.41557,
    "speedup_geomean": 6.8147,
    "cost": 0.83719,
}
# Words of the harness's results and the session's records. The task and the expert's guidance use a few (the
# guidance says what its measurements found: "~1.7x slower"); the prompt may hold those and no more.
TIMING_WORDS = re.compile(
    r"(?i)speedup|latency|reference_ms|sol_ms|sol_fraction|geomean|best_speedup|median|\busd\b|\bcost_|"
    r"\d\s*ms\b|\$\s*\d|\d\.\d+\s*x\b|eval_result|timing_note"
)


def renderings(value: float) -> set[str]:
    """The ways a figure could be written, with at least three significant digits: as is, rounded to 2-6
    decimals or 3-6 significant digits, in scientific notation, as a percent, in thousandths (ms as us)."""
    texts = {repr(value)}
    texts |= {f"{value:.{n}f}" for n in range(2, 7)} | {f"{value:.{n}g}" for n in range(3, 7)}
    texts |= {f"{value:.{n}e}" for n in range(2, 5)}
    for scaled in (value * 100, value * 1000):
        texts |= {f"{scaled:.{n}f}" for n in range(0, 4)}
    texts |= {f"{value * 100:.{n}f}%" for n in range(0, 3)}
    return {t for t in texts if len(re.sub(r"^[0.]+|e.*$|[.%]", "", t)) >= 3}


def _stamp(events, figures):
    """Every eval and submission timed with the figures, and the figures in what the agent was told and spent."""
    timed = {"latency_ms": {"median": figures["latency_ms"], "mean": figures["latency_mean_ms"],
                            "err": figures["latency_err_ms"], "n": 50},
             "reference_ms": figures["reference_ms"], "speedup": figures["speedup"], "sol_ms": figures["sol_ms"],
             "sol_fraction": figures["sol_fraction"]}  # fmt: skip
    said = (f"latency {figures['latency_ms']} ms, speedup {figures['speedup']}x, "
            f"{figures['sol_fraction'] * 100:.2f}% of SOL, ${figures['cost']}")  # fmt: skip
    for event in events:
        if event["kind"] in ("eval_result", "submission"):
            event["result"].update(correct=True, speedup_geomean=figures["speedup_geomean"])
            for workload in event["result"]["workloads"]:
                workload.update(timed)
            event["summary"] = said
        if event["kind"] in ("model_response", "turn_end", "session_end"):
            event["cost"] = figures["cost"]
        if event["kind"] in ("turn_end", "session_end"):
            event["best_speedup"] = figures["speedup"]
        if event["kind"] == "tool_result":
            event["text"] += "\n" + said


def _timed_session(tmp_path, name, figures):
    folder = copy_example(tmp_path / name)
    events = load(folder)
    as_version_2(events, "final")
    at = index_of(events, "submission", 6)
    result = events[at]["result"]
    events[at] = submission(6, result, files_at(events, 6))
    _stamp(events, figures)
    save(folder, events)
    return folder


def test_no_figure_of_the_session_in_any_rendering_nor_timing_words_reach_the_judge(tmp_path):
    folder = _timed_session(tmp_path, "a", FIGURES)
    assert FIGURES["speedup"] and "7.3916x" in (folder / "events.jsonl").read_text()  # the log does hold them
    provider = RecordingProvider([answer()])
    judge_session(folder, provider)
    shown = provider.prompt_text()
    assert "  19|     h = (x + r).to(tl.bfloat16)" in shown  # the submitted solution was shown
    leaked = sorted(text for value in FIGURES.values() for text in renderings(value) if text in shown)
    assert leaked == []
    trusted = (REPO / "tasks" / "rmsnorm_residual" / "task.md").read_text()
    trusted += (REPO / "guidance" / "rmsnorm_residual" / "guidance.toml").read_text()
    assert Counter(TIMING_WORDS.findall(shown)) - Counter(TIMING_WORDS.findall(trusted)) == Counter()


def test_the_renderings_would_catch_a_leak():
    written = f"latency {FIGURES['latency_ms']:.4f} ms, {FIGURES['speedup']:.2f}x, {FIGURES['sol_fraction']:.1%}"
    caught = [t for value in FIGURES.values() for t in renderings(value) if t in written]
    assert {"0.0422", "7.39", "41.6%"} <= set(caught)
    assert len(TIMING_WORDS.findall(written)) == 3  # latency, "ms" after a number, "7.39x"


def test_the_prompt_is_the_same_whatever_the_figures(tmp_path):
    other = {name: value * 1.37 for name, value in FIGURES.items()}
    first, second = RecordingProvider([answer()]), RecordingProvider([answer()])
    one = judge_session(_timed_session(tmp_path, "a", FIGURES), first)
    two = judge_session(_timed_session(tmp_path, "b", other), second)
    assert one.prompt_sha256 == two.prompt_sha256  # the fences' nonces differ; the hash masks them
    nonces = [re.search(r'nonce="([0-9a-f]+)"', p.requests[0].system).group(1) for p in (first, second)]
    assert nonces[0] != nonces[1]
    assert first.prompt_text().replace(nonces[0], "N") == second.prompt_text().replace(nonces[1], "N")
