"""The speedup plot as inline SVG: per session, the best correct speedup so far over turns (a step line), each
correct timed eval as a dot, and a lane under the axis with every eval's verdict (correct untimed, incorrect,
interrupted). Sessions whose evals were not timed (interpret mode) draw no speedup: the plot says so."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from workbench.export.markup import Html, text
from workbench.export.view import CurvePoint

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP = 56, 16, 16
LANE = 18  # height of one session's verdict lane under the axis
Scale = Callable[[float], float]
COLOURS = ("#1f6feb", "#d9480f")


@dataclass(frozen=True)
class Series:
    label: str
    points: list[CurvePoint]
    last_turn: int

    def best_steps(self) -> list[tuple[int, float]]:
        """(turn, best correct speedup so far) at each turn where the best changed."""
        steps: list[tuple[int, float]] = []
        for point in sorted(self.points, key=lambda p: p.turn):
            if point.speedup is not None and not point.interrupted and (not steps or point.speedup > steps[-1][1]):
                steps.append((point.turn, point.speedup))
        return steps


def speedup_svg(series: list[Series]) -> Html:
    """The plot; `series` in the order of COLOURS."""
    bottom = HEIGHT - 28 - LANE * len(series)  # the x axis
    turns = max([s.last_turn for s in series] + [1])
    speedups = [p.speedup for s in series for p in s.points if p.speedup is not None and not p.interrupted]
    step = _tick_step(max(speedups + [1.0]))
    top_value = step * math.ceil(max(speedups + [1.0]) * 1.1 / step)

    def x(turn: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * turn / turns

    def y(value: float) -> float:
        return bottom - (bottom - TOP) * value / top_value

    parts = [_axes(x, y, bottom, turns, step, top_value)]
    if not speedups:
        middle = f'x="{x(turns / 2):.1f}" y="{(TOP + bottom) / 2:.1f}" text-anchor="middle"'
        parts.append(f'<text {middle} class="plot-note">no timed correct eval: speedup unavailable (correctness only)'
                     "</text>")  # fmt: skip
    for index, one in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        parts.append(_best_line(one, colour, x, y))
        parts.append(_lane(one, colour, x, bottom + 24 + LANE * index))
    parts.append(_legend(series))
    label = "speedup over turns: " + "; ".join(s.label for s in series)
    size = f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
    return Html(f'<svg xmlns="http://www.w3.org/2000/svg" {size} role="img" aria-label="{text(label)}" '
                f'class="plot">{"".join(parts)}</svg>')  # fmt: skip


def _tick_step(highest: float) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) that makes four or five ticks up to a little above the
    highest speedup."""
    rough = highest * 1.1 / 4
    magnitude = 10 ** math.floor(math.log10(rough))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= rough)


def _axes(x: Scale, y: Scale, bottom: float, turns: int, step: float, top_value: float) -> str:
    out = [f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" class="axis"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" class="axis"/>']  # fmt: skip
    for i in range(round(top_value / step) + 1):
        value = step * i
        out.append(f'<line x1="{LEFT}" y1="{y(value):.1f}" x2="{WIDTH - RIGHT}" y2="{y(value):.1f}" class="grid"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:g}x</text>')
    if top_value >= 1.0:  # parity with the reference
        out.append(f'<line x1="{LEFT}" y1="{y(1.0):.1f}" x2="{WIDTH - RIGHT}" y2="{y(1.0):.1f}" class="parity"/>')
    every = max(1, math.ceil(turns / 10))
    for turn in range(0, turns + 1, every):
        out.append(f'<text x="{x(turn):.1f}" y="{bottom + 14}" text-anchor="middle">{turn}</text>')
    out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP + 10}" text-anchor="end" class="plot-note">turn →</text>')
    return "".join(out)


def _best_line(one: Series, colour: str, x: Scale, y: Scale) -> str:
    steps = one.best_steps()
    if not steps:
        return ""
    corners = []
    for index, (turn, value) in enumerate(steps):
        if index:
            corners.append(f"{x(turn):.1f},{y(steps[index - 1][1]):.1f}")
        corners.append(f"{x(turn):.1f},{y(value):.1f}")
    corners.append(f"{x(one.last_turn):.1f},{y(steps[-1][1]):.1f}")
    radius = max(1.5, min(3.5, 120 / max(one.last_turn, 1)))  # dots that stay apart over hundreds of turns
    dots = [f'<circle cx="{x(p.turn):.1f}" cy="{y(p.speedup):.1f}" r="{radius:.1f}" fill="{colour}">'
            f"<title>turn {p.turn}: {p.speedup:.3f}x</title></circle>"
            for p in one.points if p.speedup is not None and not p.interrupted]  # fmt: skip
    return f'<polyline points="{" ".join(corners)}" fill="none" stroke="{colour}" stroke-width="2"/>' + "".join(dots)


def _lane(one: Series, colour: str, x: Scale, lane_y: float) -> str:
    """Every eval of the session on one row: a filled dot correct, an x incorrect, a hollow square interrupted."""
    out = [f'<text x="{LEFT - 6}" y="{lane_y + 4:.1f}" text-anchor="end" fill="{colour}">evals</text>']
    for p in one.points:
        cx = x(p.turn)
        if p.interrupted:
            out.append(f'<rect x="{cx - 4:.1f}" y="{lane_y - 4:.1f}" width="8" height="8" fill="none" '
                       f'stroke="#b08800" stroke-width="1.5" class="m-interrupted"><title>turn {p.turn}: '
                       "interrupted</title></rect>")  # fmt: skip
        elif p.correct:
            out.append(f'<circle cx="{cx:.1f}" cy="{lane_y:.1f}" r="4" fill="{colour}" class="m-correct">'
                       f"<title>turn {p.turn}: correct</title></circle>")  # fmt: skip
        else:
            out.append(
                f'<path d="M{cx - 4:.1f},{lane_y - 4:.1f} l8,8 m0,-8 l-8,8" stroke="#c92a2a" '
                f'stroke-width="2" class="m-incorrect"><title>turn {p.turn}: not correct</title></path>'
            )
    return "".join(out)


def _legend(series: list[Series]) -> str:
    out = []
    for index, one in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        ly = TOP + 14 + 16 * index
        out.append(f'<rect x="{LEFT + 10}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{LEFT + 26}" y="{ly}">{text(one.label)}</text>')  # fmt: skip
    return "".join(out)
