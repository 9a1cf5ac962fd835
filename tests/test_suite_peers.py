"""Production peers beside the experts (workbench/peers.py, benchmarks/record_peers.py): a GPU run's eval results of
the peers' wrappers and of the experts become a peers.json; `workbench suite` names the fastest correct peer per
workload and its ratio against the expert timed in the same run. The figures are the test's own inputs."""

import json
import sys
from pathlib import Path

import pytest
from test_suite_report import _result, root  # noqa: F401 - the fixture: a project root with recorded runs

from workbench.cli import main
from workbench.peers import load_peers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import record_peers  # noqa: E402

MANIFEST = [
    {"task": "scale_add", "peer": "fastlib", "repo": "org/fastlib", "path": "ops/add.py", "commit": "a" * 40,
     "url": "https://example.invalid/fastlib", "license": "MIT", "adapter_notes": "none"},
    {"task": "scale_add", "peer": "slowlib", "repo": "org/slowlib", "path": "add.py", "commit": "b" * 40,
     "url": "https://example.invalid/slowlib", "license": "BSD-3", "adapter_notes": "none"},
    {"task": "scale_add", "peer": "wronglib", "repo": "org/wronglib", "path": "add.py", "commit": "c" * 40,
     "url": "https://example.invalid/wronglib", "license": "MIT", "adapter_notes": "none"},
    {"task": "scale_add", "peer": "hunglib", "repo": "org/hunglib", "path": "add.py", "commit": "d" * 40,
     "url": "https://example.invalid/hunglib", "license": "MIT", "adapter_notes": "none"},
]  # fmt: skip


def _record(root, tmp_path):  # noqa: F811
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "scale_add__expert.json").write_text(json.dumps(_result({"medium": (1.2, 4.0), "tiny": None})))
    (evals / "scale_add__fastlib.json").write_text(json.dumps(_result({"medium": (0.8, 4.0), "tiny": None})))
    (evals / "scale_add__slowlib.json").write_text(json.dumps(_result({"medium": (3.0, 4.0), "tiny": None})))
    (evals / "scale_add__wronglib.json").write_text(json.dumps(_result({"medium": None}, correct=False)))
    (evals / "scale_add__hunglib.err").write_text("Traceback ...\nTimeoutError: compile took too long\n")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(MANIFEST))
    out = root / "docs" / "runs" / "a-new" / "peers.json"
    assert record_peers.main(["--manifest", str(manifest), "--evals", str(evals), "--out", str(out),
                              "--measured-at", "2026-02-02 00:00 UTC", "--command", "run_peers.sh"]) == 0  # fmt: skip
    return out


def test_the_fastest_correct_peer_is_named_and_a_failed_one_says_why(root, tmp_path):  # noqa: F811
    peers = load_peers(_record(root, tmp_path))
    best = peers.best("scale_add", "medium")
    assert (best.peer, best.latency_ms) == ("fastlib", 0.8)
    assert peers.expert_ms[("scale_add", "medium")] == 1.2
    failed = {e["peer"]: e["error"] for e in peers.failed("scale_add")}
    assert set(failed) == {"wronglib", "hunglib"}
    assert "mismatch" in failed["wronglib"] and "compile took too long" in failed["hunglib"]
    source = next(e["source"] for e in peers.entries if e["peer"] == "fastlib")
    assert (source["repo"], source["commit"]) == ("org/fastlib", "a" * 40)


def test_workbench_suite_shows_the_best_peer_against_the_expert_of_the_same_run(root, tmp_path, capsys):  # noqa: F811
    _record(root, tmp_path)
    assert main(["suite"]) == 0
    out = capsys.readouterr().out
    assert "| best peer us | expert / peer |" in out
    row = next(line for line in out.splitlines() if line.startswith("| scale_add | medium |"))
    assert "| 800.0 | 1.50x (fastlib) |" in row  # 1.2 ms (the expert in the peers' run) over 0.8 ms
    assert main(["suite", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    medium = next(w for w in doc["workloads"] if w["workload"] == "medium")
    assert (medium["best_peer"], medium["best_peer_ms"], medium["peer_run_expert_ms"]) == ("fastlib", 0.8, 1.2)


def test_no_peers_file_leaves_the_table_as_it_was_and_a_bad_one_is_one_line(root, tmp_path, capsys):  # noqa: F811
    assert main(["suite"]) == 0
    assert "best peer" not in capsys.readouterr().out
    bad = tmp_path / "peers.json"
    bad.write_text('{"peers": [{"task": "scale_add"}]}')
    assert main(["suite", "--peers", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "malformed peer entry" in err[0]
    newer = tmp_path / "newer.json"
    newer.write_text('{"version": 99, "peers": []}')
    assert main(["suite", "--peers", str(newer)]) == 2
    assert "newer than this workbench reads" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["not json", '{"task": "scale_add"}', '[{"task": "scale_add"}]'])
def test_record_peers_refuses_a_bad_manifest(tmp_path, bad, capsys):
    manifest = tmp_path / "m.json"
    manifest.write_text(bad)
    code = record_peers.main(["--manifest", str(manifest), "--evals", str(tmp_path), "--out", str(tmp_path / "o.json"),
                              "--measured-at", "x", "--command", "y"])  # fmt: skip
    assert code == 2 and "not a manifest" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_a_record_over_an_earlier_one_keeps_only_what_this_run_did_not_measure(root, tmp_path):  # noqa: F811
    earlier = _record(root, tmp_path)  # scale_add: fastlib, slowlib (correct), wronglib, hunglib (failed)
    doc = json.loads(earlier.read_text())
    doc["experts"]["other_task"] = {"big": {"latency_ms": 5.0, "reference_ms": 9.0}}
    doc["peers"].append({**doc["peers"][0], "task": "other_task", "peer": "otherlib"})
    earlier.write_text(json.dumps(doc))
    evals = tmp_path / "evals-again"
    evals.mkdir()
    (evals / "scale_add__expert.json").write_text(json.dumps(_result({"medium": (0.7, 4.0)})))
    (evals / "scale_add__fastlib.json").write_text(json.dumps(_result({"medium": (0.9, 4.0)})))
    manifest = tmp_path / "manifest-again.json"
    manifest.write_text(json.dumps(MANIFEST[:1]))
    out = root / "docs" / "runs" / "b-newer" / "peers.json"
    assert record_peers.main(["--manifest", str(manifest), "--evals", str(evals), "--out", str(out),
                              "--measured-at", "2026-03-03 00:00 UTC", "--command", "again.sh",
                              "--over", str(earlier)]) == 0  # fmt: skip
    peers = load_peers(out)
    kept = {(e["task"], e["peer"]) for e in peers.entries}
    # re-measured: this run's figures; earlier rejections kept; an earlier correct peer of a re-timed task dropped
    assert kept == {("scale_add", "fastlib"), ("scale_add", "wronglib"), ("scale_add", "hunglib"),
                    ("other_task", "otherlib")}  # fmt: skip
    assert peers.best("scale_add", "medium").latency_ms == 0.9
    assert peers.expert_ms[("scale_add", "medium")] == 0.7
    assert peers.expert_ms[("other_task", "big")] == 5.0  # a task this run did not time keeps its own expert
    assert json.loads(out.read_text())["over"]["measured_at"] == "2026-02-02 00:00 UTC"


def test_record_peers_over_a_file_that_is_not_a_peers_file_is_one_line(tmp_path, capsys):
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(MANIFEST[:1]))
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    code = record_peers.main(["--manifest", str(manifest), "--evals", str(tmp_path), "--out", str(tmp_path / "o.json"),
                              "--measured-at", "x", "--command", "y", "--over", str(bad)])  # fmt: skip
    assert code == 2 and "not a peers file" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()
