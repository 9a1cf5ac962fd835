"""Production peers: other projects' public Triton kernels for a task's computation, timed beside the expert on the
same GPU and recorded as figures only (their code is not part of this project: each was run through a wrapper for
the task's signature kept outside it). A `peers.json` under docs/runs/<run>/ holds, per peer, its source (repo,
path, commit, URL), its verdict, and per workload its latency and the reference's from the same eval;
`workbench suite` shows the latest one's fastest correct peer beside the expert (suite.latest_run finds it).
`benchmarks/record_peers.py` writes the file from the eval results of a GPU run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PEERS_VERSION = 1
PEERS_FILE = "peers.json"


class PeersError(ValueError):
    """A peers.json that cannot be read: one line, naming the file."""


@dataclass(frozen=True)
class PeerTiming:
    peer: str
    latency_ms: float
    reference_ms: float | None


@dataclass
class Peers:
    path: Path
    measured_at: str
    entries: list[dict[str, Any]] = field(default_factory=list)
    by_workload: dict[tuple[str, str], list[PeerTiming]] = field(default_factory=dict)
    # the expert timed in the same run, the same way: what a peer is compared with
    expert_ms: dict[tuple[str, str], float] = field(default_factory=dict)

    def best(self, task: str, workload: str) -> PeerTiming | None:
        """The fastest correct peer on this workload, or None."""
        timings = self.by_workload.get((task, workload), [])
        return min(timings, key=lambda t: t.latency_ms) if timings else None

    def failed(self, task: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["task"] == task and not e.get("correct")]


def read_peers_document(path: Path) -> dict[str, Any]:
    """A peers.json as its JSON object, checked to be one this workbench reads (PeersError, one line, if not)."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise PeersError(f"no peers file at {path}") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise PeersError(f"{path}: not a peers file ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("peers"), list):
        raise PeersError(f"{path}: not a peers file (no 'peers' list)")
    if doc.get("version", 0) > PEERS_VERSION:
        raise PeersError(f"{path}: peers file version {doc['version']} is newer than this workbench reads")
    return doc


def load_peers(path: Path) -> Peers:
    doc = read_peers_document(path)
    peers = Peers(path, str(doc.get("measured_at", "?")))
    try:
        for task, workloads in (doc.get("experts") or {}).items():
            for workload, figures in workloads.items():
                peers.expert_ms[(str(task), str(workload))] = float(figures["latency_ms"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise PeersError(f"{path}: malformed expert figures ({exc})") from None
    for entry in doc["peers"]:
        try:
            task, name, workloads = str(entry["task"]), str(entry["peer"]), entry.get("workloads") or {}
            peers.entries.append(entry)
            if not entry.get("correct"):
                continue  # a peer that failed a workload is no reference point on any of them
            for workload, figures in workloads.items():
                reference = figures.get("reference_ms")
                timing = PeerTiming(name, float(figures["latency_ms"]), float(reference) if reference else None)
                peers.by_workload.setdefault((task, str(workload)), []).append(timing)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise PeersError(f"{path}: malformed peer entry ({exc})") from None
    return peers


def peer_entry(task: str, peer: str, source: dict[str, Any], result: dict[str, Any] | None,
               error: str | None = None) -> dict[str, Any]:  # fmt: skip
    """One peer's record from its `workbench eval --json` result (None: the eval produced none, `error` says why):
    per timed workload its median latency and the reference's, in ms."""
    entry: dict[str, Any] = {"task": task, "peer": peer, "source": source, "correct": False, "error": error,
                             "workloads": {}}  # fmt: skip
    if result is None:
        return entry
    entry["correct"] = bool(result.get("correct"))
    entry["error"] = result.get("error") or error
    for w in result.get("workloads") or []:
        latency, reference = w.get("latency_ms") or {}, w.get("reference_ms") or {}
        if w.get("correct") and latency.get("median"):
            entry["workloads"][w["name"]] = {"latency_ms": latency["median"], "reference_ms": reference.get("median")}
        elif not w.get("correct"):
            entry["error"] = entry["error"] or f"{w.get('name')}: {w.get('failure')}: {str(w.get('error'))[:300]}"
    return entry
