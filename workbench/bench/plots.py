"""PNG plots of the report: Sperf by condition and judge scores by condition, one bar group per model.

matplotlib is optional: without it `write_plots` writes nothing and says why.
"""

from __future__ import annotations

from pathlib import Path

from workbench.bench.tables import Table


def write_plots(sperf: Table, judge: Table, out: Path) -> tuple[list[Path], str | None]:
    """The plots written, and why none were (matplotlib missing) or None."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib is not installed: no plots"
    written = []
    for table, column, ylabel, name in ((sperf, "sperf", "Sperf (geomean speedup)", "speedup_by_condition.png"),
                                        (judge, "js_design", "JSdesign", "jsdesign_by_condition.png"),
                                        (judge, "js_impl", "JSimpl", "jsimpl_by_condition.png")):  # fmt: skip
        series = _series(table, column)
        if not series:
            continue
        conditions = sorted({c for values in series.values() for c in values}, key=list(_conditions(table)).index)
        figure, axes = plt.subplots(figsize=(max(4.0, 1.2 * len(conditions) * len(series) / 2 + 2), 3.2))
        width = 0.8 / len(series)
        for i, (model, values) in enumerate(series.items()):
            xs = [j + i * width for j, c in enumerate(conditions) if c in values]
            axes.bar(xs, [values[c] for c in conditions if c in values], width, label=model)
        axes.set_xticks([j + 0.4 - width / 2 for j in range(len(conditions))], conditions)
        axes.set_ylabel(ylabel)
        axes.legend(fontsize="small")
        figure.tight_layout()
        figure.savefig(out / name, dpi=120)
        plt.close(figure)
        written.append(out / name)
    return written, None


def _conditions(table: Table) -> dict[str, None]:
    return {str(row[1]): None for row in table.rows}


def _series(table: Table, column: str) -> dict[str, dict[str, float]]:
    """model -> condition -> value, for the numeric cells only (untimed and empty ones are left out)."""
    index = table.columns.index(column)
    series: dict[str, dict[str, float]] = {}
    for row in table.rows:
        value = row[index]
        if isinstance(value, (int, float)):
            series.setdefault(str(row[0]), {})[str(row[1])] = float(value)
    return series
