"""Running a bench's sessions as Ray tasks on an existing cluster, gathered into the same BENCH_DIR.

Each task gets the session's folder as it stands (none, or a partial one to resume), runs it to its
end in a scratch folder on its node, and returns the folder; the driver writes it back under
`BENCH_DIR/sessions/`. So nodes need no shared file system, only the same checkout of the tasks at the
plan's root and the same environment. A task asks for one GPU in cuda mode and none in the interpreter.
If the driver dies, the sessions in flight are lost and a rerun starts them again from what BENCH_DIR holds.
The bench's cost cap starts no more tasks once reached; the tasks in flight finish (their spend is only known then).
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from workbench.bench.plan import BenchPlan, ModelSpec, SessionSpec
from workbench.bench.progress import Progress
from workbench.bench.runner import BenchResult, pending_sessions
from workbench.bench.sessions import SessionOutcome, open_session, outcome
from workbench.session.loop import LoopCallbacks


def _pack(folder: Path) -> bytes | None:
    if not folder.is_dir():
        return None
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    return buffer.getvalue()


def _unpack(data: bytes, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(folder, filter="data")


def run_remote_session(plan_data: dict[str, Any], spec_data: dict[str, Any], packed: bytes | None
                       ) -> tuple[dict[str, Any], bytes]:  # fmt: skip
    """The body of one Ray task: run (or resume) the session, return its outcome and its folder."""
    plan = BenchPlan.from_dict(plan_data)
    spec = SessionSpec(spec_data["task"], ModelSpec(**spec_data["model"]), spec_data["condition"], spec_data["seed"])
    with tempfile.TemporaryDirectory(prefix="workbench-bench-") as scratch:
        key_dir = Path(scratch) / spec.key
        if packed is not None:
            _unpack(packed, key_dir)
        session = open_session(plan, spec, key_dir)
        reason = session.run(LoopCallbacks())
        data = _pack(key_dir)
        assert data is not None
        return asdict(outcome(spec.key, session, reason)), data


def _store(bench_dir: Path, key: str, data: bytes) -> None:
    """Put a returned session folder in place of the one BENCH_DIR held."""
    sessions = bench_dir / "sessions"
    incoming = sessions / f".incoming-{key}"
    shutil.rmtree(incoming, ignore_errors=True)
    _unpack(data, incoming)
    shutil.rmtree(sessions / key, ignore_errors=True)
    incoming.rename(sessions / key)


class RayRunner:
    """Like LocalRunner, with Ray tasks in place of threads; at most `parallel` in flight (0: no cap
    but the cluster's resources)."""

    def __init__(self, plan: BenchPlan, bench_dir: Path, address: str, parallel: int = 0,
                 progress: Progress | None = None) -> None:  # fmt: skip
        self.plan, self.bench_dir, self.address, self.parallel = plan, bench_dir, address, parallel
        self.progress = progress
        self._stopping = False

    def stop(self) -> None:
        """Cancel the tasks in flight (their sessions restart from BENCH_DIR's copy) and start no more."""
        self._stopping = True

    def run(self) -> BenchResult:
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address)
        pending, finished = pending_sessions(self.plan, self.bench_dir)
        result = BenchResult(already_finished=finished)
        progress = self.progress or Progress(len(self.plan.sessions()), finished)
        gpus = 1 if self.plan.mode == "cuda" else 0
        remote = ray.remote(num_gpus=gpus, num_cpus=1, max_retries=0)(run_remote_session)
        plan_data = self.plan.to_dict()
        queue, in_flight = list(pending), dict[Any, SessionSpec]()
        cap = self.parallel or len(pending) or 1
        try:
            while in_flight or (queue and not self._stopping):
                while queue and len(in_flight) < cap and not self._stopping and not progress.spend.reached:
                    spec = queue.pop(0)
                    packed = _pack(self.bench_dir / "sessions" / spec.key)
                    in_flight[remote.remote(plan_data, asdict(spec), packed)] = spec
                    progress.started(spec.key)
                if self._stopping or (not in_flight and progress.spend.reached):
                    break
                done, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
                for ref in done:
                    self._collect(ray, ref, in_flight.pop(ref), result, progress)
        except KeyboardInterrupt:
            self._stopping = True
        for ref, spec in in_flight.items():  # stopped: the sessions in flight restart from BENCH_DIR's copy
            ray.cancel(ref, force=True)
            progress.ended(spec.key, "interrupted")
        # The cost cap starts no more tasks; those in flight run to their end (cancelling one loses its spend).
        result.cap_reached = progress.spend.reached
        result.stopped = self._stopping or result.cap_reached
        return result

    def _collect(self, ray: Any, ref: Any, spec: SessionSpec, result: BenchResult, progress: Progress) -> None:
        try:
            outcome_data, data = ray.get(ref)
        except Exception as exc:  # a task that died: the session stays as BENCH_DIR held it
            result.crashed[spec.key] = f"{type(exc).__name__}: {exc}"
            progress.crashed(spec.key)
            return
        _store(self.bench_dir, spec.key, data)
        outcome = SessionOutcome(**outcome_data)
        result.outcomes.append(outcome)
        progress.cost_seen(spec.key, outcome.cost)
        progress.ended(spec.key, outcome.reason)
