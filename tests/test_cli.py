"""The command line as a user runs it: real subprocesses, exit codes, one-line errors."""

import json
import os
import subprocess
import sys

from conftest import FIXTURE_ROOT, FIXTURE_SOLUTIONS, REPO, _has_cuda


def run(*args, root=FIXTURE_ROOT):
    env = {**os.environ, "WORKBENCH_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, env=env,
                          timeout=600)  # fmt: skip


def test_tasks_lists_every_task_with_its_workloads():
    proc = run("tasks", root=REPO)
    assert proc.returncode == 0
    for name in ("rmsnorm_residual", "gram_syrk", "segmented_scan", "cross_entropy"):
        assert name in proc.stdout
    listed = json.loads(run("tasks", "--json", root=REPO).stdout)
    assert sum(len(t["workloads"]) for t in listed) >= 12


def test_eval_json_of_a_correct_solution_exits_0():
    proc = run("eval", "scale_add", "expert", "--mode", "interpret", "--json", "--seeds", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["correct"] and data["device"]["mode"] == "interpret"
    assert {w["name"] for w in data["workloads"]} == {"tiny", "small"}
    assert all(w["latency_ms"] is None for w in data["workloads"])


def test_eval_of_a_failing_solution_exits_1_and_says_why():
    proc = run("eval", "scale_add", str(FIXTURE_SOLUTIONS / "partial.py"), "--workload", "small", "--seeds", "1")
    assert proc.returncode == 1
    assert "unwritten" in proc.stdout and "never written" in proc.stdout


def test_eval_beside_gives_each_solution_its_verdict_and_the_first_ones_exit_status():
    partial = str(FIXTURE_SOLUTIONS / "partial.py")
    proc = run("eval", "scale_add", "expert", "--beside", partial, "--mode", "interpret", "--json", "--seeds", "1")
    assert proc.returncode == 0, proc.stderr
    expert, other = json.loads(proc.stdout)
    assert expert["correct"] and not other["correct"] and expert["seed"] == other["seed"]
    assert other["solution"].endswith("partial.py")
    proc = run("eval", "scale_add", partial, "--beside", "expert", "--mode", "interpret", "--seeds", "1")
    assert proc.returncode == 1 and "side by side" in proc.stdout and "unwritten" in proc.stdout


def test_bad_input_is_one_line_and_exit_2():
    for args in (
        ("eval", "no_such_task", "expert"),
        ("eval", "scale_add", "/nonexistent/solution.py"),
        ("eval", "scale_add", "expert", "--workload", "nope"),
        ("eval", "scale_add", "expert", "--seeds", "0"),
        ("eval", "scale_add", "expert", "--timeout", "0"),
        ("eval", "scale_add", "expert", "--timeout", "-5"),
        ("eval", "scale_add", "expert", "--beside", "/nonexistent/other.py"),
        *([("eval", "scale_add", "expert", "--mode", "cuda")] if not _has_cuda() else []),
    ):
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.startswith("workbench: error:") and proc.stderr.count("\n") == 1, proc.stderr


def test_score_reads_saved_results(tmp_path):
    saved = tmp_path / "r.json"
    saved.write_text(run("eval", "scale_add", "expert", "--json", "--seeds", "1").stdout)
    proc = run("score", str(saved))
    assert proc.returncode == 2 and "not timed" in proc.stderr  # interpret mode: no speedup to score


def test_a_reader_that_goes_away_ends_the_command_quietly():
    """`workbench tasks | head -1`: the pipe closes under the command; no traceback, the shell's SIGPIPE status."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "tasks"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # before the command writes a line
    stderr = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 141 and "Traceback" not in stderr, stderr


def test_an_eval_records_its_seed_and_the_same_seed_draws_the_same_inputs():
    first = json.loads(run("eval", "scale_add", "expert", "--mode", "interpret", "--json", "--seeds", "1").stdout)
    again = json.loads(run("eval", "scale_add", "expert", "--mode", "interpret", "--json", "--seeds", "1",
                           "--seed", str(first["seed"])).stdout)  # fmt: skip
    other = json.loads(run("eval", "scale_add", "expert", "--mode", "interpret", "--json", "--seeds", "1").stdout)
    assert [w["seeds"] for w in again["workloads"]] == [w["seeds"] for w in first["workloads"]]
    assert other["seed"] != first["seed"] and other["workloads"][0]["seeds"] != first["workloads"][0]["seeds"]


def test_the_apps_options_before_any_command_open_the_app(monkeypatch, tmp_path):
    """`workbench --sessions DIR` is the app on that folder (the main parser knew only commands)."""
    import workbench.tui.app as app

    seen: list[list[str]] = []
    monkeypatch.setattr(app, "run_app", lambda argv: seen.append(argv) or 0)
    from workbench import cli

    assert cli.main(["--sessions", str(tmp_path), "--budget", "5"]) == 0
    assert seen == [["--sessions", str(tmp_path), "--budget", "5"]]


def test_every_usage_error_of_the_package_maps_to_exit_2_in_one_place():
    """cli/errors.py is the one map: an error class named for bad input anywhere in workbench must be in it."""
    import importlib
    import pkgutil

    import workbench
    from workbench.cli.errors import USAGE_ERRORS

    found = set()
    for module in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if module.name.startswith(("workbench.tui", "workbench.harness.solution_side")) or module.name.endswith(
            "__main__"
        ):
            continue  # the app reports in its own screens; the worker's package stands alone
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, type) and issubclass(value, Exception) and value.__name__.endswith("UsageError"):
                found.add(value)
    assert found and found <= set(USAGE_ERRORS), found - set(USAGE_ERRORS)
