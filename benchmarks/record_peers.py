"""Record a GPU run of production peers as docs/runs/<run>/peers.json (what `workbench suite` shows beside the
experts): for each peer in the manifest (kept outside the project with the wrappers: task, peer, repo, path,
commit, url, license, adapter_notes), its `workbench eval --json` result from the run's folder, and the figures of the
experts evaluated in the same run the same way.

    python benchmarks/record_peers.py --manifest M.json --evals DIR --out docs/runs/RUN/peers.json \\
        --measured-at "2026-12-03 11:30 UTC" --command "the command the run used"

DIR holds `<task>__<peer>.json` per peer and `<task>__expert.json` per task. A peer without a result is recorded
as failed with the reason from its `.err` file. With `--over EARLIER` (an earlier peers.json) the record also keeps
what this run did not measure: the tasks it did not time, whole; of a task it timed, the earlier rejections of peers
it did not run again (they carry no figure). A correct peer's figures are only ever set beside the expert of its own
run, so an earlier correct peer of a task timed again is dropped. Exit status: 0 written, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.peers import PEERS_VERSION, PeersError, peer_entry, read_peers_document  # noqa: E402

SOURCE_KEYS = ("repo", "path", "commit", "url", "license", "adapter_notes")


def _result(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


def _why(evals: Path, stem: str) -> str:
    err = evals / f"{stem}.err"
    lines = err.read_text(errors="replace").strip().splitlines() if err.is_file() else []
    return lines[-1][:300] if lines else "no result (timed out or killed)"


def build(manifest: list[dict[str, Any]], evals: Path, measured_at: str, command: str) -> dict[str, Any]:
    doc: dict[str, Any] = {"version": PEERS_VERSION, "measured_at": measured_at, "command": command, "device": None,
                           "experts": {}, "peers": []}  # fmt: skip
    for task in sorted({e["task"] for e in manifest}):
        expert = _result(evals / f"{task}__expert.json")
        if expert is None:
            continue
        doc["device"] = doc["device"] or expert.get("device")
        timed = [w for w in expert.get("workloads", []) if w.get("correct") and w.get("latency_ms")]
        doc["experts"][task] = {w["name"]: {"latency_ms": w["latency_ms"]["median"],
                                            "reference_ms": (w.get("reference_ms") or {}).get("median")}
                                for w in timed}  # fmt: skip
    for e in manifest:
        stem = f"{e['task']}__{e['peer']}"
        result = _result(evals / f"{stem}.json")
        source = {k: e.get(k) for k in SOURCE_KEYS}
        doc["peers"].append(peer_entry(e["task"], e["peer"], source, result, None if result else _why(evals, stem)))
    return doc


def merge_over(doc: dict[str, Any], earlier: dict[str, Any], earlier_path: str) -> dict[str, Any]:
    """`doc` with what `earlier` holds and this run did not measure (see the module docstring)."""
    timed = set(doc["experts"])
    ran = {(p["task"], p["peer"]) for p in doc["peers"]}
    for task, figures in earlier.get("experts", {}).items():
        doc["experts"].setdefault(task, figures)
    kept = [p for p in earlier.get("peers", []) if (p["task"], p["peer"]) not in ran
            and (p["task"] not in timed or not p.get("correct"))]  # fmt: skip
    doc["peers"] = sorted(kept + doc["peers"], key=lambda p: p["task"])
    doc["over"] = {"path": earlier_path, "measured_at": earlier.get("measured_at"), "command": earlier.get("command")}
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--evals", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--measured-at", required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--over", type=Path, help="an earlier peers.json: keep what this run did not measure")
    args = parser.parse_args(argv)
    try:
        manifest = json.loads(args.manifest.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        print(f"record_peers: {args.manifest}: not a manifest ({exc})", file=sys.stderr)
        return 2
    if not isinstance(manifest, list) or not all(isinstance(e, dict) and "task" in e and "peer" in e
                                                 for e in manifest):  # fmt: skip
        print(f"record_peers: {args.manifest}: not a manifest (a list of entries with task and peer)", file=sys.stderr)
        return 2
    if not args.evals.is_dir():
        print(f"record_peers: {args.evals} is not a folder", file=sys.stderr)
        return 2
    doc = build(manifest, args.evals, args.measured_at, args.command)
    if args.over is not None:
        try:
            earlier = read_peers_document(args.over)
        except PeersError as exc:
            print(f"record_peers: {exc}", file=sys.stderr)
            return 2
        doc = merge_over(doc, earlier, str(args.over))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    ok = sum(1 for p in doc["peers"] if p["correct"])
    print(f"{args.out}: {len(doc['peers'])} peers ({ok} correct), experts of {len(doc['experts'])} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
