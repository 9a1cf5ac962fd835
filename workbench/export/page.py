"""The exported page: one self-contained HTML document (inline style sheet and SVG, no script, no external asset; a
Content-Security-Policy that forbids loading anything) of one session, or of two side by side."""

from __future__ import annotations

import difflib
import time

from workbench.export.evals import eval_block, verdict
from workbench.export.markup import Html, code, fold, highlight_css, join, table, tag, text
from workbench.export.plot import Series, speedup_svg
from workbench.export.style import STYLE
from workbench.export.transcript import transcript
from workbench.export.view import SessionView

# Nothing may be fetched or run: a page sent to a colleague shows the same thing offline, and text from a session
# can never become a script even if it escaped its escaping.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def single_page(view: SessionView) -> str:
    title = f"{view.start.session_id}: {view.start.task}, {view.condition}"
    body = [
        tag("h1", title),
        _pair(_section("Summary", summary_table([view])), _section("Speedup over turns", speedup_svg([_series(view)]))),
        _section("Settings", settings_table(view)),
        _section("Evals", _evals_list(view)),
        _section("Final solution", _solution_note(view), code(view.final_solution)),
        _section("Transcript", transcript(view)),
    ]
    return _document(title, body)


def compare_page(left: SessionView, right: SessionView) -> str:
    title = f"{left.start.session_id} vs {right.start.session_id}"
    diff = "".join(difflib.unified_diff(left.final_solution.splitlines(keepends=True),
                                        right.final_solution.splitlines(keepends=True),
                                        f"{left.start.session_id}/solution.py",
                                        f"{right.start.session_id}/solution.py"))  # fmt: skip
    body = [
        tag("h1", title),
        _section("Summary", summary_table([left, right])),
        _section("Speedup over turns", speedup_svg([_series(left), _series(right)])),
        _section(
            "Final solutions",
            _pair(*(join([_solution_note(v), code(v.final_solution)]) for v in (left, right))),
            fold("diff of the final solutions", code(diff or "(identical)\n", "diff"), cls="diff"),
        ),
        _section("Settings", _pair(settings_table(left), settings_table(right))),
        _section("Evals", _pair(_evals_list(left), _evals_list(right))),
        _section("Transcripts", _pair(transcript(left), transcript(right))),
    ]
    return _document(title, body)


def settings_table(view: SessionView) -> Html:
    """How the session was set up: what another run would need to be comparable."""
    start = view.start
    provider = f"{start.provider} / {start.model}" + (" (scripted)" if start.scripted else "")
    limits = [f"{start.budget} turns"]
    limits.append(f"{start.wall_clock_s:g} s wall clock" if start.wall_clock_s else "no wall-clock limit")
    limits.append(f"${start.cost_limit_usd:g}" if start.cost_limit_usd else "no cost limit")
    if start.context_window:
        limits.append(f"context window {start.context_window:,} tokens")
    rows = [
        ["session", start.session_id],
        ["task", start.task],
        ["condition", view.condition + (f" (levels {', '.join(map(str, start.levels))})" if start.levels else "")],
        ["model", provider],
        ["evals", f"mode {start.mode} on {start.device}"],
        ["limits", ", ".join(limits)],
        ["scoring rule", _rule_words(view.scoring)],
        ["submission that counts", _counted_words(view)],
        ["started", time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(start.time))],
        ["versions", ", ".join(f"{k} {v}" for k, v in sorted(start.versions.items()))],
    ]
    if start.parent:
        rows.append(["branched from", f"{start.parent.get('session')} at turn {start.parent.get('turn')}"])
    return table(["setting", "value"], rows, cls="settings")


def summary_table(views: list[SessionView]) -> Html:
    rows = [
        ["condition", *(v.condition for v in views)],
        ["model", *(v.start.model for v in views)],
        ["turns", *(f"{v.state.turn} of {v.start.budget}" for v in views)],
        ["outcome", *(v.state.end_reason or "not ended" for v in views)],
        ["submissions correct", *(f"{v.state.correct_submissions} of {v.state.submissions}" for v in views)],
        ["evals", *(f"{len(v.evals)} ({sum(e.interrupted for e in v.evals)} interrupted)" for v in views)],
        ["best correct speedup", *(_best(v) for v in views)],
        ["counted submission", *(_counted_words(v) for v in views)],
        ["tokens in / out / cache read", *(_tokens(v) for v in views)],
        ["cost", *(_cost(v) for v in views)],
    ]
    if any(v.judgements for v in views):
        rows.append(["judge JSdesign / JSimpl", *(_judged(v) for v in views)])
    if any(v.torn for v in views):
        rows.append(["log", *("a torn last line (a kill mid-write) is left out" if v.torn else "" for v in views)])
    return table(["", *(v.start.session_id for v in views)], rows, cls="summary")


def _series(view: SessionView) -> Series:
    label = f"{view.start.session_id} ({view.condition})" + ("" if view.timed else ", untimed: correctness only")
    return Series(label, view.points, max([t.turn for t in view.turns] + [view.state.turn]))


def _best(view: SessionView) -> str:
    if not view.timed:
        return "unavailable (no eval was timed: correctness only)"
    best = view.state.best_speedup
    return f"{best:.3f}x" if best is not None else "none correct and timed"


def _rule_words(rule: str) -> str:
    if rule == "best":
        return "best: the best correct submission counts"
    return "final: the last submission counts"


def _counted_words(view: SessionView) -> str:
    counted = view.counted
    if counted is None:
        return "none: the session made no submission"
    speedup = counted.correct_speedup
    outcome = "correct" if counted.correct else "not correct"
    timing = f", {speedup:.3f}x" if speedup is not None else (", untimed" if counted.correct else "")
    auto = " (automatic: the best correct eval)" if counted.by == "auto" else ""
    return f"turn {counted.turn} by {counted.by}{auto}: {outcome}{timing}"


def _tokens(view: SessionView) -> str:
    usage = view.state.usage
    return f"{usage.input_tokens:,} / {usage.output_tokens:,} / {usage.cache_read_tokens:,}"


def _cost(view: SessionView) -> str:
    if view.state.unmetered:
        return "unknown (a server left usage out)"
    cost = view.state.known_cost
    return f"${cost:.4f}" if cost is not None else "no price (scripted or unpriced model)"


def _judged(view: SessionView) -> str:
    if not view.judgements:
        return "not judged"
    last = view.judgements[-1]
    return f"{last.js_design:.2f} / {last.js_impl:.2f} ({last.model})"


def _solution_note(view: SessionView) -> Html:
    kept = view.counted is not None and view.counted.files
    source = "the counted submission's solution.py" if kept else "the workspace's solution.py at the end"
    return tag("p", f"{view.start.session_id}: {source}", cls="note")


def _evals_list(view: SessionView) -> Html:
    if not view.evals:
        return tag("p", "no evals", cls="note")
    return join(fold(f"turn {e.event.turn}: {verdict(e)}", eval_block(e), cls="eval-fold") for e in view.evals)


def _pair(left: str, right: str) -> Html:
    return tag("div", tag("div", left, cls="col"), tag("div", right, cls="col"), cls="pair")


def _section(heading: str, *body: str) -> Html:
    return tag("section", tag("h2", heading), *body)


def _document(title: str, body: list[Html]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{STYLE}\n{highlight_css()}</style></head>"
        f"<body>{''.join(body)}<footer>Exported by D2K Workbench from the session's log.</footer></body></html>\n"
    )
