"""Which worker an eval gets: in interpret mode, confined, one forked by the checker's zygote (zygote_handle.py);
otherwise a worker started for it (the spare of worker_handle). CUDA cannot cross a fork, and unconfined there is no
sandbox to sweep, so both keep started workers.

A zygote that cannot start or fork twice in a row is given up on for the rest of the checker's life, with the reason
kept, and evals get started workers: slower, never wrong. WORKBENCH_NO_ZYGOTE=1 turns zygotes off (to compare).
"""

from __future__ import annotations

import os

from workbench.harness.worker_handle import Worker, WorkerGone, WorkerPlan, worker_limits
from workbench.harness.zygote_handle import Zygote, ZygoteGone


class Zygotes:
    def __init__(self) -> None:
        self.current: Zygote | None = None
        self.given_up: str | None = None

    def serves(self, plan: WorkerPlan) -> bool:
        return (plan.mode == "interpret" and plan.confine and self.given_up is None
                and os.environ.get("WORKBENCH_NO_ZYGOTE") != "1")  # fmt: skip

    def start_ahead(self, plan: WorkerPlan) -> None:
        """A zygote for the next eval, starting now if there is none that can fork (its imports take seconds)."""
        if self.current is not None and not self.current.usable():
            self.current.close()
            self.current = None
        if self.current is None:
            try:
                self.current = Zygote(worker_limits(plan.mode))
            except OSError as exc:
                self.given_up = f"a zygote could not start: {exc}"

    def worker(self, plan: WorkerPlan, timeout_s: float) -> Worker:
        """A forked worker, or a started one where the zygote fails twice."""
        failure = ""
        for _ in range(2):
            self.start_ahead(plan)
            if self.current is None:
                break
            try:
                self.current.wait_ready(timeout_s)
                return Worker(plan, zygote=self.current)
            except (ZygoteGone, WorkerGone) as exc:
                failure = str(exc)
                self.current.close()
                self.current = None
        self.given_up = self.given_up or failure
        return Worker(plan)

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None
