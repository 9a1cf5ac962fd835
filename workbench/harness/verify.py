"""The checker's independent checks of a latency the solution's worker reports (docs/security.md, "Timing").

The worker's CUDA events are in the untrusted process, so the checker accepts its samples only when its own wall
clock agrees: a batch of n calls, each an L2 flush then one call, answered after a device-wide synchronise, cannot
take less wall time than its samples and flushes add up to, nor much more than they plus the round trip and the
worker's per-call host work explain. Samples that leave wall time unaccounted for (patched events, work on a stream
the events do not cover, a skipped flush) are rejected, and so is a latency under the workload's speed of light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Wall time a batch may take beyond its samples and flushes: the round trip (measured), plus per call the worker's
# Python between one call's end event and the next flush (guard exit, checks, loop), plus 10% for clock noise.
HOST_MS_PER_CALL = 0.15
RELATIVE_SLACK = 0.10
# A latency is implausible when it beats the speed of light by more than the ceilings' own measurement error.
SOL_MARGIN = 1.05


def check_batch(wall_ms: float, samples_ms: Sequence[float], flush_ms: float, round_trip_ms: float) -> str | None:
    """None when the batch's samples account for the wall time the checker measured around it; else why not."""
    if not samples_ms or not all(math.isfinite(s) and s >= 0 for s in samples_ms):
        return f"the worker reported unusable samples {list(samples_ms)[:4]}"
    n = len(samples_ms)
    accounted = sum(samples_ms) + n * flush_ms
    if accounted > wall_ms * (1 + RELATIVE_SLACK) + round_trip_ms:
        return (
            f"the batch's samples and flushes add up to {accounted:.3f} ms, more than the {wall_ms:.3f} ms of wall "
            "time the batch took"
        )
    allowed = accounted * (1 + RELATIVE_SLACK) + round_trip_ms + n * HOST_MS_PER_CALL
    if wall_ms > allowed:
        return (
            f"a batch of {n} calls took {wall_ms:.3f} ms of wall time, but its samples ({sum(samples_ms):.3f} ms) and "
            f"L2 flushes ({n * flush_ms:.3f} ms) explain at most {allowed:.3f} ms: work ran outside the timed events"
        )
    return None


def check_plausible(latency_ms: float, sol_ms: float | None) -> str | None:
    """None unless the latency beats the workload's speed of light (which no kernel can)."""
    if sol_ms is None or sol_ms <= 0:
        return None
    if latency_ms * SOL_MARGIN < sol_ms:
        return (
            f"a latency of {latency_ms * 1000:.2f} us is under the workload's speed of light ({sol_ms * 1000:.2f} us): "
            "implausible, not reported"
        )
    return None
